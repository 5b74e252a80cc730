# expect: forbidden
# why: sends the three all-reduces' messages right, then takes the loss from log_softmax and nll_loss over
#      the whole vocabulary and the gradient shards from autograd's backward pass: neither the loss from
#      the reduced messages nor the gradient is derived. log_softmax is forbidden (as are nll_loss and
#      softmax), and autograd is off.
import torch
import torch.nn.functional as F


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    n, vocab = logits.shape
    z = logits.float()
    per_rank = -(-vocab // (pad_to * tp)) * pad_to
    bounds = [(min(r * per_rank, vocab), min((r + 1) * per_rank, vocab)) for r in range(tp)]
    shards = [z[:, start:end] for start, end in bounds]
    max_sent = torch.stack([s.amax(dim=1) if s.shape[1] else torch.full((n,), float("-inf")) for s in shards])
    global_max = max_sent.amax(dim=0)
    sum_exp_sent = torch.stack([torch.exp(s - global_max[:, None]).sum(dim=1) for s in shards])
    valid = target != ignore_index
    target_sent = torch.zeros(tp, n)
    for r, (start, end) in enumerate(bounds):
        mine = valid & (target >= start) & (target < end)
        target_sent[r, mine] = z[mine, target[mine]] - global_max[mine]
    leaf = z.detach().requires_grad_()
    loss = F.nll_loss(F.log_softmax(leaf, dim=1), target, ignore_index=ignore_index, reduction="none")
    mean = loss.sum() / valid.sum()
    mean.backward()
    grads = [leaf.grad[:, start:end] for start, end in bounds]
    return max_sent, sum_exp_sent, target_sent, loss.detach(), mean.detach(), grads
