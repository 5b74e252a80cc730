# expect: wrong_answer
# why: one scale for the whole activation tensor (per-tensor) instead of one per token: a token
#      with small values is quantized with the largest token's step and loses most of its codes
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
    scale = xf.abs().max() / 127
    x_scales = scale.expand(x.shape[0]).clone()
    x_codes = torch.round(xf / scale).to(torch.int8) if scale > 0 else torch.zeros_like(xf, dtype=torch.int8)
    w_codes, w_scales = _rows(wf)
    acc = x_codes.to(torch.int32) @ w_codes.to(torch.int32).T
    y = acc * x_scales[:, None] * w_scales
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
