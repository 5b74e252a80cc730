# expect: forbidden
# why: launches a kernel that does nothing useful, so the call counts as a Triton launch, and lets torch
#      do the GEMM with the `@` operator: torch.Tensor.__matmul__ is forbidden in this problem
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(out_ptr):
    tl.store(out_ptr, 0.0)


def split_k_linear(x, weight):
    out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32, device=x.device)
    _touch[(1,)](out)
    return x.float() @ weight.float().T
