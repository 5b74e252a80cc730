# expect: wrong_answer
# why: the shortcut of conversion scripts that require one TP degree to divide the other: each
#      destination rank reads from the one source rank whose slice contains the start of its own,
#      and narrows or concatenates whole neighbours. With TP 2 -> 4 or 4 -> 2 that is right; with
#      TP 3 -> 2 (or uneven slices) a destination slice straddles two source slices partially
import torch


def _ranges(size, tp):
    return [(int(c[0]), int(c[-1]) + 1) if len(c) else (size, size) for c in torch.arange(size).tensor_split(tp)]


def reshard_checkpoint(shards, split_dims, num_layers, src, dst):
    (src_tp, src_pp), (dst_tp, dst_pp) = src, dst
    src_stages = [c.tolist() for c in torch.arange(num_layers).tensor_split(src_pp)]
    home = {layer: (s, i) for s, layers in enumerate(src_stages) for i, layer in enumerate(layers)}
    new_shards, transfers = [], []
    for ds, layers in enumerate(torch.arange(num_layers).tensor_split(dst_pp)):
        row = []
        for dt in range(dst_tp):
            held = {}
            for local, layer in enumerate(layers.tolist()):
                s, i = home[layer]
                for name, dim in split_dims.items():
                    parts = [shards[s][t][f"layers.{i}.{name}"] for t in range(src_tp)]
                    if dim is None:
                        held[f"layers.{local}.{name}"] = parts[0].clone()
                        transfers.append((name, layer, s, 0, ds, dt, 0, parts[0].shape[0], 0, parts[0].shape[0]))
                        continue
                    size = sum(p.shape[dim] for p in parts)
                    lo, hi = _ranges(size, dst_tp)[dt]
                    if dst_tp >= src_tp:  # narrow one source slice
                        t = dt * src_tp // dst_tp
                        a0 = _ranges(size, src_tp)[t][0]
                        piece = parts[t].narrow(dim, lo - a0, hi - lo)
                        transfers.append((name, layer, s, t, ds, dt, lo - a0, hi - a0, 0, hi - lo))
                    else:  # concatenate whole source slices
                        group = src_tp // dst_tp
                        piece = torch.cat(parts[dt * group:(dt + 1) * group], dim)
                        offset = 0
                        for t in range(dt * group, (dt + 1) * group):
                            n = parts[t].shape[dim]
                            transfers.append((name, layer, s, t, ds, dt, 0, n, offset, offset + n))
                            offset += n
                    held[f"layers.{local}.{name}"] = piece.clone()
            row.append(held)
        new_shards.append(row)
    return new_shards, transfers
