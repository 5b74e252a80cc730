

def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    """Mean cross-entropy, as torch.nn.functional.cross_entropy(reduction="mean") defines it.

    logits: [N, C] float32 or float64, possibly as large as 1e4 in magnitude
    targets: [N] int64 class indices in [0, C), or ignore_index (those rows do not count)
    label_smoothing: eps in [0, 1]: the target distribution is (1 - eps) * one_hot + eps / C

    loss_i = (1 - eps) * (-log p[i, y_i]) + eps / C * sum_c (-log p[i, c]),  p = softmax(logits[i])
    Return the mean of loss_i over the rows whose target is not ignore_index, as a 0-d tensor in
    logits' dtype; NaN when every row is ignored (0 / 0, as torch gives).
    logits and targets must not be modified. F.cross_entropy and log_softmax are forbidden.
    """
    raise NotImplementedError
