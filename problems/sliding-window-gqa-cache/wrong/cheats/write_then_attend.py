# expect: wrong_answer
# why: the decode-step shortcut: write the new keys and values into the buffer first, then attend
#      over the buffer alone. Right for one token at a time, but a chunk's writes evict keys that
#      the chunk's own earlier queries still need (a query at position i needs i - window + 1 .. i,
#      and the chunk's later tokens overwrite those slots); the attention must see them first
import torch


def sliding_window_gqa(q, k, v, k_cache, v_cache, start_pos, window, softmax_scale=None):
    Hq, T, D = q.shape
    g = Hq // k.shape[0]
    scale = softmax_scale if softmax_scale is not None else 1.0 / D ** 0.5
    for i in range(max(0, T - window), T):
        k_cache[:, (start_pos + i) % window] = k[:, i]
        v_cache[:, (start_pos + i) % window] = v[:, i]
    end = start_pos + T
    # The position each slot now holds: the latest p < end with p % window == slot (negative: never written).
    slot_pos = torch.tensor([end - 1 - ((end - 1 - s) % window) for s in range(window)])
    written = slot_pos >= 0
    qpos = torch.arange(start_pos, end)
    visible = (slot_pos[None, :] <= qpos[:, None]) & (slot_pos[None, :] > qpos[:, None] - window) & written
    keys, vals = k_cache[:, written], v_cache[:, written]
    scores = q @ keys.repeat_interleave(g, dim=0).transpose(1, 2) * scale
    weights = torch.softmax(scores.masked_fill(~visible[:, written], float("-inf")), dim=-1)
    return weights @ vals.repeat_interleave(g, dim=0)
