def matmul_roofline(m: int, n: int, k: int, dtype_bytes: int,
                    peak_flops: float, bandwidth: float) -> tuple:
    """Roofline analysis of C[m, n] = A[m, k] @ B[k, n] with dtype_bytes-byte elements.

    FLOPs = 2*m*n*k; bytes = dtype_bytes * (m*k + k*n + m*n) (read A and B once, write C once).
    peak_flops in FLOP/s, bandwidth in bytes/s.

    Return (intensity: float FLOPs per byte, 0.0 when there are no FLOPs,
            attainable: float FLOP/s = min(peak_flops, intensity * bandwidth),
            bound: "memory" if intensity * bandwidth < peak_flops else "compute").
    """
    raise NotImplementedError
