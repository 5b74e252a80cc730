# expect: forbidden
# why: eager torch, the reference's own code (this used to be accepted): right on every case, but no Triton
#      kernel is launched, and a kernel is what this kata grades
import torch


def fused_swiglu(gate, up):
    """silu(gate) * up, computed in fp32 and rounded once to bf16."""
    g = gate.float()
    return (g * torch.sigmoid(g) * up.float()).to(torch.bfloat16)
