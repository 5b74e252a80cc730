# expect: forbidden
# why: torch's own int8 GEMM under another name: torch._int_mm multiplies int8 matrices into int32 (cuBLASLt on
#      a GPU), and only the epilogue is left; the kernel is the exercise
import torch
from torch import _int_mm as int_gemm


def int8_matmul(a, b, a_scales, b_scales):
    acc = int_gemm(a, b.t().contiguous())
    return acc.to(torch.float32) * a_scales[:, None] * b_scales[None, :]
