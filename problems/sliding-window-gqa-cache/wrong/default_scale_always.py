# expect: wrong_answer
# why: always scales the scores by 1 / sqrt(D) and ignores softmax_scale
import torch


def sliding_window_gqa(q, k, v, k_cache, v_cache, start_pos, window, softmax_scale=None):
    Hq, T, D = q.shape
    Hkv = k.shape[0]
    g = Hq // Hkv
    scale = 1.0 / D ** 0.5
    n_cached = min(start_pos, window)
    cpos = torch.arange(start_pos - n_cached, start_pos)
    out = torch.empty_like(q)
    for h in range(Hq):
        kv = h // g
        keys = torch.cat([k_cache[kv, cpos % window], k[kv]])
        vals = torch.cat([v_cache[kv, cpos % window], v[kv]])
        kpos = torch.cat([cpos, torch.arange(start_pos, start_pos + T)])
        for i in range(T):
            p = start_pos + i
            sel = (kpos <= p) & (kpos > p - window)
            s = keys[sel] @ q[h, i] * scale
            w = torch.exp(s - s.max())
            out[h, i] = (w / w.sum()) @ vals[sel]
    for i in range(max(0, T - window), T):
        p = start_pos + i
        k_cache[:, p % window] = k[:, i]
        v_cache[:, p % window] = v[:, i]
    return out
