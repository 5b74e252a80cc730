"""Our Triton kernels against the problems' references: on a GPU when there is one, else through
the Triton interpreter on the CPU, at the correctness shapes (the interpreter takes seconds per
million elements)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch
from kernel_katas import (  # first: it chooses the interpreter before a kernel is imported
    CATALOG,
    CUDA,
    DEVICE,
    kata,
    triton,
)

# isort: split
import triton.language as tl
from infrakata.core.grading.compare import compare
from infrakata.core.grading.runner import tolerance_of
from infrakata.kernels import adamw8bit
from infrakata.kernels.absmax_quant import blockwise_absmax_quant
from infrakata.kernels.adamw8bit import quantized_adamw_step
from infrakata.kernels.matmul import linear
from infrakata.kernels.rmsnorm import rmsnorm
from infrakata.kernels.softmax import softmax_rows

KERNELS = {
    "quantized-adamw-8bit": quantized_adamw_step,
    "fused-row-softmax": softmax_rows,
    "blockwise-absmax-quant": blockwise_absmax_quant,
    "fused-rmsnorm": rmsnorm,
    "tiled-matmul": linear,
}


def _inputs(cases, shape, seed):
    return cases.make_inputs(*shape, seed=seed, device=DEVICE)


@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_at_correctness_shapes(slug):
    problem, cases, reference = kata(slug)
    for index, shape in enumerate(problem.benchmark.correctness_shapes):
        args = _inputs(cases, shape, 10 + index)
        result = compare(KERNELS[slug](*args), reference(*args), tolerance_of(problem),
                         names=problem.grading.output_names)
        assert result.ok, f"{shape}: {result.message}"


def test_adamw_moments_are_bit_exact():
    """The moment codes must equal torch.bucketize's: one code off in a block already fails 4e-5.
    (The parameters may differ in a rare last bf16 bit on a GPU, where torch divides by a scalar
    through its reciprocal.)"""
    _, cases, reference = kata("quantized-adamw-8bit")
    for blocks, seed in ((7, 1), (13, 2)):
        args = _inputs(cases, (blocks,), seed)
        got, want = quantized_adamw_step(*args), reference(*args)
        for name, a, b in zip(("m", "v", "m_absmax", "v_absmax"), got[1:], want[1:], strict=False):
            assert a.dtype == b.dtype and torch.equal(a, b), name


@triton.jit
def _shipped_flags(qmap1_ptr, qmap2_ptr, out_ptr, inv_scale1, inv_scale2, RECIPROCAL: tl.constexpr):
    tl.store(out_ptr, adamw8bit._is_shipped_map(qmap1_ptr, inv_scale1, True, RECIPROCAL).to(tl.int32))
    tl.store(out_ptr + 1, adamw8bit._is_shipped_map(qmap2_ptr, inv_scale2, False, RECIPROCAL).to(tl.int32))


def _shipped(qmap1, qmap2, reciprocal: bool) -> list[int]:
    flags = torch.zeros(2, dtype=torch.int32, device=qmap1.device)
    _shipped_flags[(1,)](qmap1, qmap2, flags, adamw8bit.INV_127_5, adamw8bit.INV_255, RECIPROCAL=reciprocal)
    return flags.tolist()


def test_adamw_kernel_recognises_the_shipped_maps_as_each_device_builds_them():
    """The kernel computes the maps instead of reading them only where they are, bit for bit, the maps
    torch builds: with IEEE division on the CPU, through the divisor's fp32 reciprocal on CUDA."""
    *_, qmap1, qmap2, _ = _inputs(kata("quantized-adamw-8bit")[1], (1,), 0)
    on_device = DEVICE == "cuda"
    assert _shipped(qmap1, qmap2, reciprocal=on_device) == [1, 1]
    assert _shipped(qmap1, qmap2, reciprocal=not on_device) == [0, 0]  # 126 entries of each differ
    i = torch.arange(256, dtype=torch.float32, device=DEVICE)
    t = (i - 127.5) * torch.tensor(adamw8bit.INV_127_5, device=DEVICE)
    u = i * torch.tensor(adamw8bit.INV_255, device=DEVICE)
    assert _shipped(t.sign() * t.abs() ** 3, u ** 3, reciprocal=True) == [1, 1]


def test_adamw_kernel_reads_any_other_map_and_stays_bit_exact():
    """A map one ulp off the shipped one is not computed but read, entry by entry."""
    _, cases, reference = kata("quantized-adamw-8bit")
    args = list(_inputs(cases, (3,), 5))
    args[6] = args[6].clone()
    args[6][200] = torch.nextafter(args[6][200], torch.tensor(2.0, device=DEVICE))
    assert _shipped(args[6], args[7], reciprocal=DEVICE == "cuda") == [0, 1]
    got, want = quantized_adamw_step(*args), reference(*args)
    for a, b in zip(got[1:], want[1:], strict=False):
        assert torch.equal(a, b)


def test_adamw_kernel_edge_blocks_and_hyperparameters():
    """A block whose moment is all zero (absmax clamped, every c = 0), a block where every |c| = 1
    (the map's ends), and non-default hyperparameters at the first step."""
    _, cases, reference = kata("quantized-adamw-8bit")
    params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, _ = _inputs(cases, (4,), 3)
    grads[:2048] = 0
    m_absmax[0] = 0
    grads[2048:4096] = -0.5
    m_code[2048:4096] = 200
    args = (params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, 1)
    kwargs = dict(lr=3e-4, beta1=0.8, beta2=0.99, eps=1e-6, wd=0.1)
    got, want = quantized_adamw_step(*args, **kwargs), reference(*args, **kwargs)
    assert compare(got[0], want[0], tolerance_of(CATALOG.problems["quantized-adamw-8bit"])).ok
    for a, b in zip(got[1:], want[1:], strict=False):
        assert torch.equal(a, b)


def test_adamw_kernel_refuses_a_ragged_buffer():
    _, cases, _ = kata("quantized-adamw-8bit")
    params, *rest = _inputs(cases, (2,), 0)
    with pytest.raises(ValueError, match="2 blocks of 2048"):
        quantized_adamw_step(params[:4000], *rest)


def test_absmax_kernel_rounds_ties_to_even_and_zero_blocks_to_zero():
    _, cases, reference = kata("blockwise-absmax-quant")
    (x,) = _inputs(cases, (1000,), 4)
    codes, absmax, dequantized = blockwise_absmax_quant(x)
    assert codes[2:6].tolist() == [-126, -126, -124, -124]  # -126.5, -125.5, -124.5, -123.5 with step 1
    assert absmax[1] == 0 and not codes[256:512].any() and not dequantized[256:512].any()
    for got, want in zip((codes, absmax, dequantized), reference(x), strict=False):
        assert torch.equal(got, want)


# Each kernel's signature as Triton compiles it: what a launch with the problem's inputs specialises to.
SIGNATURES = {
    "adamw8bit._adamw8bit_kernel": (
        dict(params_ptr="*bf16", grads_ptr="*bf16", m_code_ptr="*u8", m_absmax_ptr="*fp32", v_code_ptr="*u8",
             v_absmax_ptr="*fp32", qmap1_ptr="*fp32", qmap2_ptr="*fp32", params_out_ptr="*i16", m_out_ptr="*fp32",
             v_out_ptr="*fp32", m_absmax_out_ptr="*fp32", v_absmax_out_ptr="*fp32", n="i32", beta1="fp32",
             one_minus_beta1="fp32", beta2="fp32", one_minus_beta2="fp32", step_size="fp32", bias2="fp32",
             inv_bias2="fp32", decay="fp32", eps="fp32", inv_scale1="fp32", inv_scale2="fp32", BLOCK="constexpr",
             RECIPROCAL="constexpr"), {"BLOCK": 2048, "RECIPROCAL": True}, False),
    "softmax._softmax_kernel": (
        dict(x_ptr="*fp32", out_ptr="*fp32", columns="i32", x_stride="i32", out_stride="i32", BLOCK="constexpr"),
        {"BLOCK": 1024}, True),
    "rmsnorm._rmsnorm_kernel": (
        dict(x_ptr="*bf16", weight_ptr="*bf16", out_ptr="*i16", columns="i32", eps="fp32", BLOCK="constexpr"),
        {"BLOCK": 8192}, True),
    "matmul._matmul_kernel": (
        dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32", K="i32", stride_am="i32",
             stride_ak="i32", stride_bk="i32", stride_bn="i32", stride_cm="i32", stride_cn="i32",
             BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr", GROUP_M="constexpr"),
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, True),
    "absmax_quant._absmax_quant_kernel": (
        dict(x_ptr="*fp32", codes_ptr="*i8", absmax_ptr="*fp32", dequantized_ptr="*fp32", n="i32", blocks="i32",
             inv_qmax="fp32", BLOCK="constexpr", GROUP="constexpr"), {"BLOCK": 256, "GROUP": 8}, False),
}


@pytest.mark.skipif(CUDA, reason="on a GPU every launch compiles them")
def test_kernels_compile_for_hopper_without_a_gpu(tmp_path):
    """The interpreter runs what a GPU compiler refuses (non-constexpr globals, for one). Compile every
    kernel for sm_90 to a cubin, in a process without the interpreter; the kernels whose outputs are
    graded bit for bit must contain no fused multiply-add."""
    program = textwrap.dedent(f"""
        import importlib, triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        for name, (signature, constexprs, fusion) in {SIGNATURES!r}.items():
            module, kernel = name.rsplit(".", 1)
            fn = getattr(importlib.import_module("infrakata.kernels." + module), kernel)
            compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs),
                                      target=GPUTarget("cuda", 90, 32), options=dict(enable_fp_fusion=fusion))
            fma = compiled.asm["ptx"].count("fma.rn.f32")
            print(name, "cubin", len(compiled.asm["cubin"]), "fma", fma)
            assert fusion or fma == 0, name
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"TRITON_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count(" cubin ") == len(SIGNATURES)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_at_a_timed_shape_on_cuda(slug):
    problem, cases, reference = kata(slug)
    shape = min(problem.benchmark.shapes, key=lambda s: cases.work(*s))
    args = _inputs(cases, shape, 100)
    result = compare(KERNELS[slug](*args), reference(*args), tolerance_of(problem),
                     names=problem.grading.output_names)
    assert result.ok, result.message
