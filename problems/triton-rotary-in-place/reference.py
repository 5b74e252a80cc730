

def rotary_embedding_(q, k, positions, cos_sin_cache):
    """Rotate q and k in place, half-split pairs (i, i + d/2), by the cached angles of each token's position."""
    half = q.shape[-1] // 2
    cos = cos_sin_cache[positions, :half][:, None, :]   # [T, 1, d/2] fp32: the products below are fp32
    sin = cos_sin_cache[positions, half:][:, None, :]
    for x in (q, k):
        x1, x2 = x[..., :half].clone(), x[..., half:].clone()
        x[..., :half] = x1 * cos - x2 * sin
        x[..., half:] = x2 * cos + x1 * sin
    return q, k
