"""A second reference: the schedules run, not summarised. Every device executes its own list of
forward and backward steps, in the order the schedule gives (GPipe, PipeDream-Flush's 1F1B, Megatron's
interleaved 1F1B), each step starting once the device is free and the step it depends on (the same
micro-batch's previous stage forward, or next stage backward) has finished. The step ends when the
last device does; the bubble is what remains of it after a device's own work."""


def _orders(p, m, schedule, v):
    """Per device, its steps in order: (kind, micro-batch, virtual stage)."""
    orders = []
    for d in range(p):
        if schedule == "gpipe":
            steps = [("F", i, 0) for i in range(m)] + [("B", i, 0) for i in range(m)]
        elif schedule == "1f1b":
            warmup = min(p - d - 1, m)
            forwards, backwards = [("F", i, 0) for i in range(m)], [("B", i, 0) for i in range(m)]
            steps = forwards[:warmup]
            for i in range(m - warmup):
                steps += [forwards[warmup + i], backwards[i]]
            steps += backwards[m - warmup:]
        else:  # Megatron's interleaved schedule: groups of p micro-batches go through each chunk in turn
            total = m * v

            def micro_batch(k):
                return (k // (p * v)) * p + k % p

            forwards = [("F", micro_batch(k), (k // p) % v) for k in range(total)]
            backwards = [("B", micro_batch(k), v - 1 - (k // p) % v) for k in range(total)]
            warmup = min((p - d - 1) * 2 + (v - 1) * p, total)
            steps = forwards[:warmup]
            for i in range(total - warmup):
                steps += [forwards[warmup + i], backwards[i]]
            steps += backwards[total - warmup:]
        # chunk c of device d is virtual stage c * p + d
        orders.append([(kind, i, (0 if schedule != "interleaved" else c) * p + d) for kind, i, c in steps])
    return orders


def pipeline_bubble(p, m, t_f, t_b, schedule, v=1):
    if schedule not in ("gpipe", "1f1b", "interleaved"):
        raise ValueError(f"unknown schedule {schedule!r}")
    chunks = v if schedule == "interleaved" else 1
    stages = chunks * p
    duration = {"F": t_f / chunks, "B": t_b / chunks}
    orders = _orders(p, m, schedule, chunks)
    finished = {}  # (kind, micro-batch, virtual stage) -> time
    free = [0.0] * p
    position = [0] * p
    while any(position[d] < len(orders[d]) for d in range(p)):
        progressed = False
        for d in range(p):
            while position[d] < len(orders[d]):
                kind, i, stage = orders[d][position[d]]
                if kind == "F":
                    needs = ("F", i, stage - 1) if stage > 0 else None
                else:
                    needs = ("B", i, stage + 1) if stage < stages - 1 else ("F", i, stage)
                if needs is not None and needs not in finished:
                    break
                start = max(free[d], finished[needs] if needs else 0.0)
                free[d] = finished[(kind, i, stage)] = start + duration[kind]
                position[d] += 1
                progressed = True
        if not progressed:
            raise RuntimeError("the schedule deadlocks")
    total = max(free)
    ideal = m * (t_f + t_b)
    bubble = total - ideal
    return {"total_time": total, "bubble_time": bubble, "bubble_fraction": bubble / total,
            "bubble_overhead": bubble / ideal}
