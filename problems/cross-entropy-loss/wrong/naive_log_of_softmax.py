# expect: wrong_answer
# why: takes log(exp(z) / sum(exp(z))) without subtracting the row max: right for ordinary
#      logits, but exp(1e4) overflows to inf and the loss becomes NaN
import torch


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    n, c = logits.shape
    e = torch.exp(logits)
    logp = torch.log(e / e.sum(dim=1, keepdim=True))
    keep = targets != ignore_index
    safe = torch.where(keep, targets, 0)
    nll = -logp.gather(1, safe[:, None]).squeeze(1)
    smooth = -logp.sum(dim=1) / c
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    loss = torch.where(keep, loss, torch.zeros((), dtype=logits.dtype))
    return loss.sum() / keep.sum()
