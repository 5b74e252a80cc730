# expect: forbidden
# why: eager torch does the work (the reference's plain attention, S x S scores and all) while a token Triton
#      kernel is launched to satisfy the launch count: the `@` operator (torch.Tensor.__matmul__) is forbidden
#      here, as every product that forms the scores
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


def flash_attention(q, k, v, causal):
    scratch = torch.empty(1, device=q.device)
    _zero_kernel[(1,)](scratch, 1, BLOCK=16)
    s = q.shape[-2]
    scores = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if causal:
        scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    m = scores.amax(-1, keepdim=True)
    p = torch.exp(scores - m)
    l = p.sum(-1, keepdim=True)
    return (p / l) @ v.float(), (m + torch.log(l)).squeeze(-1)
