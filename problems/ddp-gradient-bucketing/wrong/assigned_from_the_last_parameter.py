# expect: wrong_answer
# why: fills the buckets walking from the last parameter to the first, so the small first bucket
#      holds the last layers; DDP assigns in registration order (the small bucket holds the first
#      parameters, reduced last) and then reverses the list of buckets
def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 1024 * 1024, first_bucket_bytes=1024 * 1024):
    buckets = []
    cur = []
    cur_bytes = 0
    limit = first_bucket_bytes
    for i in reversed(range(len(param_bytes))):
        cur.append(i)
        cur_bytes += param_bytes[i]
        if cur_bytes >= limit:
            buckets.append(cur)
            cur, cur_bytes, limit = [], 0, bucket_cap_bytes
    if cur:
        buckets.append(cur)
    buckets = [sorted(b) for b in buckets]
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
