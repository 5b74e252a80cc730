import torch


def lora_forward(x: torch.Tensor, W: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                 scale: float) -> torch.Tensor:
    """LoRA forward: y = x @ W.T + scale * (x @ A.T) @ B.T.

    x: [..., in_features] inputs (a single vector or any batch of them)
    W: [out_features, in_features] frozen base weight; must come back unchanged
    A: [r, in_features] down-projection
    B: [out_features, r] up-projection
    scale: float multiplier of the low-rank update (alpha / r)

    Returns a tensor of shape [..., out_features] with x's dtype.
    """
    raise NotImplementedError
