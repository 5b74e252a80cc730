# expect: forbidden
# why: no streaming: one program loads its whole vocabulary row in one tile (BLOCK = V rounded up to a power of
#      two) and takes a plain max and sum over it. Right numbers, but the max_tile rule refuses it
import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

IGNORE_INDEX = -100


@triton.jit
def _cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, grad_ptr, vocab, logits_stride, grad_stride,
                          IGNORE_INDEX: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    logits_row = logits_ptr + row * logits_stride
    target = tl.load(target_ptr + row)
    valid = target != IGNORE_INDEX
    cols = tl.arange(0, BLOCK)
    # The whole row at once: its max is known before any exp, so no running max or rescaling.
    x = tl.load(logits_row + cols, mask=cols < vocab, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    picked = tl.load(logits_row + tl.where(valid, target, 0)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(valid, lse - picked, 0.0))
    grad = tl.exp(x - lse) - tl.where(cols == target, 1.0, 0.0)
    tl.store(grad_ptr + row * grad_stride + cols, bf16_bits(tl.where(valid, grad, 0.0)), mask=cols < vocab)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    rows, vocab = logits.shape
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    grad = torch.empty_like(logits, memory_format=torch.contiguous_format)
    _cross_entropy_kernel[(rows,)](logits, target, loss, bf16_bits_view(grad), vocab, logits.stride(0),
                                   grad.stride(0), IGNORE_INDEX=IGNORE_INDEX, BLOCK=triton.next_power_of_2(vocab))
    return loss, grad
