import random

MIB = 2**20


def _backward(param_bytes, ms_per_mib, start_ms=0.0):
    """Gradient-ready times of a backward pass that visits the parameters from the last to the first,
    spending time in proportion to each one's size."""
    ready, clock = [0.0] * len(param_bytes), start_ms
    for index in reversed(range(len(param_bytes))):
        clock += param_bytes[index] / MIB * ms_per_mib
        ready[index] = clock
    return ready


def _case(name, param_bytes, ready, world_size, link_gb_s, latency_us, **caps):
    return {"name": name, "args": (param_bytes, ready, world_size, link_gb_s, latency_us), "kwargs": caps}


def _example():
    sizes = [100, 300, 200, 400, 100, 500]
    ready = [6.0, 5.0, 4.5, 3.0, 2.0, 1.0]
    return _case("example: 6 parameters, caps 600 and 250 bytes, 4 ranks at 0.0001 GB/s", sizes, ready, 4, 0.0001,
                 10.0, bucket_cap_bytes=600, first_bucket_bytes=250)


def _transformer(layers, hidden):
    """Embedding, then per layer: attention in (QKV) and out, MLP up and down, two norms; a final norm.
    fp32 gradients, 4 bytes each."""
    sizes = [50_000 * hidden * 4]
    for _ in range(layers):
        sizes += [hidden * 4, 3 * hidden * hidden * 4, hidden * hidden * 4, hidden * 4, 4 * hidden * hidden * 4,
                  4 * hidden * hidden * 4]
    return sizes + [hidden * 4]


def _exact_boundaries():
    # Six parameters of 256 KiB, then twenty of 5 MiB: the first bucket closes at exactly 1 MiB (four
    # parameters), the next one at 25.5 MiB, then every five 5 MiB parameters make exactly 25 MiB.
    sizes = [MIB // 4] * 6 + [5 * MIB] * 20
    return _case("default caps: buckets that reach exactly 1 MiB and 25 MiB", sizes, _backward(sizes, 0.5), 8,
                 50.0, 20.0)


def _late_gradient():
    # Parameter 7 (in the second bucket to be reduced) gets its gradient last: e.g. a weight that
    # is used again at the start of the forward pass. Every bucket after it waits, in bucket order.
    sizes = [MIB // 2] * 12
    ready = _backward(sizes, 1.0)
    ready[7] = max(ready) + 2.0
    return _case("one late gradient holds back every bucket reduced after it", sizes, ready, 4, 10.0, 5.0,
                 bucket_cap_bytes=MIB, first_bucket_bytes=MIB // 2)


def cases():
    small = _transformer(4, 256)
    return [
        _example(),
        _exact_boundaries(),
        _case("buckets one byte short of their caps stay open", [100, 149, 50, 599, 1, 300],
              [7.0, 6.0, 5.0, 3.0, 2.5, 1.0], 2, 0.001, 0.0, bucket_cap_bytes=600, first_bucket_bytes=250),
        _case("a transformer of 4 layers, hidden 256: default caps, 8 ranks", small, _backward(small, 0.2), 8, 100.0,
              15.0),
        _case("parameters larger than the cap get buckets of their own", [30 * MIB, 2 * MIB, 40 * MIB, 3 * MIB],
              [9.0, 8.0, 5.0, 1.0], 16, 25.0, 30.0, bucket_cap_bytes=10 * MIB, first_bucket_bytes=4 * MIB),
        _late_gradient(),
        _case("one rank: only the latency", [MIB] * 6, _backward([MIB] * 6, 1.0), 1, 10.0, 50.0,
              bucket_cap_bytes=2 * MIB),
        _case("slow links: the all-reduces queue behind each other (2 ranks, 1 GB/s)", small, _backward(small, 0.05),
              2, 1.0, 10.0, bucket_cap_bytes=4 * MIB),
        _case("latency-bound: 64 small buckets, 100 us each", [4096] * 64, _backward([4096] * 64, 0.1), 32, 200.0,
              100.0, bucket_cap_bytes=4096, first_bucket_bytes=4096),
        _case("no parameters", [], [], 8, 100.0, 10.0),
    ]


def fresh(seed):
    """Random parameter sizes (often multiples of one unit, so buckets meet their caps exactly), caps or the
    defaults, a backward pass with late gradients or none, and random ranks, link and latency."""
    rng = random.Random(seed)
    count = 0 if rng.random() < 0.05 else rng.randint(1, 40)
    defaults = rng.random() < 0.3
    unit = rng.choice([MIB // 16, MIB // 4, MIB]) if defaults else rng.randint(1, 4096)
    if rng.random() < 0.5:  # multiples of one unit: sums that reach a cap exactly
        sizes = [unit * rng.randint(1, 8) for _ in range(count)]
    else:
        sizes = [max(1, int(unit * 2 ** rng.uniform(-3, 4))) for _ in range(count)]
    ready = _backward(sizes, rng.uniform(0.01, 2.0) * (MIB / unit if not defaults else 1.0), rng.uniform(0.0, 5.0))
    for _ in range(rng.choice([0, 0, 1, 3])):  # gradients ready late (a weight used again)
        if count:
            ready[rng.randrange(count)] = max(ready) + rng.uniform(0.0, 3.0)
    if rng.random() < 0.2:  # any order at all
        ready = [rng.uniform(0.0, 20.0) for _ in range(count)]
    caps = {} if defaults else {"bucket_cap_bytes": unit * rng.randint(1, 12),
                                "first_bucket_bytes": unit * rng.randint(1, 6)}
    if not defaults and rng.random() < 0.3:
        caps.pop(rng.choice(sorted(caps)))
    world_size = rng.choice([1, 2, 3, 4, 6, 8, 16, 32, 64, 128])
    link_gb_s = (unit / MIB if not defaults else 1.0) * rng.uniform(0.5, 400.0)
    latency_us = 0.0 if rng.random() < 0.1 else rng.uniform(0.0, 100.0)
    return {"args": (sizes, ready, world_size, link_gb_s, latency_us), "kwargs": caps}
