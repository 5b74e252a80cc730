# expect: wrong_answer
# why: skips bucketing: all-reduces every gradient on its own as soon as it is ready. The overlap is
#      there, but every collective pays the fixed latency, and a model has hundreds of parameters:
#      DDP's buckets exist to pay it once per 25 MiB
def ddp_bucket_schedule(param_bytes, grad_ready_ms, world_size, link_gb_s, latency_us,
                        bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    order = list(reversed(range(len(param_bytes))))
    ready, start, end, done = [], [], [], 0.0
    for i in order:
        ready.append(grad_ready_ms[i])
        start.append(max(grad_ready_ms[i], done))
        done = start[-1] + latency_us / 1e3 + 2 * (world_size - 1) / world_size * param_bytes[i] / (link_gb_s * 1e6)
        end.append(done)
    return {"buckets": [[i] for i in order], "ready_ms": ready, "start_ms": start, "end_ms": end,
            "exposed_ms": done - max(grad_ready_ms, default=0.0)}
