import torch


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    # log p = z - logsumexp(z): torch.logsumexp subtracts the row max, so logits of 1e4 stay finite.
    logp = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    kept = targets != ignore_index
    y = targets[kept]
    nll = -logp[kept].gather(1, y[:, None]).squeeze(1)  # -log p[i, y_i]
    uniform = -logp[kept].mean(dim=1)  # (1 / C) * sum_c -log p[i, c]
    loss = (1 - label_smoothing) * nll + label_smoothing * uniform
    return loss.sum() / kept.sum()  # 0 / 0 = NaN when every row is ignored, as torch gives
