# expect: wrong_answer
# why: applies silu to the up projection and multiplies by the gate: SwiGLU is not symmetric
#      in its two inputs (silu(gate) * up, as in Llama's MLP)
import torch


def fused_swiglu(gate, up):
    u = up.float()
    return (u * torch.sigmoid(u) * gate.float()).to(torch.bfloat16)
