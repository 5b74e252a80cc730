import torch


def fused_swiglu(gate, up):
    """silu(gate) * up, computed in fp32 and rounded once to bf16."""
    g = gate.float()
    return (g * torch.sigmoid(g) * up.float()).to(torch.bfloat16)
