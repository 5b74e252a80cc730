# expect: wrong_answer
# why: always uses the raw probability as the gate; with normalize_gates (Mixtral) the k chosen
#      probabilities are renormalised to sum to 1
import math

import torch


def moe_dispatch(x, router_logits, expert_weights, k, capacity_factor, aux_loss_coef, normalize_gates):
    T, E = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)  # the router's softmax in float32, whatever the logits
    top_p, top_e = probs.topk(k, dim=-1)  # [T, k], the most probable expert first
    gates = top_p
    capacity = max(1, math.floor(capacity_factor * k * T / E))
    expert_inputs = x.new_zeros(E, capacity, x.shape[1])
    slot = torch.full((T, k), -1)
    filled = [0] * E
    for j in range(k):  # every token's first choice is placed before any token's second choice
        for t in range(T):
            e = int(top_e[t, j])
            if filled[e] < capacity:
                slot[t, j] = filled[e]
                expert_inputs[e, filled[e]] = x[t]
                filled[e] += 1
    expert_outputs = torch.bmm(expert_inputs, expert_weights)  # each expert runs on its own buffer only
    y = x.new_zeros(T, expert_weights.shape[2])
    for t in range(T):
        for j in range(k):
            if slot[t, j] >= 0:
                y[t] += gates[t, j] * expert_outputs[top_e[t, j], slot[t, j]]
    # Switch Transformer's load-balancing loss, over the assignments made before capacity drops any.
    fraction = torch.bincount(top_e.flatten(), minlength=E) / (T * k)  # true division: float32
    mean_prob = probs.mean(dim=0)
    aux_loss = aux_loss_coef * E * (fraction * mean_prob).sum()
    return expert_inputs, y, slot < 0, aux_loss
