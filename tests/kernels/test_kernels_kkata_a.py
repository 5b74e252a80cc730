"""Our flash-attention, fused cross-entropy and LayerNorm-backward kernels against torch: on a GPU when there
is one, else through the Triton interpreter on the CPU, at a few small shapes (the interpreter runs a
kernel's loop in Python)."""

from __future__ import annotations

import math

import pytest
import torch
from kernel_katas import DEVICE  # first: it chooses the interpreter before a kernel is imported

# isort: split
from infrakata.kernels.cross_entropy import cross_entropy
from infrakata.kernels.flash_attention import flash_attention
from infrakata.kernels.layernorm_backward import layernorm_backward


def _gen(seed):
    return torch.Generator(device=DEVICE).manual_seed(seed)


@pytest.mark.parametrize(("shape", "causal"), [((1, 2, 65, 32), True), ((2, 1, 50, 24), False)])
def test_flash_attention_matches_torch_sdpa(shape, causal):
    """Against torch's own attention: S past one tile of 64 (a partial second tile), D not a power of two."""
    gen = _gen(1)
    q, k, v = (torch.randn(*shape, device=DEVICE, generator=gen).half() for _ in range(3))
    out, lse = flash_attention(q, k, v, causal)
    expected = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    scores = q.float() @ k.float().transpose(-2, -1) / math.sqrt(shape[-1])
    if causal:
        scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), float("-inf"))
    assert out.dtype == torch.float32 and lse.dtype == torch.float32
    torch.testing.assert_close(out, expected, atol=2e-3, rtol=2e-3)
    torch.testing.assert_close(lse, torch.logsumexp(scores, -1), atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize(("rows", "vocab"), [(3, 1), (5, 1500)])
def test_cross_entropy_matches_torch_autograd(rows, vocab):
    """The loss against torch's cross_entropy and the gradient against autograd's, with an ignored row."""
    gen = _gen(2)
    logits = (torch.randn(rows, vocab, device=DEVICE, generator=gen) * 4).bfloat16()
    target = torch.randint(0, vocab, (rows,), device=DEVICE, generator=gen)
    target[1] = -100
    loss, grad = cross_entropy(logits, target)
    x = logits.float().requires_grad_()
    expected = torch.nn.functional.cross_entropy(x, target, reduction="none")
    expected.sum().backward()
    assert grad.dtype == torch.bfloat16 and loss[1] == 0 and not grad[1].any()
    torch.testing.assert_close(loss, expected.detach(), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(grad, x.grad.bfloat16(), atol=1e-6, rtol=2 ** -7)


@pytest.mark.parametrize(("rows", "columns"), [(1, 5), (9, 300)])
def test_layernorm_backward_matches_torch_autograd(rows, columns):
    """Against autograd through torch's layer_norm; 9 rows make groups of 4, 4 and 1 in the first kernel."""
    gen, eps = _gen(3), 1e-5
    x = (torch.randn(rows, columns, device=DEVICE, generator=gen) * 2 + 1).bfloat16()
    weight = (1 + 0.5 * torch.randn(columns, device=DEVICE, generator=gen)).bfloat16()
    grad_out = torch.randn(rows, columns, device=DEVICE, generator=gen).bfloat16()
    xf = x.float()
    mean = xf.mean(-1)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False) + eps)
    dx, dweight, dbias = layernorm_backward(x, weight, grad_out, mean, rstd)
    xd, wd, bd = (t.double().requires_grad_() for t in (x, weight, torch.zeros(columns, device=DEVICE)))
    torch.nn.functional.layer_norm(xd, (columns,), wd, bd, eps).backward(grad_out.double())
    torch.testing.assert_close(dx.float(), xd.grad.float(), atol=1e-2, rtol=2 ** -7)
    torch.testing.assert_close(dweight, wd.grad.float(), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(dbias, bd.grad.float(), atol=1e-4, rtol=1e-4)
