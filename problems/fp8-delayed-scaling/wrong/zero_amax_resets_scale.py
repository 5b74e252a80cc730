# expect: wrong_answer
# why: resets the scale to 1.0 when the window's amax is 0 or not finite; the recipe keeps the last
#      good scale, so that one empty or overflowing step does not throw away the calibration
import torch

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def fp8_delayed_scaling(xs, fmt, history_len, margin, algo):
    dtype = FORMATS[fmt]
    fp8_max = torch.finfo(dtype).max  # 448 for e4m3, 57344 for e5m2
    scale = torch.tensor(1.0)
    history = torch.zeros(history_len)
    codes, scales, dequantized, saturated = [], [], [], []
    for x in xs:
        # Quantize with the scale the previous steps chose (delayed): saturate, then round to fp8.
        scaled = x * scale
        saturated.append(int((scaled.abs() > fp8_max).sum()))
        q = scaled.clamp(-fp8_max, fp8_max).to(dtype)
        codes.append(q.view(torch.uint8))
        scales.append(scale)
        dequantized.append(q.float() / scale)
        # Then record this step's amax and choose the next step's scale from the history.
        history = torch.cat([history[1:], x.abs().max().reshape(1)])
        amax = history.max() if algo == "max" else history[-1]
        scale = fp8_max / amax / 2 ** margin if torch.isfinite(amax) and amax > 0 else torch.tensor(1.0)
    return torch.stack(codes), torch.stack(scales), torch.stack(dequantized), saturated, history
