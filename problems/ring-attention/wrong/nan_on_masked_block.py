# expect: wrong_answer
# why: normalizes each block on its own (its softmax and its log-sum-exp) and merges the blocks by
#      their log-sum-exps, which is right, but under the causal mask the chunks of later ranks are
#      fully masked: the block's softmax is 0 / 0 = NaN, and NaN * exp(-inf) is still NaN in the
#      merged output. A fully masked block must contribute nothing
import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    H, S, D = q.shape
    P = world_size
    scale = D ** -0.5 if softmax_scale is None else softmax_scale
    pos = torch.arange(S).tensor_split(P)
    qs, ks, vs = q.tensor_split(P, dim=1), k.tensor_split(P, dim=1), v.tensor_split(P, dim=1)
    held = list(zip(ks, vs, pos))
    outs = [torch.zeros_like(c) for c in qs]
    lses = [torch.full(c.shape[:2], float("-inf"), dtype=q.dtype) for c in qs]
    steps = torch.empty(P, H, S, dtype=q.dtype)
    for t in range(P):
        for r in range(P):
            kb, vb, kpos = held[r]
            s = qs[r] @ kb.transpose(1, 2) * scale
            if causal:
                s = s.masked_fill(kpos[None, None, :] > pos[r][None, :, None], float("-inf"))
            block_lse = torch.logsumexp(s, dim=-1)
            block_out = torch.exp(s - block_lse[..., None]) @ vb
            new = torch.logaddexp(lses[r], block_lse)
            outs[r] = outs[r] * torch.exp(lses[r] - new)[..., None] + block_out * torch.exp(block_lse - new)[..., None]
            lses[r] = new
            steps[t, :, pos[r]] = new
        held = [held[(r - 1) % P] for r in range(P)]
    return torch.cat(outs, dim=1), torch.cat(lses, dim=1), steps
