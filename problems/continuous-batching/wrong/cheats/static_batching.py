# expect: wrong_answer
# why: the shortcut of static batching: admit a batch only when nothing is running and let it run to
#      its slowest request. It never preempts (a batch admitted under the budget... still has to grow, so
#      it reserves each request's whole output up front) and skips the point of continuous batching:
#      finished requests' slots stay empty until the whole batch is done
from collections import deque


def continuous_batching(requests, num_blocks, block_size, max_batch, max_step_tokens):
    def blocks(positions):
        return -(-positions // block_size)

    pending = deque(sorted(requests, key=lambda r: r["arrival"]))
    waiting, running = deque(), []
    generated = {r["id"]: 0 for r in requests}
    reserved = {}
    free = num_blocks
    report = {r["id"]: {"first_token_step": None, "finish_step": None, "preemptions": 0} for r in requests}
    steps, step = [], 0
    while pending or waiting or running:
        while pending and pending[0]["arrival"] <= step:
            waiting.append(pending.popleft())
        decoding, prefilling = list(running), []
        budget = max_step_tokens - len(decoding)
        while not decoding and waiting and len(running) < max_batch:
            request = waiting[0]
            need = blocks(request["prompt"] + request["output"])
            if need > free or request["prompt"] > budget:
                break
            waiting.popleft()
            free -= need
            budget -= request["prompt"]
            reserved[request["id"]] = need
            running.append(request)
            prefilling.append(request)
        finished = []
        for request in decoding + prefilling:
            generated[request["id"]] += 1
            if report[request["id"]]["first_token_step"] is None:
                report[request["id"]]["first_token_step"] = step
            if generated[request["id"]] == request["output"]:
                running.remove(request)
                free += reserved.pop(request["id"])
                report[request["id"]]["finish_step"] = step
                finished.append(request["id"])
        steps.append({"prefill": [r["id"] for r in prefilling], "decode": [r["id"] for r in decoding],
                      "preempted": [], "finished": finished, "free_blocks": free,
                      "tokens": max_step_tokens - budget})
        step += 1
    return {"steps": steps, "requests": report}
