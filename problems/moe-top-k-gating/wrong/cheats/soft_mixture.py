# expect: wrong_answer
# why: the shortcut of not routing at all: every expert runs on every token and the outputs are mixed
#      by the router's probabilities (a dense "soft" mixture). No top-k, no slots, no drops: the
#      buffers and the output are not those of a sparse MoE layer
import torch


def moe_dispatch(x, router_logits, expert_weights, k, capacity_factor, aux_loss_coef, normalize_gates):
    T, E = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    capacity = max(1, int(capacity_factor * k * T / E))
    expert_inputs = x[:capacity].unsqueeze(0).expand(E, -1, -1).contiguous()
    if expert_inputs.shape[1] < capacity:
        expert_inputs = torch.cat([expert_inputs, x.new_zeros(E, capacity - T, x.shape[1])], dim=1)
    y = torch.einsum("te,ted->td", probs, torch.einsum("td,edo->teo", x, expert_weights))
    top_e = probs.topk(k, dim=-1).indices
    fraction = torch.bincount(top_e.flatten(), minlength=E).float() / (T * k)
    aux_loss = aux_loss_coef * E * (fraction * probs.mean(dim=0)).sum()
    return expert_inputs, y, torch.zeros(T, k, dtype=torch.bool), aux_loss
