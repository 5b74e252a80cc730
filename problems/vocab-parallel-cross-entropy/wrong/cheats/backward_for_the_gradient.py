# expect: forbidden
# why: computes the messages and the loss from them as the ranks do, but takes the gradient shards from
#      autograd's backward pass through that computation instead of deriving softmax - one_hot: autograd
#      is off in this kata
import torch


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    n, vocab = logits.shape
    z = logits.float().detach().requires_grad_()
    per_rank = -(-vocab // (pad_to * tp)) * pad_to
    bounds = [(min(r * per_rank, vocab), min((r + 1) * per_rank, vocab)) for r in range(tp)]
    shards = [z[:, start:end] for start, end in bounds]
    max_sent = torch.stack([s.amax(dim=1) if s.shape[1] else torch.full((n,), float("-inf")) for s in shards])
    global_max = max_sent.amax(dim=0).detach()
    sum_exp_sent = torch.stack([torch.exp(s - global_max[:, None]).sum(dim=1) for s in shards])
    valid = target != ignore_index
    target_sent = torch.zeros(tp, n)
    for r, (start, end) in enumerate(bounds):
        mine = valid & (target >= start) & (target < end)
        target_sent[r, mine] = z[mine, target[mine]] - global_max[mine]
    loss = torch.where(valid, torch.log(sum_exp_sent.sum(dim=0)) - target_sent.sum(dim=0), 0.0)
    mean = loss.sum() / valid.sum()
    mean.backward()
    grads = [z.grad[:, start:end] for start, end in bounds]
    return (max_sent.detach(), sum_exp_sent.detach(), target_sent.detach(), loss.detach(), mean.detach(), grads)
