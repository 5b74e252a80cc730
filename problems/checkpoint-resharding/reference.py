import torch


def _stages(num_layers, pp):
    """The global layer indices each pipeline stage holds: contiguous, the first stages one longer."""
    return [chunk.tolist() for chunk in torch.arange(num_layers).tensor_split(pp)]


def _ranges(size, tp):
    """[start, end) of each tensor-parallel rank's slice of a dimension of `size` (tensor_split's cut)."""
    return [(int(c[0]), int(c[-1]) + 1) if len(c) else (size, size) for c in torch.arange(size).tensor_split(tp)]


def reshard_checkpoint(shards, split_dims, num_layers, src, dst):
    (src_tp, src_pp), (dst_tp, dst_pp) = src, dst
    # Where each global layer lives in the source: its stage and its index inside the stage.
    home = {layer: (stage, local) for stage, layers in enumerate(_stages(num_layers, src_pp))
            for local, layer in enumerate(layers)}
    new_shards, transfers = [], []
    for dst_stage, layers in enumerate(_stages(num_layers, dst_pp)):
        row = []
        for dst_rank in range(dst_tp):
            held = {}
            for local, layer in enumerate(layers):
                stage, src_local = home[layer]
                for name, dim in split_dims.items():
                    source = [shards[stage][t][f"layers.{src_local}.{name}"] for t in range(src_tp)]
                    if dim is None:  # replicated: copied whole from TP rank 0
                        held[f"layers.{local}.{name}"] = source[0].clone()
                        size = source[0].shape[0]
                        transfers.append((name, layer, stage, 0, dst_stage, dst_rank, 0, size, 0, size))
                        continue
                    size = sum(s.shape[dim] for s in source)
                    lo_dst, hi_dst = _ranges(size, dst_tp)[dst_rank]
                    pieces = [source[0].narrow(dim, 0, 0)]
                    for t, (lo_src, hi_src) in enumerate(_ranges(size, src_tp)):
                        lo, hi = max(lo_src, lo_dst), min(hi_src, hi_dst)
                        if lo < hi:  # the part of source rank t's slice that destination rank needs
                            pieces.append(source[t].narrow(dim, lo - lo_src, hi - lo))
                            transfers.append((name, layer, stage, t, dst_stage, dst_rank,
                                              lo - lo_src, hi - lo_src, lo - lo_dst, hi - lo_dst))
                    held[f"layers.{local}.{name}"] = torch.cat(pieces, dim)
            row.append(held)
        new_shards.append(row)
    return new_shards, transfers
