# expect: forbidden
# why: torch's sort reached under another name (the static check does not see it; the tripwire on torch.sort
#      does), so that a Triton kernel only has to walk the ranked probabilities: the sort is what the kata's
#      kernel avoids
import torch
import triton
import triton.language as tl

from torch import sort as rank_by_probability


@triton.jit
def _nucleus_kernel(ranked_ptr, order_ptr, top_p_ptr, uniforms_ptr, out_ptr, vocab, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    ranked = tl.load(ranked_ptr + row * vocab + offs, mask=offs < vocab, other=0.0)
    order = tl.load(order_ptr + row * vocab + offs, mask=offs < vocab, other=0)
    above = tl.cumsum(ranked, axis=0) - ranked
    kept = (above < tl.load(top_p_ptr + row)) & (ranked > 0.0)
    # The kept tokens in id order: the draw walks ids, so weigh each id by its kept probability.
    by_id = tl.sum(tl.where(kept[:, None] & (order[:, None] == offs[None, :]), ranked[:, None], 0.0), axis=0)
    cdf = tl.cumsum(by_id, axis=0)
    target = tl.load(uniforms_ptr + row) * tl.max(cdf, axis=0)
    tl.store(out_ptr + row, tl.min(tl.where((by_id > 0) & (cdf > target), offs, BLOCK), axis=0).to(tl.int64))


def top_p_sample(logits, temperature, top_p, uniforms):
    batch, vocab = logits.shape
    probs = (logits / temperature[:, None]).exp()
    probs = probs / probs.sum(dim=-1, keepdim=True)
    ranked, order = rank_by_probability(probs, dim=-1, descending=True, stable=True)
    out = torch.empty(batch, dtype=torch.int64, device=logits.device)
    _nucleus_kernel[(batch,)](ranked.contiguous(), order.contiguous(), top_p, uniforms, out, vocab,
                              BLOCK=triton.next_power_of_2(vocab))
    return out
