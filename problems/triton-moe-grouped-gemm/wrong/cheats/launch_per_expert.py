# expect: forbidden
# why: a Triton GEMM of its own, but launched once per expert after reading the offsets back to the host:
#      E launches and a synchronisation where the statement asks for one launch over every expert, which is
#      what a grouped GEMM is ([grading] launches_per_call = 1)
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32


@triton.jit
def _gemm(x_ptr, w_ptr, out_ptr, M, N, K, stride_xm, stride_wn, stride_om, BLOCK_M: tl.constexpr,
          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(x_ptr + rm[:, None] * stride_xm + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K),
                    other=0.0)
        b = tl.load(w_ptr + rn[None, :] * stride_wn + ks[:, None], mask=(ks[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def grouped_gemm(x, weights, expert_offsets):
    T, K = x.shape
    E, N, _ = weights.shape
    out = torch.empty(T, N, dtype=torch.float32, device=x.device)
    bounds = expert_offsets.tolist()
    for e in range(E):
        rows = bounds[e + 1] - bounds[e]
        if rows:
            start = bounds[e]
            _gemm[(triton.cdiv(rows, BLOCK_M), triton.cdiv(N, BLOCK_N))](
                x[start:], weights[e], out[start:], rows, N, K, x.stride(0), weights.stride(1), out.stride(0),
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
