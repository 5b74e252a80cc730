# expect: wrong_answer
# why: tiles the T rows as one GEMM and gives each row tile the expert of its first row; a tile that straddles
#      a boundary multiplies the next expert's tokens by the wrong weight (rows 1 to 63 of the tokens split
#      0, 1, 70, 5, 0 go through expert 1 instead of expert 2). Each expert must start a tile of its own.
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 64


@triton.jit
def _grouped_gemm_kernel(x_ptr, w_ptr, out_ptr, tile_expert_ptr, T, N, K, stride_xm, stride_xk, stride_we,
                         stride_wn, stride_wk, stride_om, stride_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    tile = tl.program_id(0)
    expert = tl.load(tile_expert_ptr + tile)
    rm = tile * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = rm < T
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    w = w_ptr + expert * stride_we
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(x_ptr + rm[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=rows[:, None] & (ks[None, :] < K), other=0.0)
        b = tl.load(w + ks[:, None] * stride_wk + rn[None, :].to(tl.int64) * stride_wn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    out = out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on
    tl.store(out, acc, mask=rows[:, None] & (rn[None, :] < N))


def grouped_gemm(x, weights, expert_offsets):
    (T, K), (E, N, _) = x.shape, weights.shape
    out = torch.empty(T, N, dtype=torch.float32, device=x.device)
    first_rows = torch.arange(0, T, BLOCK_M, device=x.device)
    # The expert of each tile's first row: the experts whose rows end at or before it come first.
    tile_expert = torch.searchsorted(expert_offsets[1:].long(), first_rows, right=True)
    _grouped_gemm_kernel[(len(first_rows), triton.cdiv(N, BLOCK_N))](
        x, weights, out, tile_expert, T, N, K, x.stride(0), x.stride(1), weights.stride(0), weights.stride(1),
        weights.stride(2), out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
