# expect: wrong_answer
# why: converts block / scale to int8 directly, which truncates toward zero instead of rounding
#      to nearest: codes are off by one for about half the values
import torch


def blockwise_int8_quantize(x, block_size):
    flat = x.reshape(-1).float()
    n = flat.numel()
    nb = -(-n // block_size)
    padded = torch.zeros(nb * block_size)
    padded[:n] = flat
    blocks = padded.view(nb, block_size)
    scales = blocks.abs().amax(dim=1) / 127
    safe = torch.where(scales > 0, scales, 1.0)
    q = torch.clamp(blocks / safe[:, None], -127, 127).to(torch.int8).float()
    deq = q * scales[:, None]
    return (q.to(torch.int8).view(-1)[:n].reshape(x.shape), scales,
            deq.view(-1)[:n].reshape(x.shape))
