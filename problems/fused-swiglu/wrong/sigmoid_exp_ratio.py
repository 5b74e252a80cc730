# expect: wrong_answer
# why: writes sigmoid(g) as exp(g) / (1 + exp(g)): right for ordinary gates, but exp(g) overflows
#      fp32 to inf above g = 88.7, inf / inf is NaN, and the rows of large gates come out NaN
import torch


def fused_swiglu(gate, up):
    g = gate.float()
    e = torch.exp(g)
    return (g * (e / (1.0 + e)) * up.float()).to(torch.bfloat16)
