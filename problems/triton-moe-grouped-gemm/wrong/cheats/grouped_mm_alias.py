# expect: forbidden
# why: torch's own grouped GEMM under another name: torch._grouped_mm takes the tokens, the experts' weights
#      and the offsets' ends and does the whole kata in one call (and launches no Triton kernel)
from torch import _grouped_mm as grouped


def grouped_gemm(x, weights, expert_offsets):
    return grouped(x, weights.transpose(1, 2), offs=expert_offsets[1:]).float()
