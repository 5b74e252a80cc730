# expect: wrong_answer
# why: calls a kernel exactly at the ridge point memory-bound (<= instead of <); there both
#      roofs give the peak, and the statement counts it as compute-bound
def matmul_roofline(m, n, k, dtype_bytes, peak_flops, bandwidth):
    flops = 2 * m * n * k
    traffic = dtype_bytes * (m * k + k * n + m * n)
    intensity = flops / traffic if flops else 0.0
    attainable = min(peak_flops, intensity * bandwidth)
    return (intensity, attainable, "memory" if intensity * bandwidth <= peak_flops else "compute")
