# expect: wrong_answer
# why: zeroes the ignored rows but divides by N, not by the number of rows that count: the
#      loss shrinks by the ignored fraction (and is 0, not NaN, when every row is ignored)
import torch


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    n, c = logits.shape
    m = logits.amax(dim=1, keepdim=True)
    logp = logits - m - torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True))
    keep = targets != ignore_index
    safe = torch.where(keep, targets, 0)
    nll = -logp.gather(1, safe[:, None]).squeeze(1)
    smooth = -logp.sum(dim=1) / c
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    loss = torch.where(keep, loss, torch.zeros((), dtype=logits.dtype))
    return loss.sum() / n
