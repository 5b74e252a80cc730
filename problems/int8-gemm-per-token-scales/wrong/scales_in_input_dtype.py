# expect: wrong_answer
# why: computes the scales and x / scale in the inputs' own dtype: for bf16 and fp16 inputs the
#      scale is rounded to 8 or 11 bits and the quotients land on the wrong side of .5; widen to
#      float32 before any arithmetic
import torch


def _rows(t):
    scales = t.abs().amax(dim=1) / 127
    codes = torch.where(scales[:, None] > 0, torch.round(t / scales[:, None]), 0)
    return codes.to(torch.int8), scales.float()


def w8a8_linear(x, weight, bias=None, smooth_alpha=None):
    xf, wf = x, weight
    smooth = torch.ones(x.shape[1])
    if smooth_alpha is not None:
        ax, aw = xf.abs().amax(dim=0), wf.abs().amax(dim=0)
        smooth = torch.where((ax > 0) & (aw > 0), ax.pow(smooth_alpha) / aw.pow(1 - smooth_alpha), 1.0)
        xf, wf = xf / smooth, wf * smooth
        smooth = smooth.float()
    x_codes, x_scales = _rows(xf)
    w_codes, w_scales = _rows(wf)
    acc = x_codes.to(torch.int32) @ w_codes.to(torch.int32).T
    y = acc * x_scales[:, None] * w_scales
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
