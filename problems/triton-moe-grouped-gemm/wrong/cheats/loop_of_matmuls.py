# expect: forbidden
# why: the reference's Python loop of per-expert matmuls, made to look like a kernel by a token Triton launch
#      that only zeroes the output: the GEMMs are eager torch's (`@` is torch.Tensor.__matmul__, forbidden
#      here), one launch and one synchronisation per expert, which is what a grouped GEMM exists to avoid
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 0.0, mask=offs < n)


def grouped_gemm(x, weights, expert_offsets):
    out = torch.empty(x.shape[0], weights.shape[1], device=x.device)
    _zero[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    bounds = expert_offsets.tolist()
    for e in range(weights.shape[0]):
        out[bounds[e]:bounds[e + 1]] = x[bounds[e]:bounds[e + 1]].float() @ weights[e].float().T
    return out
