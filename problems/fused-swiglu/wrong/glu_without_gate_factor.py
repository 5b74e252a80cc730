# expect: wrong_answer
# why: computes sigmoid(gate) * up, the original GLU, instead of silu(gate) * up = gate *
#      sigmoid(gate) * up: the factor gate is missing
import torch


def fused_swiglu(gate, up):
    return (torch.sigmoid(gate.float()) * up.float()).to(torch.bfloat16)
