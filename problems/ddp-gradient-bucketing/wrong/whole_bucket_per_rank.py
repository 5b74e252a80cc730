# expect: wrong_answer
# why: counts each all-reduce as sending the whole bucket once; a ring all-reduce (a reduce-scatter
#      and an all-gather) sends 2 (W - 1) / W of it from every rank
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
    for b in buckets:
        r = max(grad_ready_ms[i] for i in b)
        s = max(r, free)
        size = sum(param_bytes[i] for i in b)
        sent = size
        free = s + latency_us / 1000 + sent / bytes_per_ms
        ready.append(r); start.append(s); end.append(free)
    last = max(grad_ready_ms) if grad_ready_ms else 0.0
    return {"buckets": buckets, "ready_ms": ready, "start_ms": start, "end_ms": end, "exposed_ms": free - last}
