# expect: wrong_answer
# why: splits every weight along dim 0, also the row-parallel ones (attention's output projection,
#      the MLP's second layer), whose shards hold a slice of the input features: dim 1
import torch


def stage_of(num_layers, pp):
    base, extra = divmod(num_layers, pp)
    out, start = [], 0
    for s in range(pp):
        n = base + (1 if s < extra else 0)
        out.append(list(range(start, start + n)))
        start += n
    return out


def splits(size, tp):
    base, extra = divmod(size, tp)
    out, start = [], 0
    for t in range(tp):
        n = base + (1 if t < extra else 0)
        out.append((start, start + n))
        start += n
    return out


def reshard_checkpoint(shards, split_dims, num_layers, src, dst):
    src_tp, src_pp = src
    dst_tp, dst_pp = dst
    loc = {}
    for s, layers in enumerate(stage_of(num_layers, src_pp)):
        for i, layer in enumerate(layers):
            loc[layer] = (s, i)
    result, moves = [], []
    for ds, layers in enumerate(stage_of(num_layers, dst_pp)):
        ranks = []
        for dt in range(dst_tp):
            d = {}
            for li, layer in enumerate(layers):
                s, si = loc[layer]
                for name, dim in split_dims.items():
                    dim = None if dim is None else 0
                    parts = [shards[s][t]["layers.%d.%s" % (si, name)] for t in range(src_tp)]
                    if dim is None:
                        d["layers.%d.%s" % (li, name)] = parts[0].clone()
                        moves.append((name, layer, s, 0, ds, dt, 0, parts[0].shape[0], 0, parts[0].shape[0]))
                        continue
                    full = sum(p.shape[dim] for p in parts)
                    b0, b1 = splits(full, dst_tp)[dt]
                    got = []
                    offset = 0
                    for t, p in enumerate(parts):
                        a0, a1 = offset, offset + p.shape[dim]
                        offset = a1
                        lo, hi = max(a0, b0), min(a1, b1)
                        if hi > lo:
                            got.append(p.narrow(dim, lo - a0, hi - lo))
                            moves.append((name, layer, s, t, ds, dt, lo - a0, hi - a0, lo - b0, hi - b0))
                    if got:
                        d["layers.%d.%s" % (li, name)] = torch.cat(got, dim)
                    else:
                        shape = list(parts[0].shape)
                        shape[dim] = 0
                        d["layers.%d.%s" % (li, name)] = torch.zeros(shape, dtype=parts[0].dtype)
            ranks.append(d)
        result.append(ranks)
    return result, moves
