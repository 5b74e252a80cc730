# expect: wrong_answer
# why: the dense MLP on one device, which used to be accepted beside shard shapes computed on the side. Each
#      rank's partial output is now graded before the reduction, and the dense result split evenly over the
#      ranks is not what any rank computes (rank i's partial is gelu of its own hidden units times its columns)
import torch.nn.functional as F


def tp_mlp_forward(x, w1, b1, w2, b2, tp):
    hidden_out = F.gelu(x @ w1.T + b1) @ w2.T
    return hidden_out + b2, [hidden_out / tp for _ in range(tp)]
