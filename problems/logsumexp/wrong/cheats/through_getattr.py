# expect: forbidden
# why: the function looked up by a name built at run time: no static check can read it
import torch


def logsumexp(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    name = "".join(["log", "sum", "exp"])
    return getattr(torch, name)(x.double(), dim, keepdim=keepdim).to(x.dtype)
