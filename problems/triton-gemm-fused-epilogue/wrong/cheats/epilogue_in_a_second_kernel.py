# expect: forbidden
# why: the unfused layer, all in Triton: the GEMM kernel stores the [M, N] pre-activation, and a second kernel
#      reads it back to add the bias and apply the activation. Right numbers, but the pass over the largest
#      tensor that the epilogue exists to save is still there ([grading] launches_per_call = 1)
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K, BLOCK = 32, 32, 32, 1024


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, BLOCK_M: tl.constexpr,
          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
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
def _bias_act(c_ptr, bias_ptr, total, N, GELU: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < total
    y = tl.load(c_ptr + offs, mask=inside, other=0.0) + tl.load(bias_ptr + offs % N, mask=inside).to(tl.float32)
    if GELU:
        u = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        y = 0.5 * y * (2.0 - 2.0 / (1.0 + tl.exp(2.0 * u)))
    else:
        y = y / (1.0 + tl.exp(-y))
    tl.store(c_ptr + offs, y, mask=inside)


def linear_bias_act(x, weight, bias, activation):
    (M, K), N = x.shape, weight.shape[0]
    b = weight.t()
    c = torch.empty(M, N, dtype=torch.float32, device=x.device)
    _gemm[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, b, c, M, N, K, x.stride(0), x.stride(1),
                                                              b.stride(0), b.stride(1), BLOCK_M=BLOCK_M,
                                                              BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    _bias_act[(triton.cdiv(M * N, BLOCK),)](c, bias, M * N, N, GELU=activation == "gelu_tanh", BLOCK=BLOCK)
    return c
