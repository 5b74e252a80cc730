# expect: forbidden
# why: eager torch does the work (the logits copied to fp32, the log-sum-exp and the softmax computed on the
#      whole [N, V] tensor) while a token Triton kernel is launched to satisfy the launch count: the upcast
#      (Tensor.float) and the exponentials are forbidden here
import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


def cross_entropy(logits, target):
    loss = torch.empty(len(target), device=logits.device)
    _zero_kernel[(triton.cdiv(len(target), 128),)](loss, len(target), BLOCK=128)
    x = logits.float()
    m = x.amax(-1, keepdim=True)
    e = (x - m).exp()
    lse = m + e.sum(-1, keepdim=True).log()
    valid = target != -100
    safe = torch.where(valid, target, 0)
    loss += torch.where(valid, (lse - x.gather(1, safe[:, None])).squeeze(1), 0.0)
    grad = e / e.sum(-1, keepdim=True)
    grad[torch.arange(len(target)), safe] -= 1.0
    return loss, (grad * valid[:, None]).to(logits.dtype)
