"""A second reference: the optimizer state built, not added up. The fp32 master copy of the weights
and Adam's two moments (shaped and typed like the master, as torch.optim.Adam allocates them) are
created on the meta device (shapes and dtypes, no memory) and their bytes counted."""
import torch


def adam_memory_bytes(num_params):
    weights = torch.empty(num_params, dtype=torch.bfloat16, device="meta")  # the model's: not counted
    master = weights.float()
    state = {"master": master, "exp_avg": torch.zeros_like(master), "exp_avg_sq": torch.zeros_like(master)}
    return sum(t.numel() * t.element_size() for t in state.values())
