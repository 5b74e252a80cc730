# expect: wrong_answer
# why: accumulates the weighted sum in bfloat16 (the gradients' dtype) and converts at the end:
#      bf16 keeps 8 significant bits, so every addition to a growing sum rounds away ~0.4% of it
#      and the errors pile up with the number of ranks
import torch


def dp_average_gradients(grads, token_counts):
    total = sum(token_counts)
    out = []
    for i in range(len(grads[0])):
        acc = torch.zeros(grads[0][i].shape, dtype=torch.bfloat16)
        for rank_grads, n in zip(grads, token_counts):
            if n > 0:
                acc = acc + rank_grads[i] * (n / total)
        out.append(acc.float())
    return out
