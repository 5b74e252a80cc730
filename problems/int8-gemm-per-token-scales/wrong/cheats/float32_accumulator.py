# expect: wrong_answer
# why: multiplies the int8 codes as float32 to use the float GEMM, then converts the sums to int32:
#      exact while every partial sum is below 2**24, but with K = 4096 codes near +-127 the sums
#      reach 4.8e7 and float32 rounds them (to multiples of 4); an int32 accumulator is exact
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
    acc = (x_codes.float() @ w_codes.float().T).to(torch.int32)
    y = acc * x_scales[:, None] * w_scales
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
