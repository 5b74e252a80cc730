import torch


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    """RMSNorm forward as in LLaMA, over the last dimension.

    x: [..., d] float32, float16 or bfloat16; weight: [d], x's dtype
    In float32 whatever x's dtype:
        rstd = 1 / sqrt(mean(x ** 2 over the last dim) + eps)
        normed = x * rstd
    then y = weight * normed.to(x.dtype).

    Returns the tuple (y, rstd): y of x's shape and dtype; rstd float32 of shape x.shape[:-1]
    (what a backward pass saves). No input may be modified.
    """
    raise NotImplementedError
