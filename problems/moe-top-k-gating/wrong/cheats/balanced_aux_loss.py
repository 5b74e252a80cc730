# expect: wrong_answer
# why: routes, dispatches and combines correctly but returns the auxiliary loss's value for a perfectly
#      balanced router (the coefficient itself) instead of measuring the imbalance: the one number that
#      tells training the router is collapsing
import math

import torch


def moe_dispatch(x, router_logits, expert_weights, k, capacity_factor, aux_loss_coef, normalize_gates):
    T, E = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    top_p, top_e = probs.topk(k, dim=-1)
    gates = top_p / top_p.sum(dim=-1, keepdim=True) if normalize_gates else top_p
    capacity = max(1, math.floor(capacity_factor * k * T / E))
    expert_inputs = x.new_zeros(E, capacity, x.shape[1])
    slot = torch.full((T, k), -1)
    filled = [0] * E
    for j in range(k):
        for t in range(T):
            e = int(top_e[t, j])
            if filled[e] < capacity:
                slot[t, j] = filled[e]
                expert_inputs[e, filled[e]] = x[t]
                filled[e] += 1
    outputs = torch.bmm(expert_inputs, expert_weights)
    y = x.new_zeros(T, expert_weights.shape[2])
    for t in range(T):
        for j in range(k):
            if slot[t, j] >= 0:
                y[t] += gates[t, j] * outputs[top_e[t, j], slot[t, j]]
    return expert_inputs, y, slot < 0, torch.tensor(float(aux_loss_coef))
