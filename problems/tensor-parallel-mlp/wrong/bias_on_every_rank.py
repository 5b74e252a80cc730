# expect: wrong_answer
# why: each rank adds fc2's bias to its partial output before the all-reduce, so the sum contains
#      b2 tp times; in a row-parallel layer the bias is added once, after the reduction (Megatron's
#      RowParallelLinear adds it after the all-reduce)
import torch.nn.functional as F


def tp_mlp_forward(x, w1, b1, w2, b2, tp):
    w1s, b1s, w2s = w1.tensor_split(tp, 0), b1.tensor_split(tp, 0), w2.tensor_split(tp, 1)
    partials = [F.gelu(x @ a.T + b) @ c.T + b2 for a, b, c in zip(w1s, b1s, w2s)]
    return sum(partials), partials
