"""An MoE grouped GEMM: our solution to `triton-moe-grouped-gemm`.

The tokens arrive sorted by expert; expert e owns rows expert_offsets[e] to expert_offsets[e + 1] of x and
multiplies them by its own weight. One launch covers every expert: the row tiles of all the experts are
numbered in expert order (expert e owns ceil(count_e / BLOCK_M) of them, an expert with no tokens none),
and a small schedule says which expert and which first row each tile has. The schedule is a handful of
torch operations on the offsets, on the device: the host never reads the offsets back (no synchronisation,
no launch per expert). Within a tile it is the tiled matmul of `tiled-matmul`, its rows masked at the
expert's end so that a tile never reaches into the next expert's tokens.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 64


@triton.jit
def _grouped_gemm_kernel(x_ptr, w_ptr, out_ptr, tile_expert_ptr, tile_row_ptr, offsets_ptr, N, K, stride_xm,
                         stride_xk, stride_we, stride_wn, stride_wk, stride_om, stride_on, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tile = tl.program_id(0)
    expert = tl.load(tile_expert_ptr + tile)
    if expert < 0:  # the grid is an upper bound on the row tiles: the rest leave
        return
    rm = tl.load(tile_row_ptr + tile) + tl.arange(0, BLOCK_M)
    rows = rm < tl.load(offsets_ptr + expert + 1)  # the expert's last tile stops at its own tokens
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    w = w_ptr + expert * stride_we
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        # Masked lanes read 0: they add nothing to the dot product (the tail of K, the edges of the tile).
        a = tl.load(x_ptr + rm[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=rows[:, None] & (ks[None, :] < K), other=0.0)
        b = tl.load(w + ks[:, None] * stride_wk + rn[None, :].to(tl.int64) * stride_wn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    out = out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on
    tl.store(out, acc, mask=rows[:, None] & (rn[None, :] < N))


def grouped_gemm(x: torch.Tensor, weights: torch.Tensor, expert_offsets: torch.Tensor) -> torch.Tensor:
    """Row t of x, which belongs to expert e, times weights[e].T: [T, K] fp16 and [E, N, K] fp16 -> [T, N] fp32."""
    (T, K), (E, N, K2) = x.shape, weights.shape
    if K != K2 or expert_offsets.shape != (E + 1,):
        raise ValueError(f"x [{T}, {K}], weights [{E}, {N}, {K2}] and expert_offsets {list(expert_offsets.shape)} "
                         f"do not fit: want [T, K], [E, N, K] and [E + 1]")
    out = torch.empty(T, N, dtype=torch.float32, device=x.device)
    # The schedule: tile i belongs to the expert whose tiles run past i, and starts BLOCK_M rows further into
    # that expert's tokens for each of its tiles before i. At most one partial tile per expert: the grid.
    offsets = expert_offsets.long()
    tiles = (offsets[1:] - offsets[:-1] + BLOCK_M - 1) // BLOCK_M
    tiles_through = torch.cumsum(tiles, 0)
    grid_m = T // BLOCK_M + E
    tile = torch.arange(grid_m, device=x.device)
    expert = torch.searchsorted(tiles_through, tile, right=True)
    live = expert < E
    expert = expert.clamp(max=E - 1)
    tile_row = offsets[expert] + (tile - tiles_through[expert] + tiles[expert]) * BLOCK_M
    _grouped_gemm_kernel[(grid_m, triton.cdiv(N, BLOCK_N))](
        x, weights, out, torch.where(live, expert, -1), tile_row, offsets, N, K, x.stride(0), x.stride(1),
        weights.stride(0), weights.stride(1), weights.stride(2), out.stride(0), out.stride(1), BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4, num_stages=3)
    return out
