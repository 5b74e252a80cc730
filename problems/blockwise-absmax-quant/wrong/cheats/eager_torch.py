# expect: forbidden
# why: eager torch, the reference's own code (this used to be accepted): right on every case, but no Triton
#      kernel is launched, and a kernel is what this kata grades
import torch

BLOCK = 256


def blockwise_absmax_quant(x):
    """int8 codes with one absmax per block of 256, and their dequantised round trip."""
    n = x.numel()
    blocks = -(-n // BLOCK)
    padded = torch.zeros(blocks * BLOCK, dtype=torch.float32, device=x.device)
    padded[:n] = x  # zero padding leaves every block's absmax unchanged
    xb = padded.view(blocks, BLOCK)
    absmax = xb.abs().amax(dim=1)
    step = absmax * (1.0 / 127.0)  # one code step: absmax maps to 127
    step = torch.where(step > 0, step, 1.0)  # a block of zeros: codes 0 whatever the step
    codes = torch.round(xb / step[:, None])  # round half to even
    dequantized = codes * step[:, None]
    return codes.to(torch.int8).view(-1)[:n], absmax, dequantized.view(-1)[:n]
