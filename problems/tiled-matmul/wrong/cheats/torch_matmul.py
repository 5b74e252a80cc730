# expect: forbidden
# why: the shortcut of calling torch's own GEMM instead of writing the kernel: torch.nn.functional.linear
#      (like torch.matmul, torch.mm and torch.einsum) is forbidden in this problem
import torch


def linear(x, weight):
    return torch.nn.functional.linear(x.float(), weight.float())
