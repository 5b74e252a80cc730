# expect: forbidden
# why: torch's own cross-entropy through an aliased module (the static check sees no torch.nn.functional),
#      its gradient from autograd, and a token kernel launched beside them: the tripwire is on the function
import torch
import torch.nn.functional as nnf
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def cross_entropy(logits, target):
    x = logits.to(torch.float32).requires_grad_()
    loss = nnf.cross_entropy(x, target, reduction="none")
    loss.sum().backward()
    out = torch.empty_like(loss)
    _copy_kernel[(triton.cdiv(len(out), 128),)](loss.detach(), out, len(out), BLOCK=128)
    return out, x.grad.to(logits.dtype)
