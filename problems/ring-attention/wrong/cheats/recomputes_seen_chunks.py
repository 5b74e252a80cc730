# expect: wrong_answer
# why: skips the state: every rank attends to all the chunks it has received by this step, its own and
#      those of ranks r - 1, ..., r - step, from k and v in one go, as if it still held them. That is all
#      of K and V over the ring (P times the memory a ring rank has), and the state it was given is the only
#      record of chunks that have moved on: in the cases it is over keys that are not passed
import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = torch.zeros_like(out), torch.full_like(lse, float("-inf"))
    for r, own in enumerate(positions):
        keys = torch.cat([positions[(r - t) % world_size] for t in range(step + 1)])
        s = q[:, own] @ k[:, keys].transpose(1, 2) * scale
        if causal:
            s = s.masked_fill(keys[None, :] > own[:, None], float("-inf"))
        lse[:, own] = torch.logsumexp(s, dim=-1)
        out[:, own] = torch.nan_to_num(torch.softmax(s, dim=-1)) @ v[:, keys]
    return out, lse
