# expect: runtime_error
# why: views the flat tensor as [-1, block_size] without padding: fine when block_size divides
#      numel, a RuntimeError when the last block is shorter
import torch


def blockwise_int8_quantize(x, block_size):
    flat = x.reshape(-1).float()
    n = flat.numel()
    nb = -(-n // block_size)
    blocks = flat.view(-1, block_size)
    scales = blocks.abs().amax(dim=1) / 127
    safe = torch.where(scales > 0, scales, 1.0)
    q = torch.clamp(torch.round(blocks / safe[:, None]), -127, 127)
    deq = q * scales[:, None]
    return (q.to(torch.int8).view(-1)[:n].reshape(x.shape), scales,
            deq.view(-1)[:n].reshape(x.shape))
