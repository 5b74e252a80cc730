import random

# (peak FLOP/s, bandwidth bytes/s) of real devices, beside random ones.
DEVICES = [(989e12, 3.35e12), (1979e12, 3.35e12), (312e12, 2.039e12), (156e12, 2.039e12), (125e12, 0.9e12)]


def _dim(rng):
    """0 now and then, else log-uniform from 1 to 10**6."""
    return 0 if rng.random() < 0.05 else min(10 ** 6, int(10 ** rng.uniform(0, 6)))


def fresh(seed):
    """A matmul of random dimensions (0 to 10**6 each, odd ones included) and element size (1, 2 or 4
    bytes), on a real or a random device (peak 1e11 to 5e15 FLOP/s, bandwidth 1e10 to 2e13 bytes/s), not
    within a millionth of its ridge point (where the order of the arithmetic would decide the bound)."""
    rng = random.Random(seed)
    while True:
        m, n, k = _dim(rng), _dim(rng), _dim(rng)
        dtype_bytes = rng.choice([1, 2, 4])
        peak, bandwidth = rng.choice(DEVICES) if rng.random() < 0.4 else \
            (10.0 ** rng.uniform(11, 15.7), 10.0 ** rng.uniform(10, 13.3))
        flops, traffic = 2 * m * n * k, dtype_bytes * (m * k + k * n + m * n)
        if flops == 0 or abs(flops / traffic * bandwidth - peak) > 1e-6 * peak:
            return {"args": [m, n, k, dtype_bytes, peak, bandwidth]}
