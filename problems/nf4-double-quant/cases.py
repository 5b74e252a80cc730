"""Weights for nf4-double-quant: flattened weight matrices as LLMs have them (normal, about 0.02),
with the edges the format meets: a last block shorter than the others, a block of zeros, outlier
blocks, a number of blocks the second level does not divide, and absmaxes all equal to their mean."""
import importlib.util
from pathlib import Path

import torch


def _normal(seed, n, std=0.02):
    return torch.randn(n, generator=torch.Generator().manual_seed(seed)) * std


def _with_outliers(seed, n, blocksize):
    w = _normal(seed, n)
    w[3 * blocksize + 5] = 1.5  # an outlier makes one block's absmax 20 times the others'
    w[11 * blocksize] = -0.9
    return w


def _with_zero_block(seed, n, blocksize):
    w = _normal(seed, n)
    w[2 * blocksize:3 * blocksize] = 0.0
    return w


def _equal_absmax(n, blocksize):
    # Every block holds +-0.5 and smaller values: every absmax is 0.5, so the centred absmaxes are all 0.
    w = _normal(99, n, 0.05).clamp(-0.4, 0.4)
    w[::blocksize] = 0.5
    w[1::2 * blocksize] = -0.5
    return w


def cases():
    return [
        {"name": "example: 128 weights, 2 blocks of 64", "args": (_normal(1, 128),)},
        {"name": "a 128 x 256 weight, blocks of 64 and 256 (the QLoRA defaults)", "args": (_normal(2, 32768),)},
        {"name": "blocksize 32, blocksize2 128", "args": (_normal(3, 8192), 32, 128)},
        {"name": "650 weights: the last block holds 10", "args": (_normal(4, 650),)},
        {"name": "a block of zeros (absmax 0, codes 7)", "args": (_with_zero_block(5, 1024, 64),)},
        {"name": "outlier blocks: absmaxes 1.5 and 0.9 among ones near 0.05", "args": (_with_outliers(6, 4096, 64),)},
        {"name": "300 blocks: second-level blocks of 256 and 44", "args": (_normal(7, 300 * 64),)},
        {"name": "every absmax equal to their mean: the second level holds zeros", "args": (_equal_absmax(2048, 64),)},
        {"name": "blocksize 16, blocksize2 4, weights of scale 1", "args": (_normal(8, 1000, 1.0), 16, 4)},
    ]



def _nf4():
    """The NF4 table, from the reference (the statement's table)."""
    spec = importlib.util.spec_from_file_location("_nf4_double_quant_reference", Path(__file__).with_name("reference.py"))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    return reference.NF4


def _away_from_ties(w, blocksize, blocksize2):
    """w with no value within 1e-6 of a midpoint between NF4 levels (in units of its block's absmax), or None
    where the second level leaves a rounding that another order of the statement's float32 operations could
    change: c / absmax2 * 127 within 1e-4 of a half-integer, or a block's rebuilt absmax so small beside
    code / 127 * absmax2 that its rounding would be a relative error near the tolerance."""
    nf4 = _nf4()
    n = w.numel()
    block = torch.arange(n) // blocksize
    absmax = torch.zeros(-(-n // blocksize)).scatter_reduce(0, block, w.abs(), "amax")
    ratio = torch.nan_to_num(w / absmax[block])
    midpoints = (nf4[:-1] + nf4[1:]) / 2
    gap = ratio[:, None] - midpoints[None, :]
    nearest = gap.abs().argmin(dim=1)
    close = (gap.abs().amin(dim=1) < 1e-6) & (absmax[block] > 0)
    if close.any():  # move the value 3e-6 (of its absmax) away from the midpoint, on its own side
        side = torch.where(gap[close, nearest[close]] >= 0, 1.0, -1.0)
        w = w.clone()
        w[close] = (midpoints[nearest[close]] + 3e-6 * side) * absmax[block][close]
    offset = absmax.mean()
    centered = absmax - offset
    block2 = torch.arange(absmax.numel()) // blocksize2
    absmax2 = torch.zeros(-(-absmax.numel() // blocksize2)).scatter_reduce(0, block2, centered.abs(), "amax")
    scaled = torch.nan_to_num(centered / absmax2[block2]) * 127
    if ((scaled - scaled.floor() - 0.5).abs() < 1e-4).any():
        return None
    term = torch.round(scaled) / 127 * absmax2[block2]
    if ((absmax > 0) & ((term + offset).abs() < 0.3 * term.abs())).any():
        return None
    return w


def _draw_weights(g, seed, n, blocksize, draw, below):
    kind = draw("normal", "normal", "scale 1", "zero blocks", "outliers", "equal absmax")
    w = _normal(seed, n, 1.0 if kind == "scale 1" else 0.02)
    blocks = -(-n // blocksize)
    if kind == "zero blocks":
        for b in {below(blocks) for _ in range(1 + below(3))}:
            w[b * blocksize:(b + 1) * blocksize] = 0.0
    elif kind == "outliers":
        for i in {below(n) for _ in range(1 + below(4))}:
            w[i] = draw(1.0, -1.0) * (0.3 + 2 * float(torch.rand((), generator=g)))
    elif kind == "equal absmax":  # every block's absmax 0.5: the centred absmaxes are all exactly 0
        w = (w * 2.5).clamp(-0.4, 0.4)
        w[::blocksize] = torch.where(torch.rand(blocks, generator=g) < 0.5, -0.5, 0.5)
    return w


def fresh(seed):
    """A random weight, new at every grading (never shown): an even n up to 65536 (a last block shorter than the
    others), blocksize and blocksize2 from the defaults to odd sizes (second-level blocks that do not divide the
    blocks, or a single one), normal weights of scale 0.02 or 1, zero blocks, outliers, or every absmax equal;
    no rounding near a tie (see _away_from_ties)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    while True:
        n = 2 * draw(1 + below(64), 1 + below(8192), 1 + below(32768))
        # Blocks of 8 or more: with smaller ones some block's absmax is far below the mean, and its rebuilt
        # absmax is a small difference of float32 terms.
        blocksize = draw(64, 64, 32, 16, 128, 8 + below(256))
        blocksize2 = draw(256, 256, 128, 4, 1, 1 + below(300))
        w = _away_from_ties(_draw_weights(g, below(2 ** 31), n, blocksize, draw, below), blocksize, blocksize2)
        if w is not None:
            break
    form = below(3)
    if form == 0 and blocksize == 64 and blocksize2 == 256:
        return {"args": (w,)}
    if form == 1:
        return {"args": (w,), "kwargs": {"blocksize": blocksize, "blocksize2": blocksize2}}
    return {"args": (w, blocksize, blocksize2)}
