"""Workloads for continuous-batching: hand-made ones for each rule (the budget of blocks, of tokens and
of requests, first come first served, preemption of the newest, recomputation, arrivals while idle)
and seeded random ones. Every request fits alone: ceil((prompt + output) / block_size) <= num_blocks
and prompt + output <= max_step_tokens."""
import random

import torch


def _requests(*specs):
    return [{"id": name, "arrival": arrival, "prompt": prompt, "output": output}
            for name, arrival, prompt, output in specs]


def _random(seed, count, num_blocks, block_size, max_batch, max_step_tokens, horizon):
    g = torch.Generator().manual_seed(seed)
    specs = []
    for index in range(count):
        arrival = int(torch.randint(0, horizon, (), generator=g))
        prompt = int(torch.randint(1, 6 * block_size, (), generator=g))
        output = int(torch.randint(1, 4 * block_size, (), generator=g))
        prompt = min(prompt, num_blocks * block_size - output, max_step_tokens - output)
        specs.append((f"r{index}", arrival, max(prompt, 1), output))
    return (_requests(*specs), num_blocks, block_size, max_batch, max_step_tokens)


EXAMPLE = _requests(("a", 0, 6, 4), ("b", 0, 5, 6), ("c", 1, 3, 2), ("d", 2, 8, 3))


def cases():
    return [
        {"name": "the statement's example: 4 blocks of 4, b preempted and recomputed",
         "args": (EXAMPLE, 4, 4, 4, 32)},
        {"name": "no memory pressure: max_batch 2 admits as others finish",
         "args": (_requests(("a", 0, 3, 5), ("b", 0, 3, 2), ("c", 0, 3, 3), ("d", 1, 2, 4), ("e", 1, 2, 1)),
                  64, 16, 2, 64)},
        {"name": "the token budget: one long prompt per step beside the decodes",
         "args": (_requests(("a", 0, 20, 3), ("b", 0, 20, 3), ("c", 0, 20, 3), ("d", 0, 4, 3)), 32, 8, 8, 24)},
        {"name": "first come first served: a large request at the head blocks smaller ones behind it",
         "args": (_requests(("big", 0, 10, 6), ("huge", 0, 20, 4), ("s1", 0, 2, 2), ("s2", 1, 2, 2)),
                  8, 4, 4, 64)},
        {"name": "preemptions cascade: the newest request goes first, back to the front of the queue",
         "args": (_requests(("a", 0, 5, 7), ("b", 0, 5, 7), ("c", 0, 5, 7), ("d", 0, 5, 7)), 6, 4, 4, 16)},
        {"name": "a request preempts itself when it is the newest",
         "args": (_requests(("old", 0, 7, 5), ("new", 0, 1, 7)), 3, 4, 2, 16)},
        {"name": "arrivals while idle: steps with nothing to run are logged",
         "args": (_requests(("a", 2, 3, 2), ("b", 6, 1, 1), ("c", 6, 2, 3)), 4, 2, 3, 8)},
        {"name": "one-token outputs finish in their prefill step",
         "args": (_requests(("a", 0, 5, 1), ("b", 0, 5, 1), ("c", 1, 9, 1)), 4, 4, 8, 12)},
        {"name": "block_size 1",
         "args": (_requests(("a", 0, 2, 3), ("b", 0, 2, 3), ("c", 0, 1, 4)), 7, 1, 3, 10)},
        {"name": "random: 30 requests over 20 steps, 24 blocks of 8, 8 at a time, 96 tokens a step",
         "args": _random(1, 30, 24, 8, 8, 96, 20)},
        {"name": "random: 40 requests, 12 blocks of 4, 16 at a time, 40 tokens a step (heavy preemption)",
         "args": _random(2, 40, 12, 4, 16, 40, 10)},
        {"name": "random: 25 requests, 64 blocks of 16, 4 at a time, 512 tokens a step",
         "args": _random(3, 25, 64, 16, 4, 512, 30)},
    ]


def fresh(seed):
    """A random workload (1 to 40 requests of up to 96 tokens, 150 output tokens in all, arriving over 0 to
    30 steps in no particular order, each fitting alone) on a random server (1 to 64 blocks of 1 to 16
    positions, a batch of 1 to 16, a token budget from the largest request's size to 512): from no memory
    pressure to heavy preemption."""
    rng = random.Random(seed)
    block_size = rng.choice([1, rng.randint(1, 4), rng.randint(1, 16)])
    num_blocks = rng.choice([rng.randint(1, 8), rng.randint(1, 64)])
    max_step_tokens = rng.choice([rng.randint(2, 32), rng.randint(2, 512)])
    capacity = min(max_step_tokens, num_blocks * block_size)  # the most a request may need
    if capacity < 2:  # one block of one position: room for a one-token prompt and one output token
        num_blocks, capacity = 2, 2
    max_batch = rng.randint(1, min(16, max_step_tokens))
    horizon = rng.choice([1, rng.randint(1, 10), rng.randint(1, 30)])
    specs, outputs = [], 0
    for index in range(rng.choice([1, rng.randint(1, 8), rng.randint(1, 40)])):
        size = rng.randint(2, min(96, rng.choice([capacity, min(capacity, 4 * block_size + 1)])))
        prompt = rng.randint(1, size - 1)
        outputs += size - prompt
        if specs and outputs > 150:  # at most horizon + 150 steps: each step with work generates a token
            break
        specs.append((f"{rng.choice('abcdefghrqxz')}{index}", rng.randrange(horizon), prompt, size - prompt))
    return {"args": (_requests(*specs), num_blocks, block_size, max_batch, max_step_tokens)}
