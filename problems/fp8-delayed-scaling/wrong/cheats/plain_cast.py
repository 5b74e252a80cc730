# expect: wrong_answer
# why: the shortcut of treating FP8 as just another dtype: cast the tensor as it is (a scale of 1).
#      Gradients of 1e-3 then fall into e4m3's subnormals or to zero and activations above 448
#      saturate; scaling is the whole technique
import torch

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def fp8_delayed_scaling(xs, fmt, history_len, margin, algo):
    dtype = FORMATS[fmt]
    fp8_max = torch.finfo(dtype).max
    q = xs.clamp(-fp8_max, fp8_max).to(dtype)
    amaxes = xs.abs().amax(dim=1)
    history = torch.cat([torch.zeros(history_len), amaxes])[-history_len:]
    saturated = [int(n) for n in (xs.abs() > fp8_max).sum(dim=1)]
    return q.view(torch.uint8), torch.ones(len(xs)), q.float(), saturated, history
