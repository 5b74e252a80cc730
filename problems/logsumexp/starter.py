import torch


def logsumexp(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    """log(sum(exp(x), dim)), computed stably, like torch.logsumexp (which you may not call).

    x: any shape, float16, bfloat16, float32 or float64; entries may be -inf or +inf (never NaN)
    dim: the dimension to reduce (may be negative); keepdim: keep it with size 1
    A slice whose entries are all -inf gives -inf (not NaN); a slice with a +inf entry gives
    +inf; an empty slice (x.shape[dim] == 0) gives -inf.
    Returns x's dtype; compute in float32 or float64. x must not be modified.
    """
    raise NotImplementedError
