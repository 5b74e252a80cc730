def ddp_bucket_schedule(param_bytes: list, grad_ready_ms: list, world_size: int, link_gb_s: float,
                        latency_us: float, bucket_cap_bytes: int = 25 * 2**20, first_bucket_bytes: int = 2**20) -> dict:
    """DDP's gradient buckets and when each one's all-reduce runs.

    param_bytes[i]: the gradient bytes of parameter i, in registration order (model.parameters())
    grad_ready_ms[i]: when the backward pass has produced that gradient (ms after it started)
    Buckets: assigned walking the parameters in registration order, a bucket closing once it
    reaches its cap (first_bucket_bytes for the first bucket, bucket_cap_bytes after); then reduced
    in reverse order of assignment. A bucket is ready when all its gradients are; its all-reduce is
    a ring all-reduce over world_size ranks (links of link_gb_s GB/s, 1 GB = 1e9 bytes, plus
    latency_us per collective), issued in bucket order on one communication stream.

    Returns {"buckets": [[param indices, ascending], ...] in reduction order, "ready_ms": [...],
             "start_ms": [...], "end_ms": [...], "exposed_ms": float}: per bucket when it is ready,
    when its all-reduce starts and ends, and how long the last one ends after the backward pass.
    """
    raise NotImplementedError
