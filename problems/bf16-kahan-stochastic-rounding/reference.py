import torch

BF16 = torch.bfloat16


def _stochastic_round(x, bits):
    # bits (in [0, 2**16)) are added below bf16's last bit of x's float32 pattern and the bits bf16
    # drops are cleared: the carry reaches bf16's last bit with probability (distance from the value
    # below) / (the step between the two).
    return ((x.view(torch.int32) + bits) & -65536).view(torch.float32).to(BF16)


def bf16_updates(weight, updates, method, random_bits=None):
    w = weight.clone()
    comp = torch.zeros_like(weight)  # Kahan's buffer: the updates the weight has not absorbed yet
    trajectory = [w]
    for step, update in enumerate(updates):
        if method == "nearest":
            w = (w + update).to(BF16)
        elif method == "kahan":
            comp = (comp + update).to(BF16)
            new = w + comp  # bf16 + bf16: computed in float32, rounded once
            comp = (comp + (w.float() - new)).to(BF16)
            w = new
        else:
            w = _stochastic_round(w + update, random_bits[step])
        trajectory.append(w)
    return torch.stack(trajectory), comp
