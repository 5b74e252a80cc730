# expect: wrong_answer
# why: averages the ranks' gradients with equal weights (what DDP's all-reduce + divide by world
#      size does): right only when every rank has the same number of tokens; otherwise a token on
#      a short rank counts more than a token on a long one
import torch


def dp_average_gradients(grads, token_counts):
    W = len(grads)
    out = []
    for i in range(len(grads[0])):
        acc = torch.zeros(grads[0][i].shape, dtype=torch.float32)
        for r in range(W):
            acc = acc + grads[r][i].float()
        out.append(acc / W)
    return out
