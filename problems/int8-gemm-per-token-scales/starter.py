import torch


def w8a8_linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                smooth_alpha: float | None = None):
    """A linear layer y = x @ weight.T + bias run as an int8 GEMM (W8A8).

    x: [M, K] tokens (float32, float16 or bfloat16); weight: [N, K] (nn.Linear layout), same dtype;
    bias: [N] or None. Work in float32.
    smooth_alpha: None, or SmoothQuant's migration strength: per input channel j,
        s[j] = max_m |x[m, j]| ** alpha / max_n |weight[n, j]| ** (1 - alpha)   (1 where either max is 0),
        then x / s and weight * s are what get quantized.
    Per token (row of x) and per output channel (row of the weight): scale = max |row| / 127
    (0 for an all-zero row), codes = round(row / scale) (half to even), 0 where the scale is 0.
    The products of the codes are summed in an exact int32 accumulator.

    Returns (smooth [K] float32, x_codes [M, K] int8, x_scales [M] float32,
             w_codes [N, K] int8, w_scales [N] float32, acc [M, N] int32, y [M, N] in x.dtype).
    """
    raise NotImplementedError
