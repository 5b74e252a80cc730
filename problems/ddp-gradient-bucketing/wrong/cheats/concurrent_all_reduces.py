# expect: wrong_answer
# why: skips the schedule: starts every bucket's all-reduce the moment its gradients are ready, as if
#      collectives could run side by side. They share one communication stream (and the same links):
#      when the links are slower than the backward pass, later all-reduces wait for earlier ones
def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    buckets, current, size = [], [], 0
    for index, nbytes in enumerate(param_bytes):
        current.append(index)
        size += nbytes
        if size >= (first_bucket_bytes if not buckets else bucket_cap_bytes):
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    buckets.reverse()
    ready = [max(grad_ready_ms[i] for i in b) for b in buckets]
    end = [r + latency_us / 1e3 + 2 * (world_size - 1) / world_size * sum(param_bytes[i] for i in b) / (link_gb_s * 1e6)
           for r, b in zip(ready, buckets)]
    return {"buckets": buckets, "ready_ms": ready, "start_ms": list(ready), "end_ms": end,
            "exposed_ms": max(end, default=0.0) - max(grad_ready_ms, default=0.0)}
