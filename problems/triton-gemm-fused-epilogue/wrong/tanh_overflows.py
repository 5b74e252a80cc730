# expect: wrong_answer
# why: tanh written as (exp(2u) - 1) / (exp(2u) + 1): for pre-activations above about 10, exp(2u) overflows
#      fp32 to inf and inf / inf is NaN, so the outlier tokens' GELU comes out NaN instead of y
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 64, 8
ACTIVATIONS = ("gelu_tanh", "silu")  # the kernel's ACTIVATION is the index


@triton.jit
def _linear_act_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                       stride_cm, stride_cn, ACTIVATION: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    # Grouped ordering: consecutive programs sweep GROUP_M rows of tiles column by column.
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % rows_in_group
    pid_n = (pid % (GROUP_M * tiles_n)) // rows_in_group
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :].to(tl.int64) * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    # The epilogue, in fp32 registers: one bias per output column, then the activation.
    y = acc + tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    if ACTIVATION == 0:
        # GELU, tanh approximation.
        e = tl.exp(2.0 * 0.7978845608028654 * (y + 0.044715 * y * y * y))
        y = 0.5 * y * (1.0 + (e - 1.0) / (e + 1.0))
    else:
        y = y / (1.0 + tl.exp(-y))  # SiLU: y * sigmoid(y); exp(-y) = inf gives -0.0, the limit
    c = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn
    tl.store(c, y, mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear_bias_act(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, activation: str) -> torch.Tensor:
    """activation(x @ weight.T + bias): x [M, K], weight [N, K], bias [N] fp16 -> [M, N] fp32."""
    (M, K), (N, K2) = x.shape, weight.shape
    if K != K2 or bias.shape != (N,):
        raise ValueError(f"x [{M}, {K}], weight [{N}, {K2}] and bias {list(bias.shape)}: want [M, K], [N, K], [N]")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r}: one of {', '.join(ACTIVATIONS)}")
    b = weight.t()  # [K, N], a view: the kernel follows its strides
    c = torch.empty(M, N, dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    _linear_act_kernel[grid](x, b, bias, c, M, N, K, x.stride(0), x.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), ACTIVATION=ACTIVATIONS.index(activation), BLOCK_M=BLOCK_M,
                             BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=8, num_stages=3)
    return c
