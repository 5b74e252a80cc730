# expect: wrong_answer
# why: masks the load but pads the lanes past the vocabulary with 0.0 instead of -inf: every padding lane
#      gets probability exp(0 - max) / sum, takes mass from the real tokens and can itself be drawn (an id
#      past the vocabulary); rows whose length is a power of two have no padding and pass
import torch
import triton
import triton.language as tl

MAX_VOCAB = 32768  # a whole row lives in one program's registers


@triton.jit
def _top_p_kernel(logits_ptr, temperature_ptr, top_p_ptr, uniforms_ptr, out_ptr, vocab, stride,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride + offs, mask=offs < vocab, other=0.0)
    top_p = tl.load(top_p_ptr + row)
    z = x / tl.load(temperature_ptr + row)
    e = tl.exp(z - tl.max(z, axis=0))  # -inf logits and the padding give 0
    probs = e / tl.sum(e, axis=0)
    # The largest bit pattern b whose value still has at least top_p above it, built bit by bit from the top
    # (probabilities are at most 1.0, below 2**30 as bits); t is the next pattern up, or 0 if even 0 qualifies.
    b = tl.zeros((), dtype=tl.int32)
    bit = tl.full((), 1 << 29, tl.int32)
    for _ in range(30):  # a loop, not unrolled: 30 copies of a row-wide reduction would bloat the kernel
        candidate = b | bit
        above = tl.sum(tl.where(probs > candidate.to(tl.float32, bitcast=True), probs, 0.0), axis=0)
        b = tl.where(above >= top_p, candidate, b)
        bit = bit >> 1
    fails_at_zero = tl.sum(tl.where(probs > 0.0, probs, 0.0), axis=0) >= top_p
    t = tl.where(fails_at_zero, b + 1, 0).to(tl.float32, bitcast=True)
    # The tie group at t in id order: its k-th member has the mass above t plus k * t above it.
    tie = (probs == t) & (probs > 0.0)
    rank = tl.cumsum(tie.to(tl.int32), axis=0) - 1
    above_t = tl.sum(tl.where(probs > t, probs, 0.0), axis=0)
    kept = (probs > t) | (tie & (above_t + rank.to(tl.float32) * t < top_p))
    cdf = tl.cumsum(tl.where(kept, probs, 0.0), axis=0)
    target = tl.load(uniforms_ptr + row) * tl.max(cdf, axis=0)
    first = tl.min(tl.where(kept & (cdf > target), offs, BLOCK), axis=0)
    # u * total can round up to the total itself: then the last kept token is the draw.
    last = tl.max(tl.where(kept, offs, -1), axis=0)
    tl.store(out_ptr + row, tl.where(first < BLOCK, first, last).to(tl.int64))


def top_p_sample(logits: torch.Tensor, temperature: torch.Tensor, top_p: torch.Tensor,
                 uniforms: torch.Tensor) -> torch.Tensor:
    """One token id per row of fp32 logits [B, V] (V <= 32768), drawn from the top-p nucleus with `uniforms`."""
    batch, vocab = logits.shape
    if vocab > MAX_VOCAB:
        raise ValueError(f"rows of {vocab} logits; this kernel holds a row in registers, at most {MAX_VOCAB}")
    logits = logits.contiguous()
    out = torch.empty(batch, dtype=torch.int64, device=logits.device)
    block = triton.next_power_of_2(vocab)
    _top_p_kernel[(batch,)](logits, temperature, top_p, uniforms, out, vocab, logits.stride(0), BLOCK=block,
                            num_warps=4 if block <= 2048 else 8 if block <= 8192 else 16)
    return out
