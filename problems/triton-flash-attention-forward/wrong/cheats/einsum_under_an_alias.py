# expect: forbidden
# why: the scores and the output from torch.einsum reached under another name (no dotted name in the source
#      for the static check to see), with a token kernel launched beside it: the tripwire is on the function
#      itself, wherever it is reached from
import math

import torch
import triton
import triton.language as tl

contract = getattr(torch, "ein" + "sum")


@triton.jit
def _scale_kernel(ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.load(ptr + offs, mask=offs < n) * factor, mask=offs < n)


def flash_attention(q, k, v, causal):
    s, d = q.shape[-2], q.shape[-1]
    scores = contract("bhqd,bhkd->bhqk", q.float(), k.float()).contiguous()
    _scale_kernel[(triton.cdiv(scores.numel(), 1024),)](scores, scores.numel(), 1 / math.sqrt(d), BLOCK=1024)
    if causal:
        scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    m = scores.amax(-1, keepdim=True)
    p = torch.exp(scores - m)
    l = p.sum(-1, keepdim=True)
    return contract("bhqk,bhkd->bhqd", p / l, v.float()), (m + torch.log(l)).squeeze(-1)
