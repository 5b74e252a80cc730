# expect: wrong_answer
# why: closes a bucket only when it would exceed its cap (moving the parameter that does not fit
#      into the next bucket); DDP adds the parameter first and closes the bucket once it has reached
#      the cap, so a bucket may overshoot by one parameter
def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 1024 * 1024, first_bucket_bytes=1024 * 1024):
    buckets = []
    cur = []
    cur_bytes = 0
    limit = first_bucket_bytes
    for i in range(len(param_bytes)):
        if cur and cur_bytes + param_bytes[i] > limit:
            buckets.append(cur)
            cur, cur_bytes, limit = [], 0, bucket_cap_bytes
        cur.append(i)
        cur_bytes += param_bytes[i]
    if cur:
        buckets.append(cur)
    buckets = buckets[::-1]
    bytes_per_ms = link_gb_s * 1e9 / 1e3
    ready, start, end = [], [], []
    free = 0.0
    for b in buckets:
        r = max(grad_ready_ms[i] for i in b)
        s = max(r, free)
        size = sum(param_bytes[i] for i in b)
        sent = 2 * (world_size - 1) * size / world_size
        free = s + latency_us / 1000 + sent / bytes_per_ms
        ready.append(r); start.append(s); end.append(free)
    last = max(grad_ready_ms) if grad_ready_ms else 0.0
    return {"buckets": buckets, "ready_ms": ready, "start_ms": start, "end_ms": end, "exposed_ms": free - last}
