"""Honest methods other than the reference's, accepted: a kata's guards (cases on its edges, memory caps,
state-only interfaces, the launch check) reject the shortcuts without rejecting another right way.
Each solution here is graded as a learner's, through the real workers."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

INT8_FLOAT64_ACCUMULATOR = '''import torch


def _rows(t):
    scales = t.abs().amax(dim=1) / 127
    return torch.nan_to_num(torch.round(t / scales[:, None])).to(torch.int8), scales


def w8a8_linear(x, weight, bias=None, smooth_alpha=None):
    xf, wf = x.float(), weight.float()
    smooth = torch.ones(x.shape[1])
    if smooth_alpha is not None:
        ax, aw = xf.abs().amax(dim=0), wf.abs().amax(dim=0)
        smooth = torch.where((ax > 0) & (aw > 0), ax.pow(smooth_alpha) / aw.pow(1 - smooth_alpha), 1.0)
        xf, wf = xf / smooth, wf * smooth
    x_codes, x_scales = _rows(xf)
    w_codes, w_scales = _rows(wf)
    # float64 holds every sum of K products of int8 codes exactly (below 2**53): the int32 accumulator's integers
    acc = (x_codes.double() @ w_codes.double().T).to(torch.int32)
    y = acc * x_scales[:, None] * w_scales
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
'''


def _reference_with(slug: str, line: str, replacement: str) -> str:
    """A kata's reference with one line replaced: the alternative differs from it only there."""
    source = (ROOT / "problems" / slug / "reference.py").read_text(encoding="utf-8")
    assert line in source, f"{slug}/reference.py no longer has {line!r}"
    return source.replace(line, replacement)


# Stable descending sort: among equal probabilities the lower expert first (the statement rules ties out).
MOE_STABLE_SORT = _reference_with(
    "moe-top-k-gating", "top_p, top_e = probs.topk(k, dim=-1)",
    "top_p, top_e = (t[:, :k] for t in torch.sort(probs, dim=-1, descending=True, stable=True))")

# Welford's update value by value from the carried state (no two-pass chunk), then Chan's merge for the tree.
WELFORD_PER_VALUE = _reference_with(
    "welford-chan-merge", "state = _merge(tuple(state), _chunk(chunk))", "state = _per_value(tuple(state), chunk)"
) + '''

def _per_value(state, chunk):
    n, mean, m2 = state
    for value in chunk.tolist():
        n += 1.0
        delta = value - mean
        mean += delta / n
        m2 += delta * (value - mean)
    return (n, mean, m2)
'''

# The merge by logaddexp of the state's log-sum-exp with the block's, each output weighted by its share (the reference
# instead counts the state as one more key in a softmax).
RING_LOGADDEXP_MERGE = '''import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = out.clone(), lse.clone()
    for r, own in enumerate(positions):
        held = positions[(r - step) % world_size]
        s = q[:, own] @ k[:, held].transpose(1, 2) * scale
        if causal:
            s = s.masked_fill(held[None, :] > own[:, None], float("-inf"))
        block_lse = torch.logsumexp(s, dim=-1)
        safe = torch.where(torch.isfinite(block_lse), block_lse, 0.0)
        block_out = torch.exp(s - safe[..., None]) @ v[:, held]
        new = torch.logaddexp(lse[:, own], block_lse)
        seen = torch.isfinite(new)
        new_safe = torch.where(seen, new, 0.0)
        merged = (out[:, own] * torch.exp(lse[:, own] - new_safe)[..., None]
                  + block_out * torch.exp(block_lse - new_safe)[..., None])
        out[:, own] = torch.where(seen[..., None], merged, 0.0)
        lse[:, own] = new
    return out, lse
'''

# Flash-attention's running (max, sum, unnormalized output) per query instead of a log-sum-exp merge: the state
# enters as max = lse, sum = 1, output as it is (sum 0 where nothing was seen), and is rescaled when the chunk
# raises the max.
RING_RUNNING_MAX = '''import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    new_out, new_lse = out.clone(), lse.clone()
    for r, own in enumerate(positions):
        c = (r - step) % world_size
        s = q[:, own] @ k[:, positions[c]].transpose(1, 2) * scale
        if causal:
            s = s.masked_fill(positions[c][None, :] > own[:, None], float("-inf"))
        m = lse[:, own]
        l = torch.isfinite(m).to(q.dtype)
        new_m = torch.maximum(m, s.amax(dim=-1)) if s.shape[-1] else m
        shift = torch.where(torch.isfinite(new_m), new_m, 0.0)
        alpha, p = torch.exp(m - shift), torch.exp(s - shift[..., None])
        l = l * alpha + p.sum(dim=-1)
        acc = out[:, own] * alpha[..., None] + p @ v[:, positions[c]]
        new_out[:, own] = acc / torch.where(l > 0, l, 1.0)[..., None]
        new_lse[:, own] = torch.where(l > 0, shift + torch.log(l), float("-inf"))
    return new_out, new_lse
'''

# The parts folded in one at a time with logaddexp (an online merge) instead of one log-sum-exp over all.
FLASH_DECODING_FOLDED = _reference_with(
    "flash-decoding", "    lse = torch.logsumexp(all_lse, dim=2)\n", '''    lse = all_lse[:, :, 0]
    for i in range(1, all_lse.shape[2]):
        lse = torch.logaddexp(lse, all_lse[:, :, i])
''')

# A plain tiled kernel (a program per tile in row-major order, smaller tiles than ours) that reads weight.T, the
# `.T` view, through its strides; its output starts as torch.zeros and is handed back as a view. What the
# kata's eager rule allows outside the launch: allocation, a constant fill, views and their strides.
TILED_WEIGHT_T_VIEW = '''import torch
import triton
import triton.language as tl


@triton.jit
def _tile(x_ptr, wt_ptr, out_ptr, M, N, K, sxm, sxk, swk, swn, som, son,
          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * sxm + rk[None, :] * sxk, mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        b = tl.load(wt_ptr + rk[:, None] * swk + rn[None, :] * swn, mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear(x, weight):
    (M, K), N = x.shape, weight.shape[0]
    wt = weight.T  # [K, N] with strides (1, K): no copy
    out = torch.zeros(M, N, dtype=torch.float32, device=x.device)
    _tile[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, wt, out, M, N, K, *x.stride(), *wt.stride(), *out.stride(),
                                                  BM=32, BN=32, BK=32)
    return out[:, :]
'''

ALTERNATIVES = {
    "welford-chan-merge: Welford's update value by value": ("welford-chan-merge", WELFORD_PER_VALUE),
    "moe-top-k-gating: top-k by a stable descending sort": ("moe-top-k-gating", MOE_STABLE_SORT),
    "ring-attention: a logaddexp merge of the state and the block": ("ring-attention", RING_LOGADDEXP_MERGE),
    "ring-attention: a running max, sum and unnormalized output per query": ("ring-attention", RING_RUNNING_MAX),
    "flash-decoding: the parts folded in one logaddexp at a time": ("flash-decoding", FLASH_DECODING_FOLDED),
    "int8-gemm-per-token-scales: a float64 GEMM of the codes, exact like int32": (
        "int8-gemm-per-token-scales", INT8_FLOAT64_ACCUMULATOR),
    "tiled-matmul: a plain tiled kernel reading weight.T through its strides": ("tiled-matmul", TILED_WEIGHT_T_VIEW),
}


@pytest.mark.parametrize("slug,source", ALTERNATIVES.values(), ids=list(ALTERNATIVES))
def test_an_honest_alternative_is_accepted(catalog, runner, tmp_path, slug, source):
    problem = catalog.problems[slug]
    path = tmp_path / "solution.py"
    path.write_text(source, encoding="utf-8")
    report = runner.run(problem, source, path)
    assert report.verdict == "accepted", [c.message for c in report.cases if c.status != "passed"]
