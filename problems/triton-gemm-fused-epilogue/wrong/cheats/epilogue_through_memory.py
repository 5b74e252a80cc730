# expect: forbidden
# why: the unfused layer inside one launch: each program's GEMM stores its [BLOCK_M, BLOCK_N] product to an [M, N]
#      scratch buffer, reads it back, adds the bias, applies the activation and stores the result. Right numbers,
#      but the pre-activation goes through memory: the traffic rule refuses twice the bytes of the call's outputs
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32


@triton.jit
def _gemm_tile(a_ptr, b_ptr, c_ptr, rm, rn, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The plain product of one tile, stored to c (the pre-activation)."""
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _bias_act_tile(c_ptr, bias_ptr, out_ptr, rm, rn, M, N, GELU: tl.constexpr):
    """The epilogue of one tile: the pre-activation read back from c, the result stored to out."""
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    y = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    y = y + tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    if GELU:
        u = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        y = 0.5 * y * (2.0 - 2.0 / (1.0 + tl.exp(2.0 * u)))
    else:
        y = y / (1.0 + tl.exp(-y))
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], y, mask=mask)


@triton.jit
def _linear_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, out_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                   GELU: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    _gemm_tile(a_ptr, b_ptr, c_ptr, rm, rn, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, BLOCK_M, BLOCK_N,
               BLOCK_K)
    tl.debug_barrier()  # the tile's stores visible to every thread of the program before it reads them back
    _bias_act_tile(c_ptr, bias_ptr, out_ptr, rm, rn, M, N, GELU)


def linear_bias_act(x, weight, bias, activation):
    (M, K), N = x.shape, weight.shape[0]
    b = weight.t()
    pre = torch.zeros(M, N, dtype=torch.float32, device=x.device)  # the pre-activation, through memory
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    _linear_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](
        x, b, bias, pre, out, M, N, K, x.stride(0), x.stride(1), b.stride(0), b.stride(1),
        GELU=activation == "gelu_tanh", BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
