# expect: forbidden
# why: torch's own GEMM reached through an alias of torch.nn.functional (the static check does not see the
#      name; the tripwire on torch.nn.functional.linear does), beside a token kernel launch
import torch
import torch.nn.functional as nnf
import triton
import triton.language as tl

project = nnf.linear


@triton.jit
def _touch(out_ptr):
    tl.store(out_ptr, 0.0)


def split_k_linear(x, weight):
    out = project(x.float(), weight.float())
    _touch[(1,)](torch.empty(1, device=x.device))
    return out
