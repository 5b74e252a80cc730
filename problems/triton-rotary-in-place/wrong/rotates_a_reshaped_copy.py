# expect: forbidden
# why: flattens q and k with reshape to make them contiguous first; q and k are views of a wider qkv
#      tensor, so reshape returns a copy, the kernel rotates the copy, and the caller's q and k never change
#      (the returned tensors are right: only the graded arguments would show it). The copy is eager work
#      outside the launch, refused first by the kata's eager rule
import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(x_ptr, cos, sin, stride_h, heads, half, BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_HALF)[None, :]
    mask = (h < heads) & (d < half)
    first = x_ptr + h * stride_h + d
    # Widened before any arithmetic (bf16 arithmetic is wrong in the Triton interpreter), rounded once on the store.
    x1 = tl.load(first, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(first + half, mask=mask, other=0.0).to(tl.float32)
    tl.store(first, (x1 * cos - x2 * sin).to(x_ptr.dtype.element_ty), mask=mask)
    tl.store(first + half, (x2 * cos + x1 * sin).to(x_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rotary_kernel(q_ptr, k_ptr, positions_ptr, cache_ptr, q_stride_t, q_stride_h, k_stride_t, k_stride_h,
                   cache_stride, q_heads, k_heads, half, BLOCK_HQ: tl.constexpr, BLOCK_HK: tl.constexpr,
                   BLOCK_HALF: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    position = tl.load(positions_ptr + token)
    d = tl.arange(0, BLOCK_HALF)
    row = cache_ptr + position * cache_stride
    cos = tl.load(row + d, mask=d < half, other=0.0)[None, :]
    sin = tl.load(row + half + d, mask=d < half, other=0.0)[None, :]
    _rotate_heads(q_ptr + token * q_stride_t, cos, sin, q_stride_h, q_heads, half, BLOCK_HQ, BLOCK_HALF)
    _rotate_heads(k_ptr + token * k_stride_t, cos, sin, k_stride_h, k_heads, half, BLOCK_HK, BLOCK_HALF)


def rotary_embedding_(q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor,
                      cos_sin_cache: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate q [T, Hq, D] and k [T, Hk, D] in place by the angles of their tokens' positions (half-split);
    return them."""
    tokens, q_heads, head_dim = q.shape
    k_heads = k.shape[1]
    if q.stride(2) != 1 or k.stride(2) != 1 or cos_sin_cache.stride(1) != 1:
        raise ValueError("the last dimension of q, k and cos_sin_cache must be contiguous")
    half = head_dim // 2
    q, k = q.reshape(tokens, q_heads, head_dim).contiguous(), k.reshape(tokens, k_heads, head_dim).contiguous()
    _rotary_kernel[(tokens,)](q, k, positions, cos_sin_cache, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                              cos_sin_cache.stride(0), q_heads, k_heads, half,
                              BLOCK_HQ=triton.next_power_of_2(q_heads), BLOCK_HK=triton.next_power_of_2(k_heads),
                              BLOCK_HALF=triton.next_power_of_2(half))
    return q, k
