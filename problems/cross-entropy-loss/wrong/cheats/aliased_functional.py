# expect: forbidden
# why: torch's cross-entropy through the functional module under another name: the static check looks for
#      `F.cross_entropy` and `torch.nn.functional.cross_entropy`, not `nnf.cross_entropy` (this used to be
#      accepted); the tripwire is on the function, whatever the module is called
import torch.nn.functional as nnf


def cross_entropy_loss(logits, targets, ignore_index=-100, label_smoothing=0.0):
    return nnf.cross_entropy(logits, targets, ignore_index=ignore_index, label_smoothing=label_smoothing)
