"""A second reference: the tensors one layer stores for its backward pass, each built on the meta device
(its shape and dtype, no memory) and counted where it lives. Korthikanti et al. (section 4.1) list
them; tensor parallelism splits those inside the parallel region (heads, MLP columns) over t GPUs,
sequence parallelism splits the others along the sequence, and selective recomputation keeps none
of the attention-score tensors."""
import torch

HALF, MASK = torch.bfloat16, torch.bool  # 16-bit activations, 1-byte dropout masks


def activation_bytes_per_layer(seq_len, micro_batch, hidden, num_heads, tensor_parallel=1,
                               sequence_parallel=False, selective_recompute=False):
    s, b, h, a, t = seq_len, micro_batch, hidden, num_heads, tensor_parallel

    def tensor(*shape, dtype=HALF):
        return torch.empty(*shape, dtype=dtype, device="meta")

    # (tensor, where it lives): "outside" the tensor-parallel region, "inside" it, or "scores"
    # (inside, and the ones selective recomputation drops).
    stored = [
        (tensor(s, b, h), "outside"),                  # attention layernorm input
        (tensor(s, b, h), "outside"),                  # QKV projection input
        (tensor(b, a, s, h // a), "inside"),           # Q, for QK^T
        (tensor(b, a, s, h // a), "inside"),           # K, for QK^T
        (tensor(b, a, s, s), "scores"),                # softmax output
        (tensor(b, a, s, s, dtype=MASK), "scores"),    # its dropout mask
        (tensor(b, a, s, s), "scores"),                # dropout output, for the product with V
        (tensor(b, a, s, h // a), "inside"),           # V
        (tensor(s, b, h), "inside"),                   # output projection input
        (tensor(s, b, h, dtype=MASK), "outside"),      # attention dropout mask
        (tensor(s, b, h), "outside"),                  # MLP layernorm input
        (tensor(s, b, h), "outside"),                  # first linear input
        (tensor(s, b, 4 * h), "inside"),               # GeLU input
        (tensor(s, b, 4 * h), "inside"),               # second linear input
        (tensor(s, b, h, dtype=MASK), "outside"),      # MLP dropout mask
    ]
    total = 0.0
    for held, where in stored:
        if where == "scores" and selective_recompute:
            continue
        size = held.numel() * held.element_size()
        total += size / t if where != "outside" or sequence_parallel else size
    return total
