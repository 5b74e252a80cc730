# expect: forbidden
# why: the products are torch's (aten's mm, reached past the forbidden names, per expert on its slice of the tokens)
#      into a float buffer, and one Triton kernel only copies that buffer into the output: a float the kernel reads
#      that is no input and no kernel's write is refused (a value computed outside the kernels)
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=inside, other=0.0), mask=inside)


def grouped_gemm(x, weights, expert_offsets):
    T, (E, N, _) = x.shape[0], weights.shape
    products = torch.empty(T, N, dtype=torch.float32, device=x.device)
    bounds = expert_offsets.tolist()
    for e in range(E):
        if bounds[e + 1] > bounds[e]:
            torch.ops.aten.mm.out(x[bounds[e]:bounds[e + 1]].float(), weights[e].float().t(),
                                  out=products[bounds[e]:bounds[e + 1]])
    out = torch.empty(T, N, dtype=torch.float32, device=x.device)
    _copy_kernel[(triton.cdiv(T * N, BLOCK),)](products, out, T * N, BLOCK=BLOCK)
    return out
