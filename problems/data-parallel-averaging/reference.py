import torch


def dp_average_gradients(grads: list, token_counts: list) -> list:
    # Each rank's gradient is the mean over its own tokens; the global token-mean gradient is
    # sum_r n_r * g_r / sum_r n_r. Accumulated in float32; ranks without tokens contribute
    # nothing (their "mean over 0 tokens" may be NaN and must not be touched).
    total = sum(token_counts)
    out = []
    for i in range(len(grads[0])):
        acc = torch.zeros(grads[0][i].shape, dtype=torch.float32)
        for rank_grads, n in zip(grads, token_counts, strict=False):
            if n > 0:
                acc = acc + rank_grads[i].to(torch.float32) * n
        out.append(acc / total if total > 0 else acc)
    return out
