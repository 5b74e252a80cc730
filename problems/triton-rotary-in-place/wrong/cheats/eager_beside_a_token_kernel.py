# expect: forbidden
# why: launches a kernel that does nothing useful, so the call counts as a Triton launch, and rotates q and k
#      with eager torch (the rope kata's own code, written back by slice assignment): torch.cat, tensor
#      products and torch.Tensor.__setitem__ are forbidden in this problem
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def rotary_embedding_(q, k, positions, cos_sin_cache):
    _touch[(1,)](positions)
    half = q.shape[-1] // 2
    cos = cos_sin_cache[positions, :half][:, None, :]
    sin = cos_sin_cache[positions, half:][:, None, :]
    for x in (q, k):
        x1, x2 = x[..., :half].float(), x[..., half:].float()
        x[...] = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
    return q, k
