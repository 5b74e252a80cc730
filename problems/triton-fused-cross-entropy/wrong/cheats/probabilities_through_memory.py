# expect: forbidden
# why: unfused: a first kernel writes each row's exp(x - max) to an fp32 buffer in memory, a second reads it back
#      for the sum, the loss and the gradient. Right numbers, tile by tile, but the traffic rule refuses the buffer
import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

BLOCK_V = 1024
IGNORE_INDEX = -100


@triton.jit
def _exp_kernel(logits_ptr, exp_ptr, max_ptr, vocab, logits_stride, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    logits_row = logits_ptr + row * logits_stride
    offs = tl.arange(0, BLOCK_V)
    # A first sweep for the row's max, then a second that writes exp(x - max) for the next kernel.
    m = -float("inf")
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        x = tl.load(logits_row + cols, mask=cols < vocab, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, axis=0))
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        x = tl.load(logits_row + cols, mask=cols < vocab, other=-float("inf")).to(tl.float32)
        tl.store(exp_ptr + row * vocab + cols, tl.exp(x - m), mask=cols < vocab)
    tl.store(max_ptr + row, m)


@triton.jit
def _loss_kernel(logits_ptr, target_ptr, exp_ptr, max_ptr, loss_ptr, grad_ptr, vocab, logits_stride, grad_stride,
                 IGNORE_INDEX: tl.constexpr, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    exp_row = exp_ptr + row * vocab
    target = tl.load(target_ptr + row)
    valid = target != IGNORE_INDEX
    offs = tl.arange(0, BLOCK_V)
    denom = 0.0
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        denom += tl.sum(tl.load(exp_row + cols, mask=cols < vocab, other=0.0), axis=0)
    lse = tl.load(max_ptr + row) + tl.log(denom)
    picked = tl.load(logits_ptr + row * logits_stride + tl.where(valid, target, 0)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(valid, lse - picked, 0.0))
    for start in range(0, vocab, BLOCK_V):
        cols = start + offs
        e = tl.load(exp_row + cols, mask=cols < vocab, other=0.0)
        grad = e / denom - tl.where(cols == target, 1.0, 0.0)
        tl.store(grad_ptr + row * grad_stride + cols, bf16_bits(tl.where(valid, grad, 0.0)), mask=cols < vocab)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    rows, vocab = logits.shape
    exps = torch.empty(rows, vocab, dtype=torch.float32, device=logits.device)
    row_max = torch.empty(rows, dtype=torch.float32, device=logits.device)
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    grad = torch.empty_like(logits, memory_format=torch.contiguous_format)
    _exp_kernel[(rows,)](logits, exps, row_max, vocab, logits.stride(0), BLOCK_V=BLOCK_V)
    _loss_kernel[(rows,)](logits, target, exps, row_max, loss, bf16_bits_view(grad), vocab, logits.stride(0),
                          grad.stride(0), IGNORE_INDEX=IGNORE_INDEX, BLOCK_V=BLOCK_V)
    return loss, grad
