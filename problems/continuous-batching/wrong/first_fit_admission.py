# expect: wrong_answer
# why: skips a waiting request that does not fit and admits smaller ones behind it (first fit); the
#      scheduler is first come first served, so the large request at the head is not starved
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
        # Every running request decodes one token: room for one more position, oldest first; when
        # the pool is out of blocks, the request admitted last is preempted (recomputed later).
        preempted, decoding = [], []
        for request in list(running):
            if request not in running:
                continue  # preempted already in this step
            while request in running and blocks(cached[request["id"]] + 1) > blocks(cached[request["id"]]) \
                    and free == 0:
                victim = running.pop()
                free += blocks(cached.pop(victim["id"]))
                waiting.appendleft(victim)
                report[victim["id"]]["preemptions"] += 1
                preempted.append(victim["id"])
            if request in running:
                free -= blocks(cached[request["id"]] + 1) - blocks(cached[request["id"]])
                cached[request["id"]] += 1
                decoding.append(request)
        # Admission: the prefill runs the prompt and every token generated before a preemption.
        prefilling = []
        budget = max_step_tokens - len(decoding)
        for request in list(waiting):
            if len(running) >= max_batch:
                break
            tokens = request["prompt"] + generated[request["id"]]
            if blocks(tokens) > free or tokens > budget:
                continue
            waiting.remove(request)
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
