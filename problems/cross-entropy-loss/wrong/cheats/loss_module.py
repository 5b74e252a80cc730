# expect: forbidden
# why: the nn.Module form, built from an imported name: the class's constructor carries a tripwire
from torch.nn import CrossEntropyLoss as Loss


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    return Loss(ignore_index=ignore_index, label_smoothing=label_smoothing)(logits, targets)
