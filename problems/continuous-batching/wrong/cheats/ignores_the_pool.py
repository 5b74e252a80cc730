# expect: wrong_answer
# why: the shortcut of scheduling by batch size and tokens alone, as if the KV cache were unlimited:
#      no block is ever missing, so nobody waits for memory and nobody is preempted. The free-block
#      count goes negative; the budget of blocks is what the kata is about
from collections import deque


def continuous_batching(requests: list, num_blocks: int, block_size: int, max_batch: int,
                        max_step_tokens: int) -> dict:
    def blocks(positions):
        return -(-positions // block_size)

    pending = deque(sorted(requests, key=lambda r: r["arrival"]))  # stable: input order within a step
    waiting, running = deque(), []  # running: in order of admission
    generated = {r["id"]: 0 for r in requests}
    cached = {}  # id -> positions in the KV cache
    free = num_blocks
    report = {r["id"]: {"first_token_step": None, "finish_step": None, "preemptions": 0} for r in requests}
    steps = []
    step = 0
    while pending or waiting or running:
        while pending and pending[0]["arrival"] <= step:
            waiting.append(pending.popleft())
        preempted, decoding = [], list(running)
        for request in decoding:
            free -= blocks(cached[request["id"]] + 1) - blocks(cached[request["id"]])
            cached[request["id"]] += 1
        prefilling = []
        budget = max_step_tokens - len(decoding)
        while waiting and len(running) < max_batch:
            request = waiting[0]
            tokens = request["prompt"] + generated[request["id"]]
            if tokens > budget:
                break
            waiting.popleft()
            free -= blocks(tokens)
            budget -= tokens
            cached[request["id"]] = tokens
            running.append(request)
            prefilling.append(request)
        finished = []
        for request in decoding + prefilling:
            generated[request["id"]] += 1
            if report[request["id"]]["first_token_step"] is None:
                report[request["id"]]["first_token_step"] = step
            if generated[request["id"]] == request["output"]:
                running.remove(request)
                free += blocks(cached.pop(request["id"]))
                report[request["id"]]["finish_step"] = step
                finished.append(request["id"])
        steps.append({"prefill": [r["id"] for r in prefilling], "decode": [r["id"] for r in decoding],
                      "preempted": preempted, "finished": finished, "free_blocks": free,
                      "tokens": max_step_tokens - budget})
        step += 1
    return {"steps": steps, "requests": report}
