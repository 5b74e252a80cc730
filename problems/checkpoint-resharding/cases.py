import random

import torch

# Megatron's split of a transformer layer: column-parallel (output features split, dim 0),
# row-parallel (input features split, dim 1), and replicated.
SPLIT_DIMS = {"attn.qkv.weight": 0, "attn.proj.weight": 1, "mlp.fc1.weight": 0, "mlp.fc1.bias": 0,
              "mlp.fc2.weight": 1, "norm.weight": None}


def _model(seed, num_layers, hidden, ffn):
    g = torch.Generator().manual_seed(seed)
    shapes = {"attn.qkv.weight": (3 * hidden, hidden), "attn.proj.weight": (hidden, hidden),
              "mlp.fc1.weight": (ffn, hidden), "mlp.fc1.bias": (ffn,), "mlp.fc2.weight": (hidden, ffn),
              "norm.weight": (hidden,)}
    return [{name: torch.randn(*shape, generator=g) for name, shape in shapes.items()} for _ in range(num_layers)]


def _shard(model, tp, pp):
    """The checkpoint of the layout (tp, pp): stage s, TP rank t -> {"layers.<local>.<name>": tensor}."""
    stages = torch.arange(len(model)).tensor_split(pp)
    shards = []
    for layers in stages:
        row = []
        for t in range(tp):
            row.append({f"layers.{local}.{name}": (tensor.clone() if SPLIT_DIMS[name] is None
                                                   else tensor.tensor_split(tp, SPLIT_DIMS[name])[t].clone())
                        for local, layer in enumerate(layers.tolist()) for name, tensor in model[layer].items()})
        shards.append(row)
    return shards


def _case(name, seed, num_layers, hidden, ffn, src, dst):
    model = _model(seed, num_layers, hidden, ffn)
    return {"name": name, "args": (_shard(model, *src), dict(SPLIT_DIMS), num_layers, src, dst)}


def cases():
    return [
        _case("example: 2 layers, hidden 4, TP 2 -> TP 1 (one stage)", 1, 2, 4, 8, (2, 1), (1, 1)),
        _case("TP 1 -> TP 2, PP 1 -> PP 2", 2, 4, 4, 8, (1, 1), (2, 2)),
        _case("TP 2 -> TP 4: every new slice inside one old one", 3, 2, 8, 16, (2, 1), (4, 1)),
        _case("TP 4 -> TP 2, PP 2 -> PP 1: layers renumbered", 4, 4, 8, 16, (4, 2), (2, 1)),
        _case("TP 3 -> TP 2 with uneven slices (hidden 10: 4, 3, 3 -> 5, 5)", 5, 2, 10, 20, (3, 1), (2, 1)),
        _case("PP 1 -> PP 3 with 4 layers (2, 1, 1), TP unchanged", 6, 4, 6, 12, (2, 1), (2, 3)),
        _case("PP 3 -> PP 2, TP 2 -> TP 3, 5 layers", 7, 5, 6, 12, (2, 3), (3, 2)),
        _case("TP 4 -> TP 3 with hidden 2: some slices empty", 8, 2, 2, 4, (4, 1), (3, 1)),
    ]


def fresh(seed):
    """A random model (1 to 6 layers, hidden 1 to 12, ffn 1 to 24: slices uneven or empty) resharded
    between two random layouts (TP 1 to 5, PP 1 to the number of layers; layers x TP x TP at most 30, as
    in the largest fixed case), the tensors' names listed in a random order."""
    rng = random.Random(seed)
    while True:
        num_layers = rng.randint(1, 6)
        src, dst = ((rng.randint(1, 5), rng.randint(1, num_layers)) for _ in range(2))
        if num_layers * src[0] * dst[0] <= 30:  # as the largest fixed case: grading a call watches every tensor
            break
    hidden, ffn = rng.randint(1, 12), rng.randint(1, 24)
    names = list(SPLIT_DIMS)
    rng.shuffle(names)
    model = _model(rng.getrandbits(62), num_layers, hidden, ffn)
    return {"args": (_shard(model, *src), {name: SPLIT_DIMS[name] for name in names}, num_layers, src, dst)}
