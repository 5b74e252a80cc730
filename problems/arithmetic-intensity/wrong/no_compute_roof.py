# expect: wrong_answer
# why: reports intensity * bandwidth as the attainable FLOP/s without capping it at the peak:
#      a compute-bound 4096^3 matmul would run at 4.6 PFLOP/s on an H100
def matmul_roofline(m, n, k, dtype_bytes, peak_flops, bandwidth):
    flops = 2 * m * n * k
    traffic = dtype_bytes * (m * k + k * n + m * n)
    intensity = flops / traffic if flops else 0.0
    return (intensity, intensity * bandwidth, "memory" if intensity * bandwidth < peak_flops else "compute")
