# expect: wrong_answer
# why: skips the plan: rebuilds every full tensor from all of its source shards and splits it again
#      for the new layout. The new shards are right, but every destination rank received every
#      source shard of every tensor it holds (TP times the bytes, and a full copy of the model in
#      some process's memory), and that is what it reports: whole shards, not the overlapping slices
import torch


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
                    full = parts[0] if dim is None else torch.cat(parts, dim)
                    mine = full.clone() if dim is None else full.tensor_split(dst_tp, dim)[dt].clone()
                    held[f"layers.{local}.{name}"] = mine
                    for t, part in enumerate(parts if dim is not None else parts[:1]):
                        n = part.shape[dim or 0]
                        transfers.append((name, layer, s, t, ds, dt, 0, n, 0, mine.shape[dim or 0]))
            row.append(held)
        new_shards.append(row)
    return new_shards, transfers
