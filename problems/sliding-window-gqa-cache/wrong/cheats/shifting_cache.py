# expect: wrong_answer
# why: keeps the cache in position order instead of as a rolling buffer: every call shifts the old
#      keys left and appends the new ones (W reads and writes per token instead of one), then copies
#      that back. The outputs are right; the buffer's layout, slot = position % window, is not
import torch


def sliding_window_gqa(q, k, v, k_cache, v_cache, start_pos, window, softmax_scale=None):
    Hq, T, D = q.shape
    g = Hq // k.shape[0]
    scale = softmax_scale if softmax_scale is not None else 1.0 / D ** 0.5
    n_cached = min(start_pos, window)
    cpos = torch.arange(start_pos - n_cached, start_pos)
    keys = torch.cat([k_cache[:, cpos % window], k], dim=1)
    vals = torch.cat([v_cache[:, cpos % window], v], dim=1)
    kpos = torch.cat([cpos, torch.arange(start_pos, start_pos + T)])
    out = torch.empty_like(q)
    for h in range(Hq):
        for i in range(T):
            p = start_pos + i
            sel = (kpos <= p) & (kpos > p - window)
            s = keys[h // g, sel] @ q[h, i] * scale
            w = torch.exp(s - s.max())
            out[h, i] = (w / w.sum()) @ vals[h // g, sel]
    kept = min(start_pos + T, window)
    k_cache[:, :kept] = keys[:, -kept:]
    v_cache[:, :kept] = vals[:, -kept:]
    return out
