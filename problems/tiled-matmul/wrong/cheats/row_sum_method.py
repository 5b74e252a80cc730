# expect: forbidden
# why: the same one-row kernel, reducing with the tensor's .sum method instead of tl.sum: the method is
#      forbidden as well, refused at run time inside the kernel (the interpreter on the CPU)
import torch
import triton
import triton.language as tl


@triton.jit
def _row_kernel(x_ptr, w_ptr, out_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    m = tl.program_id(0)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + m * K + ks, mask=ks < K, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + rn[:, None] * K + ks[None, :], mask=(rn[:, None] < N) & (ks[None, :] < K), other=0.0)
        acc += (w.to(tl.float32) * a[None, :]).sum(1)
    tl.store(out_ptr + m * N + rn, acc, mask=rn < N)


def linear(x, weight):
    (M, K), N = x.shape, weight.shape[0]
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    _row_kernel[(M, triton.cdiv(N, 32))](x.contiguous(), weight.contiguous(), out, N, K, BLOCK_N=32, BLOCK_K=32)
    return out
