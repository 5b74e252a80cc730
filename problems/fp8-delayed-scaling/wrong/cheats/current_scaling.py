# expect: wrong_answer
# why: the shortcut of scaling each tensor by its own amax (current, or just-in-time, scaling): nothing
#      saturates and the codes are as fine as they can be, but it needs the amax before the cast, an
#      extra pass over every tensor, which is what the delayed recipe's history replaces
import torch

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def fp8_delayed_scaling(xs, fmt, history_len, margin, algo):
    dtype = FORMATS[fmt]
    fp8_max = torch.finfo(dtype).max
    history = torch.zeros(history_len)
    codes, scales, dequantized, saturated = [], [], [], []
    for x in xs:
        amax = x.abs().max()
        scale = fp8_max / amax / 2 ** margin if torch.isfinite(amax) and amax > 0 else torch.tensor(1.0)
        scaled = x * scale
        saturated.append(int((scaled.abs() > fp8_max).sum()))
        q = scaled.clamp(-fp8_max, fp8_max).to(dtype)
        codes.append(q.view(torch.uint8))
        scales.append(scale)
        dequantized.append(q.float() / scale)
        history = torch.cat([history[1:], amax.reshape(1)])
    return torch.stack(codes), torch.stack(scales), torch.stack(dequantized), saturated, history
