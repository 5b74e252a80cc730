# expect: forbidden
# why: eager torch does the whole layer (torch.addmm for the GEMM and the bias, then the activation) beside a
#      token Triton launch that only zeroes the output, so that a kernel was launched; addmm is forbidden
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 0.0, mask=offs < n)


def linear_bias_act(x, weight, bias, activation):
    out = torch.empty(x.shape[0], weight.shape[0], device=x.device)
    _zero[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    y = torch.addmm(bias.float(), x.float(), weight.float().T)
    return torch.nn.functional.gelu(y, approximate="tanh") if activation == "gelu_tanh" else torch.nn.functional.silu(y)
