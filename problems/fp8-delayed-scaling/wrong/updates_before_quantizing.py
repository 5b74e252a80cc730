# expect: wrong_answer
# why: records the step's amax and updates the scale before quantizing: the tensor then sets its own
#      scale (through the window), which needs a pass over it before the cast, the very pass delayed
#      scaling exists to avoid; the codes and scales differ from the recipe's
import torch

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def fp8_delayed_scaling(xs, fmt, history_len, margin, algo):
    dtype = FORMATS[fmt]
    fp8_max = torch.finfo(dtype).max  # 448 for e4m3, 57344 for e5m2
    scale = torch.tensor(1.0)
    history = torch.zeros(history_len)
    codes, scales, dequantized, saturated = [], [], [], []
    for x in xs:
        history = torch.cat([history[1:], x.abs().max().reshape(1)])
        amax = history.max() if algo == "max" else history[-1]
        if torch.isfinite(amax) and amax > 0:  # an empty or overflowing window keeps the old scale
            scale = fp8_max / amax / 2 ** margin
        scaled = x * scale
        saturated.append(int((scaled.abs() > fp8_max).sum()))
        q = scaled.clamp(-fp8_max, fp8_max).to(dtype)
        codes.append(q.view(torch.uint8))
        scales.append(scale)
        dequantized.append(q.float() / scale)
    return torch.stack(codes), torch.stack(scales), torch.stack(dequantized), saturated, history
