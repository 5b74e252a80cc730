"""A second reference: the training state built as the statement describes it, on the meta device
(shapes and dtypes, no memory), and its bytes counted: weights and gradients in the training dtype,
an fp32 master copy beside 16-bit weights when asked, and Adam's moments shaped like the fp32
tensor the optimizer steps."""
import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def _bytes(tensor):
    return 0 if tensor is None else tensor.numel() * tensor.element_size()


def training_memory_breakdown(num_params, param_dtype="bf16", master_weights=True):
    weights = torch.empty(num_params, dtype=DTYPES[param_dtype], device="meta")
    gradients = torch.empty_like(weights)
    sixteen_bit = weights.dtype != torch.float32
    master = weights.float() if sixteen_bit and master_weights else None
    stepped = weights.float()  # Adam's moments live in fp32 whatever the weights are
    ledger = {"weights": _bytes(weights), "gradients": _bytes(gradients), "master_weights": _bytes(master),
              "adam_m": _bytes(torch.zeros_like(stepped)), "adam_v": _bytes(torch.zeros_like(stepped))}
    ledger["total"] = sum(ledger.values())
    return ledger
