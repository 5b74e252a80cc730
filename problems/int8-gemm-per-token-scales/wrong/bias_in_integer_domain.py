# expect: wrong_answer
# why: adds the bias to the int32 accumulator before the scales are applied, as if it were in
#      code units: the bias ends up multiplied by both scales (tiny), not added in real units
import torch


def _rows(t):
    scales = t.abs().amax(dim=1) / 127
    codes = torch.where(scales[:, None] > 0, torch.round(t / scales[:, None]), 0)
    return codes.to(torch.int8), scales


def w8a8_linear(x, weight, bias=None, smooth_alpha=None):
    xf, wf = x.float(), weight.float()
    smooth = torch.ones(x.shape[1])
    if smooth_alpha is not None:
        ax, aw = xf.abs().amax(dim=0), wf.abs().amax(dim=0)
        smooth = torch.where((ax > 0) & (aw > 0), ax.pow(smooth_alpha) / aw.pow(1 - smooth_alpha), 1.0)
        xf, wf = xf / smooth, wf * smooth
    x_codes, x_scales = _rows(xf)
    w_codes, w_scales = _rows(wf)
    acc = x_codes.to(torch.int32) @ w_codes.to(torch.int32).T
    total = acc if bias is None else acc + bias.float()
    y = total * x_scales[:, None] * w_scales
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
