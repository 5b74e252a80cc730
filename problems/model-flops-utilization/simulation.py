"""A second reference: the model FLOPs of a training token counted on the operations instead of
written down. Matmuls run on the meta device (shapes, no compute) and are tallied at 2 FLOPs per
multiply-add: a linear layer forward and backward gives the FLOPs of one parameter for one token,
and one layer's attention (QK^T and AV for every head over seq_len tokens) forward and backward
gives the attention FLOPs per token. No recomputation is run: MFU counts useful work."""
import torch


def _matmul(a, b, tally):
    out = a @ b
    tally.append(2 * out.numel() * a.shape[-1])
    return out


def _forward_and_backward(a, b, tally):
    """y = a @ b, then the backward's two matmuls: the gradients for a and for b."""
    grad_y = torch.empty_like(_matmul(a, b, tally))
    _matmul(grad_y, b.transpose(-1, -2), tally)
    _matmul(a.transpose(-1, -2), grad_y, tally)


def _dense_per_parameter_token():
    tally = []
    w = torch.empty(16, 8, device="meta")
    _forward_and_backward(torch.empty(32, 16, device="meta"), w, tally)
    return sum(tally) // (32 * w.numel())


def _attention_per_layer_token(num_heads, head_dim, seq_len):
    tally = []
    q, k, v = (torch.empty(num_heads, seq_len, head_dim, device="meta") for _ in range(3))
    _forward_and_backward(q, k.transpose(-1, -2), tally)  # scores = Q K^T
    probabilities = torch.empty(num_heads, seq_len, seq_len, device="meta")  # softmax: no matmul FLOPs
    _forward_and_backward(probabilities, v, tally)  # out = P V
    return sum(tally) // seq_len


def model_flops_utilization(tokens_per_second, num_params, num_layers, num_heads, head_dim, seq_len,
                            peak_flops_per_chip, num_chips=1):
    per_token = (_dense_per_parameter_token() * num_params
                 + num_layers * _attention_per_layer_token(num_heads, head_dim, seq_len))
    return tokens_per_second * per_token / (peak_flops_per_chip * num_chips)
