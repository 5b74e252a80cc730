import torch


def moe_dispatch(x: torch.Tensor, router_logits: torch.Tensor, expert_weights: torch.Tensor, k: int,
                 capacity_factor: float, aux_loss_coef: float, normalize_gates: bool):
    """Top-k routing with a capacity per expert, the dispatched buffers, the combined output and the
    load-balancing loss.

    x: [T, d] float32; router_logits: [T, E] (float32 or bf16); expert_weights: [E, d, d_out] float32.
    Return (expert_inputs [E, capacity, d], y [T, d_out], dropped [T, k] bool, aux_loss 0-dim float32).
    """
    raise NotImplementedError
