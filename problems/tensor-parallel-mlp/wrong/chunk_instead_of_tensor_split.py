# expect: wrong_answer
# why: shards with torch.chunk, which makes every chunk ceil(h / tp) long and may return fewer than
#      tp chunks: the output is right (the shards still cover h), but with h = 10 over 4 ranks the
#      shards are 3, 3, 3, 1 instead of 3, 3, 2, 2, so the ranks' partials differ, and with h = 3
#      over 5 ranks only 3 ranks exist
import torch.nn.functional as F


def tp_mlp_forward(x, w1, b1, w2, b2, tp):
    w1s, b1s, w2s = w1.chunk(tp, 0), b1.chunk(tp, 0), w2.chunk(tp, 1)
    partials = [F.gelu(x @ a.T + b) @ c.T for a, b, c in zip(w1s, b1s, w2s)]
    return sum(partials) + b2, partials
