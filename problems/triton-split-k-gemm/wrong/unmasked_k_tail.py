# expect: runtime_error
# why: masks the loads at the edges of M and N but not at the end of K: the last split's last BLOCK_K
#      step reads past the end of each row of x and of weight, into the next row, and past the end of the
#      last one, which the Triton interpreter refuses, naming the tensor and the index
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 128
REDUCE_BLOCK = 1024


@triton.jit
def _partial_kernel(a_ptr, b_ptr, partial_ptr, M, N, K, k_per_split, stride_am, stride_ak, stride_bk, stride_bn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n, split = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)  # only the last split is cut short by the end of K
    ks = k_start + tl.arange(0, BLOCK_K)
    # Row and column offsets and their masks do not change along K: computed once, the pointers then step.
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + rn[None, :].to(tl.int64) * stride_bn
    m_mask, n_mask = rm[:, None] < M, rn[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # k_per_split is a multiple of BLOCK_K: the splits tile K without overlap, and only the last meets its end.
    for _ in range(k_start, k_end, BLOCK_K):
        a = tl.load(a_ptrs, mask=m_mask, other=0.0)
        b = tl.load(b_ptrs, mask=n_mask, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
        ks += BLOCK_K
    out = partial_ptr + split.to(tl.int64) * M * N + rm[:, None] * N + rn[None, :]
    tl.store(out, acc, mask=m_mask & n_mask)


@triton.jit
def _reduce_kernel(partial_ptr, c_ptr, elements, splits, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < elements
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for split in range(0, splits):
        total += tl.load(partial_ptr + split * elements + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, total, mask=mask)


def _splits(tiles: int, k_blocks: int, device: torch.device) -> int:
    """Enough programs to fill the device about twice over (the interpreter: a few), never more splits than
    BLOCK_K steps of K."""
    programs = 2 * torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 4
    return max(1, min(k_blocks, triton.cdiv(programs, tiles)))


def split_k_linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """x [M, K] @ weight [N, K].T, fp16 inputs, accumulated in fp32, returned as a new [M, N] fp32 tensor."""
    (M, K), (N, K2) = x.shape, weight.shape
    if K != K2:
        raise ValueError(f"x is [{M}, {K}] and weight is [{N}, {K2}]: the inner sizes differ")
    tiles_m, tiles_n, k_blocks = triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), triton.cdiv(K, BLOCK_K)
    splits = _splits(tiles_m * tiles_n, k_blocks, x.device)
    k_per_split = triton.cdiv(k_blocks, splits) * BLOCK_K
    splits = triton.cdiv(K, k_per_split)  # rounding k_per_split up can leave the last splits empty: drop them
    b = weight.t()  # [K, N], a view: the kernel follows its strides
    partials = torch.empty(splits, M, N, dtype=torch.float32, device=x.device)
    _partial_kernel[(tiles_m, tiles_n, splits)](x, b, partials, M, N, K, k_per_split, x.stride(0), x.stride(1),
                                                b.stride(0), b.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                BLOCK_K=BLOCK_K, num_warps=4, num_stages=4)
    c = torch.empty(M, N, dtype=torch.float32, device=x.device)
    _reduce_kernel[(triton.cdiv(M * N, REDUCE_BLOCK),)](partials, c, M * N, splits, BLOCK=REDUCE_BLOCK)
    return c
