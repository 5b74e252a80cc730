# expect: forbidden
# why: torch's own logsumexp under another name: the static check sees no `torch.logsumexp` call (this used to be
#      accepted); the tripwire is on the function itself, so the alias trips on the line that calls it
import torch
from torch import logsumexp as lse


def logsumexp(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    return lse(x.double(), dim, keepdim=keepdim).to(x.dtype)
