import torch.nn.functional as F


def tp_mlp_forward(x, w1, b1, w2, b2, tp: int):
    # Megatron-LM's MLP over tp ranks: fc1 column-parallel (rank i owns a slice of fc1's output
    # features: rows of w1, entries of b1), fc2 row-parallel (the matching columns of w2). Each
    # rank computes a full-size partial output; an all-reduce sums them; b2 is added once.
    w1_shards = w1.tensor_split(tp, dim=0)
    b1_shards = b1.tensor_split(tp, dim=0)
    w2_shards = w2.tensor_split(tp, dim=1)
    partials = [F.gelu(x @ a.T + b) @ c.T for a, b, c in zip(w1_shards, b1_shards, w2_shards, strict=False)]
    out = partials[0]
    for p in partials[1:]:
        out = out + p          # the all-reduce (sum)
    return out + b2, partials
