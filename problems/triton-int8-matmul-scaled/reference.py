def int8_matmul(a, b, a_scales, b_scales):
    """The integer GEMM of the codes, exact, then the epilogue in float32: (float32(acc) * a_scale) * b_scale."""
    # float64 holds every integer up to 2**53: the int8 products and their sums are exact there, on any device
    # (torch has no int32 GEMM on CUDA). float32(acc) then rounds the exact sum once, as int32 -> float32 does.
    acc = a.double() @ b.double().T
    return acc.float() * a_scales[:, None] * b_scales[None, :]
