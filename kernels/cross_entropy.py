"""Fused cross-entropy with its gradient: our solution to `triton-fused-cross-entropy`.

One program per row, one kernel for the loss and the gradient. A first sweep over the row's vocabulary
tiles keeps an online max and sum (the log-sum-exp) with each bf16 tile widened to fp32 in registers; a
second sweep writes softmax - onehot, rounded to bf16, into the gradient. The logits are read twice and
never copied: no fp32 [rows, vocab] tensor exists, and nothing but the loss and the gradient is written.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

BLOCK_V = 1024
IGNORE_INDEX = -100  # torch's default: such a row has no loss and no gradient


@triton.jit
def _cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, grad_ptr, vocab, logits_stride, grad_stride,
                          IGNORE_INDEX: tl.constexpr, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    logits_row = logits_ptr + row * logits_stride
    grad_row = grad_ptr + row * grad_stride
    target = tl.load(target_ptr + row)
    valid = target != IGNORE_INDEX
    offs = tl.arange(0, BLOCK_V)
    m = -float("inf")
    denom = 0.0
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        # Padding reads as -inf: exp(-inf - m) = 0 adds nothing to the sum. bf16 is widened before any
        # arithmetic (bf16 arithmetic is wrong in the Triton interpreter, and fp32 is what the sum needs).
        x = tl.load(logits_row + cols, mask=cols < vocab, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        denom = denom * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(denom)
    # An ignored row reads column 0, in bounds, and discards it.
    picked = tl.load(logits_row + tl.where(valid, target, 0)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(valid, lse - picked, 0.0))
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        x = tl.load(logits_row + cols, mask=cols < vocab, other=0.0).to(tl.float32)
        grad = tl.exp(x - lse) - tl.where(cols == target, 1.0, 0.0)
        tl.store(grad_row + cols, bf16_bits(tl.where(valid, grad, 0.0)), mask=cols < vocab)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    """Per-row cross-entropy of bf16 logits [N, V] against int64 targets [N] (-100: ignored), and its gradient
    softmax - onehot -> (loss [N] fp32, dlogits [N, V] bf16)."""
    rows, vocab = logits.shape
    if logits.stride(1) != 1:
        logits = logits.contiguous()
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    grad = torch.empty_like(logits, memory_format=torch.contiguous_format)
    _cross_entropy_kernel[(rows,)](logits, target, loss, bf16_bits_view(grad), vocab, logits.stride(0),
                                   grad.stride(0), IGNORE_INDEX=IGNORE_INDEX, BLOCK_V=BLOCK_V, num_warps=8)
    return loss, grad
