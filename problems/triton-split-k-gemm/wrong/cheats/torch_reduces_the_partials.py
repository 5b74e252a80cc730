# expect: forbidden
# why: a split-K first pass in Triton, but the reduction left to torch (partials.sum(0)): the second pass
#      is part of the kata, and torch.Tensor.sum is forbidden in this problem
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K, SPLITS = 64, 64, 64, 4


@triton.jit
def _partial_kernel(a_ptr, b_ptr, partial_ptr, M, N, K, k_per_split, stride_am, stride_ak, stride_bk, stride_bn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n, split = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, k_per_split, BLOCK_K):
        ks = split * k_per_split + k + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(partial_ptr + split * M * N + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def split_k_linear(x, weight):
    (M, K), N = x.shape, weight.shape[0]
    k_per_split = triton.cdiv(triton.cdiv(K, BLOCK_K), SPLITS) * BLOCK_K
    splits = triton.cdiv(K, k_per_split)
    b = weight.t()
    partials = torch.empty(splits, M, N, dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), splits)
    _partial_kernel[grid](x, b, partials, M, N, K, k_per_split, x.stride(0), x.stride(1), b.stride(0), b.stride(1),
                          BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return partials.sum(0)
