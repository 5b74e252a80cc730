# expect: wrong_answer
# why: draws its own random bits (torch.randint) for stochastic rounding instead of using the ones
#      it is given: the rounding is still unbiased, but it is another run. Passing the randomness in
#      is what makes a stochastic-rounding step reproducible (and the same on every data-parallel
#      replica, whose weights must not drift apart)
import torch


def bf16_updates(weight, updates, method, random_bits=None):
    w = weight.clone()
    comp = torch.zeros_like(weight)
    trajectory = [w]
    for update in updates:
        if method == "nearest":
            w = (w + update).to(torch.bfloat16)
        elif method == "kahan":
            comp = (comp + update).to(torch.bfloat16)
            new = w + comp
            comp = (comp + (w.float() - new)).to(torch.bfloat16)
            w = new
        else:
            bits = torch.randint(0, 2**16, w.shape, dtype=torch.int32)
            w = (((w + update).view(torch.int32) + bits) & -65536).view(torch.float32).to(torch.bfloat16)
        trajectory.append(w)
    return torch.stack(trajectory), comp
