# expect: wrong_answer
# why: spreads eps over the C - 1 wrong classes (target gets exactly 1 - eps), the textbook
#      variant; torch spreads eps / C over all C classes, so the target gets 1 - eps + eps / C
import torch


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    n, c = logits.shape
    m = logits.amax(dim=1, keepdim=True)
    logp = logits - m - torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True))
    keep = targets != ignore_index
    safe = torch.where(keep, targets, 0)
    nll = -logp.gather(1, safe[:, None]).squeeze(1)
    smooth = (-logp.sum(dim=1) - nll) / (c - 1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    loss = torch.where(keep, loss, torch.zeros((), dtype=logits.dtype))
    return loss.sum() / keep.sum()
