import torch


def sliding_window_gqa(q, k, v, k_cache, v_cache, start_pos, window, softmax_scale=None):
    new = q.shape[1]
    group = q.shape[0] // k.shape[0]  # query heads per KV head
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    # Every key the chunk may see: the positions still in the buffer, then the chunk's own.
    cached = torch.arange(max(start_pos - window, 0), start_pos)
    positions = torch.arange(start_pos, start_pos + new)
    keys = torch.cat([k_cache[:, cached % window], k], dim=1)
    values = torch.cat([v_cache[:, cached % window], v], dim=1)
    key_pos = torch.cat([cached, positions])
    visible = (key_pos[None, :] <= positions[:, None]) & (key_pos[None, :] > positions[:, None] - window)
    scores = q @ keys.repeat_interleave(group, dim=0).transpose(1, 2) * scale
    out = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1) @ values.repeat_interleave(group, dim=0)
    # Only the last `window` new positions survive in the buffer: each in slot position % window.
    kept = positions[-window:]
    k_cache[:, kept % window] = k[:, -window:]
    v_cache[:, kept % window] = v[:, -window:]
    return out
