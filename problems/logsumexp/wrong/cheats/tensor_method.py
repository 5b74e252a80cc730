# expect: forbidden
# why: the Tensor method, which no static check can tell from any other method call (this used to be accepted);
#      torch.Tensor.logsumexp carries a tripwire
import torch


def logsumexp(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    return x.double().logsumexp(dim, keepdim=keepdim).to(x.dtype)
