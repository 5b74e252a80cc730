"""A second reference: the matmul run on the meta device (shapes and dtypes, no compute), its FLOPs
tallied per output element (2 per multiply-add of its dot product) and its traffic as the bytes of
the tensors read and written once, sized by torch's own dtypes; then the roofline decides."""
import torch

DTYPES = {1: torch.float8_e4m3fn, 2: torch.bfloat16, 4: torch.float32}


def matmul_roofline(m, n, k, dtype_bytes, peak_flops, bandwidth):
    dtype = DTYPES[dtype_bytes]
    a = torch.empty(m, k, dtype=dtype, device="meta")
    b = torch.empty(k, n, dtype=dtype, device="meta")
    c = torch.empty(m, n, dtype=dtype, device="meta")  # what a @ b writes
    flops = c.numel() * 2 * a.shape[1]  # each output element: a dot product of k terms
    traffic = sum(t.numel() * t.element_size() for t in (a, b, c))  # read A and B once, write C once
    intensity = flops / traffic if flops else 0.0
    roof = min(peak_flops, intensity * bandwidth)
    return (float(intensity), float(roof), "compute" if intensity * bandwidth >= peak_flops else "memory")
