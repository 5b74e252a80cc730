# expect: wrong_answer
# why: keeps in the buffer the change the weight made (new - old) instead of what it failed to take
#      (old - new, added to the buffer): the buffer then doubles the error instead of cancelling it
import torch


def sr(x32, r):
    bits = x32.view(torch.int32)
    bits = (bits + r) >> 16 << 16
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
            c = (c.to(torch.float32) + (w_new.to(torch.float32) - w.to(torch.float32))).to(torch.bfloat16)
            w = w_new
        elif method == "stochastic":
            w = sr(w.to(torch.float32) + u, random_bits[t])
        else:
            w = (w.to(torch.float32) + u).to(torch.bfloat16)
        out.append(w.clone())
    return torch.stack(out), c
