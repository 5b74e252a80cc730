# expect: wrong_answer
# why: skips the ring: every rank all-gathers the whole K and V (P times the memory the ring needs,
#      and nothing overlaps with compute) and computes its attention in one go. The output and the
#      final log-sum-exp are right, but there are no ring steps: it reports its final log-sum-exp as
#      the state after every step, and after step 0 a rank has seen only its own chunk
import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    seq, dim = q.shape[1], q.shape[2]
    scale = dim ** -0.5 if softmax_scale is None else softmax_scale
    scores = q @ k.transpose(1, 2) * scale
    if causal:
        position = torch.arange(seq)
        scores = scores.masked_fill(position[None, :] > position[:, None], float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    out = torch.exp(scores - lse[..., None]) @ v
    return out, lse, lse.expand(world_size, *lse.shape).clone()
