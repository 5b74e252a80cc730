# expect: wrong_answer
# why: clears the low 16 bits without adding the random bits first: that truncates toward zero
#      every time, a biased rounding that loses every update smaller than a step, like nearest
import torch


def sr(x32, r):
    bits = x32.view(torch.int32)
    bits = bits >> 16 << 16
    return bits.view(torch.float32).to(torch.bfloat16)


def bf16_updates(weight, updates, method, random_bits=None):
    w = weight.clone()
    c = torch.zeros(weight.shape, dtype=torch.bfloat16)
    out = [w.clone()]
    for t in range(updates.shape[0]):
        u = updates[t]
        if method == "kahan":
            c = (c.to(torch.float32) + u).to(torch.bfloat16)
            w_new = (w.to(torch.float32) + c.to(torch.float32)).to(torch.bfloat16)
            c = (c.to(torch.float32) + (w.to(torch.float32) - w_new.to(torch.float32))).to(torch.bfloat16)
            w = w_new
        elif method == "stochastic":
            w = sr(w.to(torch.float32) + u, random_bits[t])
        else:
            w = (w.to(torch.float32) + u).to(torch.bfloat16)
        out.append(w.clone())
    return torch.stack(out), c
