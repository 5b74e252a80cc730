def reshard_checkpoint(shards: list, split_dims: dict, num_layers: int, src: tuple, dst: tuple):
    """Reshard a TP x PP checkpoint from layout src = (tp, pp) to layout dst = (tp, pp).

    shards[stage][tp_rank]: {"layers.<local>.<name>": tensor}, the layers of a stage numbered from 0
    split_dims[name]: 0 (column-parallel), 1 (row-parallel) or None (replicated)
    Layers go to stages as torch.arange(num_layers).tensor_split(pp) cuts them; a split tensor's
    TP slices are tensor_split(tp, dim) of the whole tensor.

    Returns (new_shards, transfers):
      new_shards[stage][tp_rank]: the checkpoint of the dst layout, same naming
      transfers: one tuple per contiguous slice copied from a source shard into a destination shard,
        (name, global_layer, src_stage, src_tp, dst_stage, dst_tp, src_start, src_end, dst_start, dst_end),
        ranges along the split dimension, local to each shard; a replicated tensor comes whole from
        TP rank 0. Ordered by destination stage, destination TP rank, layer, name (split_dims'
        order), source TP rank.
    """
    raise NotImplementedError
