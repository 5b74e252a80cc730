# expect: wrong_answer
# why: simulated ("fake") quantization: dequantizes the codes back to float32 and runs a float
#      GEMM, the way quantization-aware training emulates int8, then recovers the accumulator by
#      dividing by the scales. The output is close, but the accumulator is not the integers' sum:
#      with K = 4096 near-saturated codes, float32 rounding of the real-valued sums is off by
#      several units of the integer result, which an int32 accumulator never is.
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
    y = (x_codes.float() * x_scales[:, None]) @ (w_codes.float() * w_scales[:, None]).T
    unit = x_scales[:, None] * w_scales
    acc = torch.where(unit > 0, torch.round(y / unit), 0).to(torch.int32)
    if bias is not None:
        y = y + bias
    return smooth, x_codes, x_scales, w_codes, w_scales, acc, y.to(x.dtype)
