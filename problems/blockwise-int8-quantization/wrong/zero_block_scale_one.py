# expect: wrong_answer
# why: stores scale 1 for an all-zero block (the convention of the Triton problem, which stores a
#      step), but here a zero block's scale is 0: the codes and the round trip agree, the scales do not
import torch


def blockwise_int8_quantize(x, block_size):
    flat = x.reshape(-1).float()
    n = flat.numel()
    nb = -(-n // block_size)
    padded = torch.zeros(nb * block_size)
    padded[:n] = flat
    blocks = padded.view(nb, block_size)
    scales = blocks.abs().amax(dim=1) / 127
    scales = torch.where(scales > 0, scales, 1.0)
    safe = scales
    q = torch.clamp(torch.round(blocks / safe[:, None]), -127, 127)
    deq = q * scales[:, None]
    return (q.to(torch.int8).view(-1)[:n].reshape(x.shape), scales,
            deq.view(-1)[:n].reshape(x.shape))
