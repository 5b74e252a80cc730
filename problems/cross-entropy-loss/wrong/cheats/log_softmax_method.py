# expect: forbidden
# why: the log-probabilities from the Tensor method `.log_softmax`, which no static check can tell from another
#      method (this used to be accepted); torch.Tensor.log_softmax carries a tripwire
def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    logp = logits.log_softmax(dim=1)
    kept = targets != ignore_index
    nll = -logp[kept].gather(1, targets[kept][:, None]).squeeze(1)
    loss = (1 - label_smoothing) * nll + label_smoothing * -logp[kept].mean(dim=1)
    return loss.sum() / kept.sum()
