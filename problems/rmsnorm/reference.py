import torch


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    # Hugging Face's LlamaRMSNorm, step by step: statistics in float32, cast back, then weight.
    xf = x.to(torch.float32)
    mean_square = xf.pow(2).mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(mean_square + eps)
    y = weight * (xf * rstd).to(x.dtype)
    return y, rstd.squeeze(-1)
