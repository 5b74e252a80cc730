# expect: wrong_answer
# why: multiplies every rank's gradient by its token count, including ranks with 0 tokens, trusting
#      that 0 * g = 0; but a rank's mean loss over 0 tokens is 0 / 0 = NaN, and 0 * NaN = NaN
#      poisons the average (and 0 / 0 again when no rank has tokens)
import torch


def dp_average_gradients(grads, token_counts):
    total = sum(token_counts)
    out = []
    for i in range(len(grads[0])):
        acc = torch.zeros(grads[0][i].shape, dtype=torch.float32)
        for rank_grads, n in zip(grads, token_counts):
            acc = acc + rank_grads[i].float() * n
        out.append(acc / total)
    return out
