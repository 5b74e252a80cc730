# expect: wrong_answer
# why: counts a value exactly on the format's max (448 in e4m3) as saturated: it is representable, and only
#      magnitudes above it are clamped
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
        saturated.append(int((scaled.abs() >= fp8_max).sum()))
        q = scaled.clamp(-fp8_max, fp8_max).to(dtype)
        codes.append(q.view(torch.uint8))
        scales.append(scale)
        dequantized.append(q.float() / scale)
        # Then record this step's amax and choose the next step's scale from the history.
        history = torch.cat([history[1:], x.abs().max().reshape(1)])
        amax = history.max() if algo == "max" else history[-1]
        if torch.isfinite(amax) and amax > 0:  # an empty or overflowing window keeps the old scale
            scale = fp8_max / amax / 2 ** margin
    return torch.stack(codes), torch.stack(scales), torch.stack(dequantized), saturated, history
