# expect: wrong_answer
# why: skips both methods and adds each update to the bf16 weight with round-to-nearest, whatever
#      the method: an update smaller than half a bf16 step (2**-8 of the weight) is rounded away,
#      every step, and training stalls
import torch


def bf16_updates(weight, updates, method, random_bits=None):
    w = weight.clone()
    trajectory = [w]
    for update in updates:
        w = (w + update).to(torch.bfloat16)
        trajectory.append(w)
    return torch.stack(trajectory), torch.zeros_like(weight)
