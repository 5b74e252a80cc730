# expect: wrong_answer
# why: splits fc1 by its INPUT features (columns of w1, slices of x) as in a row-parallel layer and
#      applies gelu to each rank's partial pre-activation before summing: gelu(a) + gelu(b) is not
#      gelu(a + b), which is exactly why Megatron makes fc1 column-parallel (no communication
#      before the nonlinearity)
import torch.nn.functional as F


def tp_mlp_forward(x, w1, b1, w2, b2, tp):
    w1s, xs, w2s = w1.tensor_split(tp, 1), x.tensor_split(tp, -1), w2.tensor_split(tp, 1)
    hiddens = [F.gelu(xi @ a.T + b1 / tp) for xi, a in zip(xs, w1s)]
    partials = [h @ w2.T for h in hiddens]
    return sum(partials) + b2, partials
