# expect: memory_limit_exceeded
# why: merges the adapter into a copy of W (W + scale * B @ A), leaving W itself unchanged: right everywhere
#      the memory allows, but it is the dense layer LoRA exists to avoid, and the largest case refuses it
import torch


def lora_forward(x: torch.Tensor, W: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                 scale: float) -> torch.Tensor:
    return x @ (W + scale * (B @ A)).T
