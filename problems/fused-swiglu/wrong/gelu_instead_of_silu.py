# expect: wrong_answer
# why: uses GELU (GeGLU) instead of SiLU: the two activations agree in shape, not in value
#      (gelu(1) = 0.841, silu(1) = 0.731)
import torch


def fused_swiglu(gate, up):
    return (torch.nn.functional.gelu(gate.float()) * up.float()).to(torch.bfloat16)
