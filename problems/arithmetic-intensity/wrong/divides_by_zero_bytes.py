# expect: runtime_error
# why: divides FLOPs by bytes unguarded: an empty batch (M = 0) is fine, 0 / bytes = 0, but with
#      every dimension 0 there are no bytes either and 0 / 0 raises ZeroDivisionError
def matmul_roofline(m, n, k, dtype_bytes, peak_flops, bandwidth):
    flops = 2 * m * n * k
    traffic = dtype_bytes * (m * k + k * n + m * n)
    intensity = flops / traffic
    attainable = min(peak_flops, intensity * bandwidth)
    return (intensity, attainable, "memory" if intensity * bandwidth < peak_flops else "compute")
