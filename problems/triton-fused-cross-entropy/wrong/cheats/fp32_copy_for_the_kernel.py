# expect: forbidden
# why: the unfused shortcut: the whole logits tensor copied to fp32 by torch (Tensor.float: forbidden) and a
#      kernel that reads fp32. Right, but the copy is twice the logits' size again, written and read back: the
#      memory the fused kernel exists to save (a 16384 x 128256 batch: 7.8 GiB more)
import torch
import triton
import triton.language as tl


@triton.jit
def _cross_entropy_kernel(x_ptr, target_ptr, loss_ptr, grad_ptr, vocab, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * vocab + cols, mask=cols < vocab, other=-float("inf"))
    target = tl.load(target_ptr + row)
    valid = target != -100
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    lse = m + tl.log(tl.sum(e, axis=0))
    picked = tl.sum(tl.where(cols == target, x, 0.0), axis=0)
    tl.store(loss_ptr + row, tl.where(valid, lse - picked, 0.0))
    grad = tl.exp(x - lse) - tl.where(cols == target, 1.0, 0.0)
    tl.store(grad_ptr + row * vocab + cols, tl.where(valid, grad, 0.0), mask=cols < vocab)


def cross_entropy(logits, target):
    x = logits.float().contiguous()
    rows, vocab = x.shape
    loss = torch.empty(rows, device=x.device)
    grad = torch.empty_like(x)
    _cross_entropy_kernel[(rows,)](x, target, loss, grad, vocab, BLOCK=triton.next_power_of_2(vocab))
    return loss, grad.to(logits.dtype)
