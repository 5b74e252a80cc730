"""The GEMM kernels of triton-moe-grouped-gemm, triton-gemm-fused-epilogue and triton-int8-matmul-scaled against
their problems' references: on a GPU when there is one, else through the Triton interpreter on the CPU, on every
correctness case and a few fresh ones; and compiled for Hopper without a GPU, which the interpreter cannot stand
in for."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch
from kernel_katas import CUDA, DEVICE, kata, on_device  # first: it chooses the interpreter before a kernel is imported

# isort: split
from infrakata.core.grading.compare import compare
from infrakata.core.grading.runner import tolerance_of
from infrakata.kernels.grouped_gemm import grouped_gemm
from infrakata.kernels.int8_matmul import int8_matmul
from infrakata.kernels.linear_epilogue import linear_bias_act

# The fused epilogue's outlier inputs overflow exp to inf on purpose: that is the case its tanh must survive.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in exp:RuntimeWarning")
KERNELS = {
    "triton-moe-grouped-gemm": grouped_gemm,
    "triton-gemm-fused-epilogue": linear_bias_act,
    "triton-int8-matmul-scaled": int8_matmul,
}



@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_on_every_case(slug):
    problem, cases, reference = kata(slug)
    for case in cases.cases() + [cases.fresh(seed) for seed in (1, 2, 3)]:
        args = on_device(case["args"])
        result = compare(KERNELS[slug](*args), reference(*args), tolerance_of(problem))
        assert result.ok, f"{case.get('name', 'fresh')}: {result.message}"


def test_grouped_gemm_writes_each_row_with_its_own_experts_weight():
    """Experts with no tokens at the ends and in the middle, and boundaries inside a row tile: every row must be
    its own expert's product, checked row by row against a loop that knows nothing of tiles."""
    counts = [0, 3, 0, 61, 2, 0]
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(sum(counts), 24, generator=gen).half()
    weights = torch.randn(len(counts), 40, 24, generator=gen).half()
    offsets = torch.tensor([0] + torch.tensor(counts).cumsum(0).tolist(), dtype=torch.int32)
    out = grouped_gemm(*on_device((x, weights, offsets))).cpu()
    expert_of_row = torch.repeat_interleave(torch.arange(len(counts)), torch.tensor(counts))
    for row, expert in enumerate(expert_of_row.tolist()):
        want = (x[row].float()[None, :] * weights[expert].float()).sum(dim=1)
        assert torch.allclose(out[row], want, atol=1e-3, rtol=1e-4), (row, expert)


def test_int8_matmul_is_the_exact_integer_sum_then_the_fixed_epilogue():
    """Against int64 sums on the CPU, an independent exact reference: codes at -128 and 127, sums past 2**24."""
    _, cases, _ = kata("triton-int8-matmul-scaled")
    a, b, a_scales, b_scales = cases.make_inputs(9, 20, 1500, seed=7)
    a[0], b[0] = -128, -128  # the largest product, 2**14, in every term of out[0, 0]
    a[1], b[1] = 127, 127
    acc = a.long() @ b.long().T
    assert acc[0, 0] == 1500 * 2 ** 14 > 2 ** 24
    want = acc.float() * a_scales[:, None] * b_scales[None, :]
    assert torch.equal(int8_matmul(*on_device((a, b, a_scales, b_scales))).cpu(), want)


def test_fused_epilogue_survives_pre_activations_past_exp_overflow():
    """Pre-activations of +-200: exp(2u) and exp(-y) overflow fp32, and GELU and SiLU must still give y or 0."""
    x = torch.tensor([[1.0], [-1.0]], dtype=torch.float16)
    weight = torch.tensor([[200.0]], dtype=torch.float16)
    bias = torch.zeros(1, dtype=torch.float16)
    for activation in ("gelu_tanh", "silu"):
        out = linear_bias_act(*on_device((x, weight, bias, activation))).cpu()
        assert out[0, 0] == 200.0 and out[1, 0] == 0.0, (activation, out)


# Each kernel's signature as a launch with the problem's inputs specialises it (the int8 kernel at a timed shape's
# tiles and at the smallest, which small M and N get).
_INT8 = dict(a_ptr="*i8", b_ptr="*i8", a_scales_ptr="*fp32", b_scales_ptr="*fp32", c_ptr="*fp32", M="i32", N="i32",
             K="i32", stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32", stride_cm="i32",
             stride_cn="i32", BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr", GROUP_M="constexpr")
SIGNATURES = [
    ("grouped_gemm._grouped_gemm_kernel",
     dict(x_ptr="*fp16", w_ptr="*fp16", out_ptr="*fp32", tile_expert_ptr="*i64", tile_row_ptr="*i64",
          offsets_ptr="*i64", N="i32", K="i32", stride_xm="i32", stride_xk="i32", stride_we="i32", stride_wn="i32",
          stride_wk="i32", stride_om="i32", stride_on="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
          BLOCK_K="constexpr"), {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}),
    ("linear_epilogue._linear_act_kernel",
     dict(a_ptr="*fp16", b_ptr="*fp16", bias_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32", K="i32",
          stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32", stride_cm="i32", stride_cn="i32",
          ACTIVATION="constexpr", BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr",
          GROUP_M="constexpr"), {"ACTIVATION": 0, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}),
    ("int8_matmul._int8_matmul_kernel", _INT8, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}),
    ("int8_matmul._int8_matmul_kernel", _INT8, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32, "GROUP_M": 8}),
]


@pytest.mark.skipif(CUDA, reason="on a GPU every launch compiles them")
def test_kernels_compile_for_hopper_and_ampere_without_a_gpu(tmp_path):
    """The interpreter runs what a GPU compiler refuses (a global that is no constexpr, for one). Compile each
    kernel for sm_90 and sm_80 in a process without the interpreter, with the default floating-point fusion: the
    int8 kernel's result is graded bit for bit, so its epilogue must hold no fused multiply-add."""
    program = textwrap.dedent(f"""
        import importlib, triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        for name, signature, constexprs in {SIGNATURES!r}:
            module, kernel = name.rsplit(".", 1)
            fn = getattr(importlib.import_module("infrakata.kernels." + module), kernel)
            for arch in (90, 80):
                compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs),
                                          target=GPUTarget("cuda", arch, 32))
                print(name, arch, "cubin", len(compiled.asm["cubin"]), "fma", compiled.asm["ptx"].count("fma.rn.f32"))
                assert "int8" not in name or "fma.rn.f32" not in compiled.asm["ptx"], name
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"TRITON_CACHE_DIR": str(tmp_path),
                                                                              "TRITON_DEFAULT_FP_FUSION": "1"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=480)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count(" cubin ") == 2 * len(SIGNATURES)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_at_a_timed_shape_on_cuda(slug):
    problem, cases, reference = kata(slug)
    shape = min(problem.benchmark.shapes, key=lambda s: cases.work(*s))
    args = cases.make_inputs(*shape, seed=100, device=DEVICE)
    result = compare(KERNELS[slug](*args), reference(*args), tolerance_of(problem))
    assert result.ok, result.message
