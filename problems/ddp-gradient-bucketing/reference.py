def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    # Assignment, as DDP's constructor does it: parameters in registration order, the first bucket
    # capped at first_bucket_bytes and the others at bucket_cap_bytes; a bucket closes as soon as it
    # reaches its cap.
    buckets, current, size = [], [], 0
    for index, nbytes in enumerate(param_bytes):
        current.append(index)
        size += nbytes
        if size >= (first_bucket_bytes if not buckets else bucket_cap_bytes):
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    # Reduced in reverse: the backward pass produces the last parameters' gradients first.
    buckets.reverse()
    ready, start, end = [], [], []
    done = 0.0  # when the communication stream is free
    for bucket in buckets:
        nbytes = sum(param_bytes[i] for i in bucket)
        # A ring all-reduce: every rank sends (and receives) 2 (W - 1) / W of the bucket.
        duration = latency_us / 1e3 + 2 * (world_size - 1) / world_size * nbytes / (link_gb_s * 1e6)
        ready.append(max(grad_ready_ms[i] for i in bucket))
        start.append(max(ready[-1], done))  # in bucket order, one at a time
        done = start[-1] + duration
        end.append(done)
    backward_end = max(grad_ready_ms, default=0.0)
    return {"buckets": buckets, "ready_ms": ready, "start_ms": start, "end_ms": end,
            "exposed_ms": done - backward_end}
