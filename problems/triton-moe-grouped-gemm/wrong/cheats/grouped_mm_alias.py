# expect: forbidden
# why: torch's own grouped GEMM under another name: torch._grouped_mm takes the tokens, the experts' weights
#      and the ends of the offsets and does the whole kata in one call (right wherever its operands' strides
#      are multiples of 16 bytes), launching no Triton kernel
from torch import _grouped_mm as grouped


def grouped_gemm(x, weights, expert_offsets):
    return grouped(x.float(), weights.float().transpose(1, 2), offs=expert_offsets[1:])
