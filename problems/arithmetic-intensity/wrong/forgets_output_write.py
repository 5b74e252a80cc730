# expect: wrong_answer
# why: counts only the bytes read (A and B) and forgets writing C; harmless for a square matmul
#      at large K, badly wrong for K = 64 where the M x N output is most of the traffic
def matmul_roofline(m, n, k, dtype_bytes, peak_flops, bandwidth):
    flops = 2 * m * n * k
    traffic = dtype_bytes * (m * k + k * n)
    intensity = flops / traffic if flops else 0.0
    attainable = min(peak_flops, intensity * bandwidth)
    return (intensity, attainable, "memory" if intensity * bandwidth < peak_flops else "compute")
