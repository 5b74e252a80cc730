def matmul_roofline(m: int, n: int, k: int, dtype_bytes: int,
                    peak_flops: float, bandwidth: float) -> tuple:
    # C[m, n] = A[m, k] @ B[k, n]: m*n*k multiply-adds, 2 FLOPs each.
    flops = 2 * m * n * k
    # Ideal traffic: read A and B once, write C once.
    traffic = dtype_bytes * (m * k + k * n + m * n)
    intensity = flops / traffic if flops else 0.0
    # Roofline: the lower of the compute roof and the bandwidth slope.
    attainable = min(peak_flops, intensity * bandwidth)
    bound = "memory" if intensity * bandwidth < peak_flops else "compute"
    return (float(intensity), float(attainable), bound)
