# expect: memory_limit_exceeded
# why: forms the [out, in] update B @ A and applies it as one dense matrix (this used to be accepted): right on
#      every small case, but the largest case's B @ A (16 MiB) does not fit the 8 MiB the kata allows
import torch


def lora_forward(x: torch.Tensor, W: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                 scale: float) -> torch.Tensor:
    delta = B @ A
    return x @ W.T + scale * (x @ delta.T)
