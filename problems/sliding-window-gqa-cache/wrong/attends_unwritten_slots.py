# expect: wrong_answer
# why: attends over every slot of the buffer and masks the slots that were never written with -inf
#      scores. Their weights are 0, but their values are whatever the allocation left there (NaN
#      here, as torch.empty may hold), and 0 * NaN is NaN: read only the slots that hold keys
import torch


def sliding_window_gqa(q, k, v, k_cache, v_cache, start_pos, window, softmax_scale=None):
    Hq, T, D = q.shape
    g = Hq // k.shape[0]
    scale = softmax_scale if softmax_scale is not None else 1.0 / D ** 0.5
    # The position each slot holds before this chunk (negative: never written).
    slot_pos = torch.tensor([start_pos - 1 - ((start_pos - 1 - s) % window) for s in range(window)])
    keys = torch.cat([k_cache, k], dim=1)
    vals = torch.cat([v_cache, v], dim=1)
    kpos = torch.cat([slot_pos, torch.arange(start_pos, start_pos + T)])
    qpos = torch.arange(start_pos, start_pos + T)
    visible = (kpos[None, :] >= 0) & (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] > qpos[:, None] - window)
    scores = q @ keys.repeat_interleave(g, dim=0).transpose(1, 2) * scale
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    out = weights @ vals.repeat_interleave(g, dim=0)
    for i in range(max(0, T - window), T):
        k_cache[:, (start_pos + i) % window] = k[:, i]
        v_cache[:, (start_pos + i) % window] = v[:, i]
    return out
