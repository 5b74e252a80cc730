# expect: wrong_answer
# why: starts each all-reduce in the order the buckets become ready; DDP's reducer launches them in
#      bucket order (a bucket that is ready early still waits for the buckets before it), so that
#      every rank issues the same collectives in the same order
def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 1024 * 1024, first_bucket_bytes=1024 * 1024):
    buckets = []
    cur = []
    cur_bytes = 0
    limit = first_bucket_bytes
    for i in range(len(param_bytes)):
        cur.append(i)
        cur_bytes += param_bytes[i]
        if cur_bytes >= limit:
            buckets.append(cur)
            cur, cur_bytes, limit = [], 0, bucket_cap_bytes
    if cur:
        buckets.append(cur)
    buckets = buckets[::-1]
    bytes_per_ms = link_gb_s * 1e9 / 1e3
    ready, start, end = [], [], []
    free = 0.0
    order = sorted(range(len(buckets)), key=lambda k: max(grad_ready_ms[i] for i in buckets[k]))
    timing = {}
    for k in order:
        b = buckets[k]
        r = max(grad_ready_ms[i] for i in b)
        s = max(r, free)
        size = sum(param_bytes[i] for i in b)
        sent = 2 * (world_size - 1) * size / world_size
        free = s + latency_us / 1000 + sent / bytes_per_ms
        timing[k] = (r, s, free)
    for k in range(len(buckets)):
        r, s, e = timing[k]
        ready.append(r); start.append(s); end.append(e)
    last = max(grad_ready_ms) if grad_ready_ms else 0.0
    return {"buckets": buckets, "ready_ms": ready, "start_ms": start, "end_ms": end, "exposed_ms": free - last}
