# expect: forbidden
# why: a kernel with one program per row of the output and per block of its columns, multiplying
#      elementwise and reducing with tl.sum: no tiles of x, no tile of weight reused across rows (every
#      row reads the whole weight again), no tensor cores. The reduction over K is tl.dot's in this kata:
#      tl.sum and tl.reduce are forbidden
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
        acc += tl.sum(w.to(tl.float32) * a[None, :], 1)
    tl.store(out_ptr + m * N + rn, acc, mask=rn < N)


def linear(x, weight):
    (M, K), N = x.shape, weight.shape[0]
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    _row_kernel[(M, triton.cdiv(N, 32))](x.contiguous(), weight.contiguous(), out, N, K, BLOCK_N=32, BLOCK_K=32)
    return out
