# expect: wrong_answer
# why: skips the integer GEMM: quantizes x and the weight (codes and scales are right) but computes
#      the output with a float matmul of the unquantized tensors, and makes up the accumulator by
#      dividing that output by the scales. The int32 accumulator is graded exactly: it is the sum of
#      the codes' products, not of the real values', and the two differ by the quantization error.
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
    y = xf @ wf.T
    unit = x_scales[:, None] * w_scales
    acc = torch.where(unit > 0, torch.round(y / unit), 0).to(torch.int32)
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
