import torch


def linear_bias_act(x, weight, bias, activation):
    """activation(x @ weight.T + bias) from fp16 inputs, in fp32 throughout."""
    y = x.float() @ weight.float().T + bias  # the fp16 bias promotes exactly to fp32
    if activation == "gelu_tanh":
        return torch.nn.functional.gelu(y, approximate="tanh")
    return torch.nn.functional.silu(y)
