# expect: forbidden
# why: the probabilities from the Tensor method `.softmax` and the log-sum-exp from `.logsumexp`, over the whole
#      score matrix (this used to be accepted); both methods carry tripwires
import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    S, D = q.shape[-2], q.shape[-1]
    s = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(D)
    if causal:
        s = s.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), float("-inf"))
    return (s.softmax(-1) @ v.float()).to(q.dtype), s.logsumexp(-1)
