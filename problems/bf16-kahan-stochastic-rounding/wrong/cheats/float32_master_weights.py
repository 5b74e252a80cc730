# expect: wrong_answer
# why: skips both methods: keeps a float32 master copy of the weights, adds every update to it and
#      reports its bf16 rounding. It is the usual mixed-precision recipe, and it costs 4 more bytes
#      per parameter, the memory that Kahan summation (a 2-byte buffer) and stochastic rounding
#      (no buffer) exist to save; its trajectory is neither method's
import torch


def bf16_updates(weight, updates, method, random_bits=None):
    master = weight.float()
    trajectory = [weight.clone()]
    for update in updates:
        master = master + update
        trajectory.append(master.to(torch.bfloat16))
    comp = (master - trajectory[-1].float()).to(torch.bfloat16) if method == "kahan" else torch.zeros_like(weight)
    return torch.stack(trajectory), comp
