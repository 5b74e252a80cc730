# expect: wrong_answer
# why: a float64 GEMM in disguise: dequantizes both operands (code times scale) in float64, where the sums are
#      far more precise than float32, and rounds once at the store. The real number is the same, but not the
#      result the statement fixes, (float32(acc) * a_scale) * b_scale, rounded twice: many outputs differ in
#      their last bit
import torch
import triton
import triton.language as tl

BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 8


@triton.jit
def _int8_matmul_kernel(a_ptr, b_ptr, a_scales_ptr, b_scales_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                        stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
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
    a_scale = tl.load(a_scales_ptr + rm, mask=rm < M, other=0.0).to(tl.float64)
    b_scale = tl.load(b_scales_ptr + rn, mask=rn < N, other=0.0).to(tl.float64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float64)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        # Masked lanes read code 0: they add nothing to the integer sum.
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :].to(tl.int64) * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a.to(tl.float64) * a_scale[:, None], b.to(tl.float64) * b_scale[None, :])
    y = acc.to(tl.float32)
    c = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn
    tl.store(c, y, mask=(rm[:, None] < M) & (rn[None, :] < N))


def int8_matmul(a: torch.Tensor, b: torch.Tensor, a_scales: torch.Tensor, b_scales: torch.Tensor) -> torch.Tensor:
    """(float32(a @ b.T) * a_scales[:, None]) * b_scales[None, :]: a [M, K], b [N, K] int8 -> [M, N] fp32."""
    (M, K), (N, K2) = a.shape, b.shape
    if K != K2 or a_scales.shape != (M,) or b_scales.shape != (N,):
        raise ValueError(f"a [{M}, {K}], b [{N}, {K2}], a_scales {list(a_scales.shape)}, b_scales "
                         f"{list(b_scales.shape)}: want [M, K], [N, K], [M], [N]")
    block_m = min(128, max(16, triton.next_power_of_2(M)))
    bt = b.t()  # [K, N], a view: the kernel follows its strides
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, BLOCK_N),)
    _int8_matmul_kernel[grid](a, bt, a_scales, b_scales, c, M, N, K, a.stride(0), a.stride(1), bt.stride(0),
                              bt.stride(1), c.stride(0), c.stride(1), BLOCK_M=block_m, BLOCK_N=BLOCK_N,
                              BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=8 if block_m == 128 else 4, num_stages=3)
    return c
