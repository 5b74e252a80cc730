"""A second reference: one layer's operations run on the meta device (shapes, no compute) over a
sequence of n_ctx tokens, each matmul tallied at 2 FLOPs per multiply-add, forward and backward (the
backward of a matmul is two: the gradients for each operand); the parameters are the layer's weight
matrices. Only what Kaplan's Table 1 counts is run: the QKV projection, the attention logits
against the n_ctx positions, the output projection and the feedforward."""
import torch


def _matmul(a, b, tally):
    out = a @ b
    tally.append(2 * out.numel() * a.shape[-1])
    return out


def _backward(a, b, grad_out, tally):
    _matmul(grad_out, b.T, tally)
    _matmul(a.T, grad_out, tally)


def _layer(d_model, n_ctx, d_ff, d_attn):
    """(weights, forward FLOPs, backward FLOPs) of one layer over n_ctx tokens."""
    weights = [torch.empty(*shape, device="meta")
               for shape in ((d_model, 3 * d_attn), (d_attn, d_model), (d_model, d_ff), (d_ff, d_model))]
    w_qkv, w_proj, w_up, w_down = weights
    forward, backward = [], []
    x = torch.empty(n_ctx, d_model, device="meta")
    qkv = _matmul(x, w_qkv, forward)
    q, k, v = qkv.split(d_attn, dim=-1)
    logits = _matmul(q, k.T, forward)  # each token against every position of the context
    # Kaplan counts no FLOPs for the weighted sum of the values: v goes to the projection as it is.
    projected = _matmul(v, w_proj, forward)
    hidden = _matmul(projected, w_up, forward)
    out = _matmul(hidden, w_down, forward)
    for a, b, result in ((hidden, w_down, out), (projected, w_up, hidden), (v, w_proj, projected),
                         (q, k.T, logits), (x, w_qkv, qkv)):
        _backward(a, b, torch.empty_like(result), backward)
    return weights, sum(forward), sum(backward)


def kaplan_flops_per_token(n_layer, d_model, n_ctx, d_ff=None, d_attn=None, recompute=False):
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    weights, forward, backward = _layer(d_model, n_ctx, d_ff, d_attn)
    params = n_layer * sum(w.numel() for w in weights)
    train = forward + backward + (forward if recompute else 0)  # recomputation runs the forward again
    return {"params": params, "forward": n_layer * forward // n_ctx, "train": n_layer * train // n_ctx}
