import torch


def _quantize_rows(t):
    # One absmax scale per row. A row of x is a token and a row of the weight an output channel:
    # both are constant along K, which is what lets the scales leave the integer dot product.
    scales = t.abs().amax(dim=1) / 127
    codes = torch.nan_to_num(torch.round(t / scales[:, None]))  # an all-zero row: 0 / 0, codes 0
    return codes.to(torch.int8), scales


def w8a8_linear(x, weight, bias=None, smooth_alpha=None):
    xf, wf = x.float(), weight.float()
    smooth = torch.ones(x.shape[1])
    if smooth_alpha is not None:
        # SmoothQuant: move each input channel's range from the activations into the weights.
        ax, aw = xf.abs().amax(dim=0), wf.abs().amax(dim=0)
        smooth = torch.where((ax > 0) & (aw > 0), ax.pow(smooth_alpha) / aw.pow(1 - smooth_alpha), 1.0)
        xf, wf = xf / smooth, wf * smooth
    x_codes, x_scales = _quantize_rows(xf)
    w_codes, w_scales = _quantize_rows(wf)
    acc = x_codes.to(torch.int32) @ w_codes.to(torch.int32).T  # exact: int8 products summed in int32
    y = acc * x_scales[:, None] * w_scales  # the epilogue, in float32
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
