# expect: forbidden
# why: out of place, all in Triton: a first kernel writes the rotated q and k into new tensors, a second kernel
#      copies them back into q and k. Right values, but every byte of q and k is written twice: the traffic rule
#      refuses stores past the bytes of the call's outputs; the kernel is to overwrite q and k where they lie
import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_out_kernel(x_ptr, out_ptr, positions_ptr, cache_ptr, stride_t, stride_h, cache_stride, heads, half,
                       BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    position = tl.load(positions_ptr + token)
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_HALF)[None, :]
    mask = (h < heads) & (d < half)
    cos = tl.load(cache_ptr + position * cache_stride + d, mask=d < half, other=0.0)
    sin = tl.load(cache_ptr + position * cache_stride + half + d, mask=d < half, other=0.0)
    src = x_ptr + token * stride_t + h * stride_h + d
    dst = out_ptr + (token * heads + h) * 2 * half + d  # the new tensor is contiguous
    x1 = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + half, mask=mask, other=0.0).to(tl.float32)
    tl.store(dst, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + half, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _copy_back_kernel(src_ptr, x_ptr, stride_t, stride_h, heads, head_dim, BLOCK_H: tl.constexpr,
                      BLOCK_D: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (h < heads) & (d < head_dim)
    rotated = tl.load(src_ptr + (token * heads + h) * head_dim + d, mask=mask, other=0.0)
    tl.store(x_ptr + token * stride_t + h * stride_h + d, rotated, mask=mask)


def rotary_embedding_(q, k, positions, cos_sin_cache):
    head_dim = q.shape[2]
    half = head_dim // 2
    rotated = []
    for x in (q, k):
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _rotate_out_kernel[(x.shape[0],)](x, out, positions, cos_sin_cache, x.stride(0), x.stride(1),
                                          cos_sin_cache.stride(0), x.shape[1], half,
                                          BLOCK_H=triton.next_power_of_2(x.shape[1]),
                                          BLOCK_HALF=triton.next_power_of_2(half))
        rotated.append(out)
    for x, out in zip((q, k), rotated, strict=True):
        _copy_back_kernel[(x.shape[0],)](out, x, x.stride(0), x.stride(1), x.shape[1], head_dim,
                                         BLOCK_H=triton.next_power_of_2(x.shape[1]),
                                         BLOCK_D=triton.next_power_of_2(head_dim))
    return q, k
