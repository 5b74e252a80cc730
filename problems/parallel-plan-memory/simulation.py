"""A second reference: the model built, not counted. Every tensor of every layer is made on the meta
device (shapes, no memory), cut over the tensor-parallel ranks as Megatron cuts it and placed on its
pipeline stage; each GPU's parameters are flattened and padded into ZeRO's dp shards; the 1F1B
schedule is run step by step to find how many micro-batches' activations each stage holds at once.
Every tensor-parallel rank of a stage is built, and they must agree."""
import torch

BYTES = {"weights": 2, "gradients": 2, "optimizer": 12}  # bf16 weight, bf16 gradient, fp32 master + m + v
SHARDED_FROM = {"weights": 3, "gradients": 2, "optimizer": 1}  # the ZeRO stage that shards each


def _meta(*shape):
    return torch.empty(*shape, device="meta")


def _split(tensor, dim, tp, rank):
    if dim is None:
        return tensor  # replicated on every tensor-parallel rank
    size = tensor.shape[dim]
    if size % tp:  # Megatron pads the vocabulary so that every rank gets the same rows
        pad = [0] * (2 * tensor.dim())
        pad[2 * (tensor.dim() - 1 - dim) + 1] = tp - size % tp
        tensor = torch.nn.functional.pad(tensor, pad)
    return tensor.chunk(tp, dim)[rank]


def _layer(h, f):
    return [(_meta(3 * h, h), 0), (_meta(h, h), 1), (_meta(f, h), 0), (_meta(h, f), 1), (_meta(h), None),
            (_meta(h), None)]


def _stage_tensors(model, stage, pp, layer_ids):
    h, V = model["hidden"], model["vocab"]
    tensors = [t for _ in layer_ids for t in _layer(h, model["ffn"])]
    if stage == 0:
        tensors.append((_meta(V, h), 0))  # the embedding, split along the vocabulary
    if stage == pp - 1:
        tensors.append((_meta(h), None))  # the final norm
        shares_embedding = model["tied_embeddings"] and pp == 1
        if not shares_embedding:  # its own output projection, or (tied, pp > 1) a copy of the embedding
            tensors.append((_meta(V, h), 0))
    return tensors


def _in_flight(pp, m):
    """Run 1F1B per stage (forwards as a warm-up, then one forward and one backward, then the rest of
    the backwards) and record the most micro-batches whose activations a stage holds at once."""
    most = []
    for stage in range(pp):
        warmup = min(pp - stage - 1, m)
        order = ["F"] * warmup
        for _ in range(m - warmup):
            order += ["F", "B"]
        order += ["B"] * warmup
        live = peak = 0
        for step in order:
            live += 1 if step == "F" else -1
            peak = max(peak, live)
        most.append(peak)
    return most


def plan_memory(model, plan, hbm_bytes):
    dp, tp, pp, zero, m = plan["dp"], plan["tp"], plan["pp"], plan["zero"], plan["micro_batches"]
    layer_ids = torch.arange(model["layers"]).tensor_split(pp)
    in_flight = _in_flight(pp, m)
    stages = []
    for stage in range(pp):
        ledgers = []
        for rank in range(tp):
            local = sum(_split(t, dim, tp, rank).numel() for t, dim in _stage_tensors(model, stage, pp,
                                                                                     layer_ids[stage]))
            flat = _meta(local)
            padded = torch.nn.functional.pad(flat, (0, (-local) % dp))
            shard = padded.chunk(dp)[0].numel() if local else 0
            ledger = {name: size * (shard if zero >= SHARDED_FROM[name] else local) for name, size in BYTES.items()}
            activation = torch.empty(model["activation_bytes"], dtype=torch.uint8, device="meta").chunk(tp)[rank]
            ledger["activations"] = in_flight[stage] * len(layer_ids[stage]) * activation.numel()
            ledger["total"] = sum(ledger.values())
            ledgers.append(ledger)
        assert all(ledger == ledgers[0] for ledger in ledgers), "tensor-parallel ranks of a stage differ"
        stages.append(ledgers[0])
    peak = max(s["total"] for s in stages)
    return {"stages": stages, "peak_bytes": peak, "fits": peak <= hbm_bytes}
