# expect: wrong_answer
# why: the shortcut of routing without a capacity: every assignment is kept (buffers as long as the
#      busiest expert needs), nothing is dropped. It skips what a static-shape MoE must do; the
#      buffers have the wrong length and the dropped tokens come back with an output
import torch


def moe_dispatch(x, router_logits, expert_weights, k, capacity_factor, aux_loss_coef, normalize_gates):
    T, E = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    top_p, top_e = probs.topk(k, dim=-1)
    gates = top_p / top_p.sum(dim=-1, keepdim=True) if normalize_gates else top_p
    longest = int(torch.bincount(top_e.flatten(), minlength=E).max())
    expert_inputs = x.new_zeros(E, longest, x.shape[1])
    filled = [0] * E
    y = x.new_zeros(T, expert_weights.shape[2])
    for j in range(k):
        for t in range(T):
            e = int(top_e[t, j])
            expert_inputs[e, filled[e]] = x[t]
            filled[e] += 1
            y[t] += gates[t, j] * (x[t] @ expert_weights[e])
    fraction = torch.bincount(top_e.flatten(), minlength=E).float() / (T * k)
    aux_loss = aux_loss_coef * E * (fraction * probs.mean(dim=0)).sum()
    return expert_inputs, y, torch.zeros(T, k, dtype=torch.bool), aux_loss
