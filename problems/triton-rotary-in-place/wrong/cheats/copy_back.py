# expect: forbidden
# why: out of place: a kernel writes the rotated values into new tensors, which are then copied back into
#      q and k. Right values, but every byte of q and k moves twice; torch.Tensor.copy_ is forbidden in this
#      problem (so is slice assignment, q[...] = out): the kernel is to write q and k itself
import torch
import triton
import triton.language as tl


@triton.jit
def _rotary_out_kernel(x_ptr, out_ptr, positions_ptr, cache_ptr, stride_t, stride_h, cache_stride, heads, half,
                       BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    position = tl.load(positions_ptr + token)
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_HALF)[None, :]
    mask = (h < heads) & (d < half)
    cos = tl.load(cache_ptr + position * cache_stride + d, mask=d < half, other=0.0)
    sin = tl.load(cache_ptr + position * cache_stride + half + d, mask=d < half, other=0.0)
    src = x_ptr + token * stride_t + h * stride_h + d
    dst = out_ptr + token * heads * 2 * half + h * 2 * half + d
    x1 = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + half, mask=mask, other=0.0).to(tl.float32)
    tl.store(dst, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + half, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)


def rotary_embedding_(q, k, positions, cos_sin_cache):
    half = q.shape[2] // 2
    for x in (q, k):
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _rotary_out_kernel[(x.shape[0],)](x, out, positions, cos_sin_cache, x.stride(0), x.stride(1),
                                          cos_sin_cache.stride(0), x.shape[1], half,
                                          BLOCK_H=triton.next_power_of_2(x.shape[1]),
                                          BLOCK_HALF=triton.next_power_of_2(half))
        x.copy_(out)
    return q, k
