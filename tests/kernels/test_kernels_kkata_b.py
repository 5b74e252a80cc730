"""Our split-K GEMM, in-place rotary, paged-attention decode and top-p sampling kernels against their
problems' references: on a GPU when there is one, else through the Triton interpreter on the CPU, on every
correctness case and benchmark correctness shape (small: the interpreter pays per operation)."""

from __future__ import annotations

import copy
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
    on_device,
)

# isort: split
from infrakata.core.grading.compare import compare
from infrakata.core.grading.runner import tolerance_of
from infrakata.kernels.paged_attention import paged_attention_decode
from infrakata.kernels.rotary import rotary_embedding_
from infrakata.kernels.split_k_matmul import split_k_linear
from infrakata.kernels.top_p import top_p_sample

KERNELS = {
    "triton-split-k-gemm": split_k_linear,
    "triton-rotary-in-place": rotary_embedding_,
    "triton-paged-attention-decode": paged_attention_decode,
    "triton-top-p-sampling": top_p_sample,
}



def _check(slug, args, label):
    """The kernel's output and, for arguments graded after the call, their state, against the reference's."""
    problem, _, reference = kata(slug)
    mine = copy.deepcopy(args)
    tolerance = tolerance_of(problem)
    result = compare(KERNELS[slug](*mine), reference(*args), tolerance, names=problem.grading.output_names)
    assert result.ok, f"{label}: {result.message}"
    names = list(problem.module("reference").__dict__[problem.entry_point].__code__.co_varnames)
    for name in problem.grading.state:
        index = names.index(name)
        state = compare(mine[index], args[index], tolerance)
        assert state.ok, f"{label}: {name} after the call: {state.message}"


@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_on_every_case(slug):
    _, cases, _ = kata(slug)
    for case in cases.cases():
        _check(slug, on_device(case["args"]), case["name"])


@pytest.mark.parametrize("slug", KERNELS)
def test_kernel_matches_reference_at_correctness_shapes(slug):
    problem, cases, _ = kata(slug)
    for index, shape in enumerate(problem.benchmark.correctness_shapes):
        _check(slug, cases.make_inputs(*shape, seed=10 + index, device=DEVICE), str(shape))


def test_split_k_uses_several_splits_and_a_short_last_one():
    """The correctness cases exercise what makes split-K split-K: more than one range of K, the last cut short."""
    from infrakata.kernels import split_k_matmul as module

    tiles, k = 1, 1000
    k_blocks = -(-k // module.BLOCK_K)
    splits = module._splits(tiles, k_blocks, torch.device(DEVICE))
    k_per_split = -(-k_blocks // splits) * module.BLOCK_K
    assert -(-k // k_per_split) > 1 and k % k_per_split != 0


def test_rotary_writes_through_strided_views_and_leaves_the_rest_of_qkv_alone():
    _, cases, reference = kata("triton-rotary-in-place")
    q, k, positions, cache = cases.make_inputs(3, 4, 2, 16, seed=5, device=DEVICE, dtype=torch.float32)
    qkv = q.as_strided((3, q.stride(0)), (q.stride(0), 1))  # the whole fused row, v included
    v_before = qkv[:, (4 + 2) * 16:].clone()
    expected = reference(q.clone(), k.clone(), positions, cache)
    returned = rotary_embedding_(q, k, positions, cache)
    assert returned[0] is q and returned[1] is k
    assert torch.allclose(q, expected[0], atol=1e-6) and torch.allclose(k, expected[1], atol=1e-6)
    assert torch.equal(qkv[:, (4 + 2) * 16:], v_before)


def test_top_p_ties_and_edges_draw_as_the_statement_says():
    _, cases, _ = kata("triton-top-p-sampling")
    assert top_p_sample(*on_device(cases.EDGES)).tolist() == [1, 3, 2, 1, 1, 1]


def test_paged_attention_never_reads_the_table_padding():
    """Padding entries far outside the pool: a load through one would read outside it (or crash)."""
    _, cases, reference = kata("triton-paged-attention-decode")
    args = cases.make_inputs(2, 4, 2, 32, 8, 9, seed=3, device=DEVICE, seq_lens=[9, 2])
    assert (args[3] == cases.PADDING).any()
    assert compare(paged_attention_decode(*args), reference(*args),
                   tolerance_of(CATALOG.problems["triton-paged-attention-decode"])).ok


# Each kernel's signature as Triton compiles it (what a launch with the problem's inputs specialises to), and
# the warps its wrapper launches it with at the largest timed shape.
SIGNATURES = {
    "split_k_matmul._partial_kernel": (
        dict(a_ptr="*fp16", b_ptr="*fp16", partial_ptr="*fp32", M="i32", N="i32", K="i32", k_per_split="i32",
             stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32", BLOCK_M="constexpr",
             BLOCK_N="constexpr", BLOCK_K="constexpr"), {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 128}, 4),
    "split_k_matmul._reduce_kernel": (
        dict(partial_ptr="*fp32", c_ptr="*fp32", elements="i32", splits="i32", BLOCK="constexpr"), {"BLOCK": 1024}, 4),
    "rotary._rotary_kernel": (
        dict(q_ptr="*bf16", k_ptr="*bf16", positions_ptr="*i64", cache_ptr="*fp32", q_stride_t="i32",
             q_stride_h="i32", k_stride_t="i32", k_stride_h="i32", cache_stride="i32", q_heads="i32", k_heads="i32",
             half="i32", BLOCK_HQ="constexpr", BLOCK_HK="constexpr", BLOCK_HALF="constexpr"),
        {"BLOCK_HQ": 32, "BLOCK_HK": 8, "BLOCK_HALF": 64}, 4),
    "paged_attention._paged_attention_kernel": (
        dict(q_ptr="*fp16", k_ptr="*fp16", v_ptr="*fp16", tables_ptr="*i32", lens_ptr="*i32", out_ptr="*fp32",
             scale="fp32", group="i32", head_dim="i32", stride_qb="i32", stride_qh="i32", stride_kb="i32",
             stride_ks="i32", stride_kh="i32", stride_vb="i32", stride_vs="i32", stride_vh="i32", stride_tb="i32",
             stride_ob="i32", stride_oh="i32", BLOCK_SIZE="constexpr", BLOCK_G="constexpr", BLOCK_D="constexpr"),
        {"BLOCK_SIZE": 16, "BLOCK_G": 4, "BLOCK_D": 128}, 4),
    "top_p._top_p_kernel": (
        dict(logits_ptr="*fp32", temperature_ptr="*fp32", top_p_ptr="*fp32", uniforms_ptr="*fp32", out_ptr="*i64",
             vocab="i32", stride="i32", BLOCK="constexpr"), {"BLOCK": 32768}, 16),
}


@pytest.mark.skipif(CUDA, reason="on a GPU every launch compiles them")
def test_kernels_compile_for_hopper_without_a_gpu(tmp_path):
    """The interpreter runs what a GPU compiler refuses: compile every kernel for sm_90 to a cubin, in a
    process without the interpreter."""
    program = textwrap.dedent(f"""
        import importlib, triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        for name, (signature, constexprs, warps) in {SIGNATURES!r}.items():
            module, kernel = name.rsplit(".", 1)
            fn = getattr(importlib.import_module("infrakata.kernels." + module), kernel)
            compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs),
                                      target=GPUTarget("cuda", 90, 32), options=dict(num_warps=warps))
            print(name, "cubin", len(compiled.asm["cubin"]))
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"TRITON_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count(" cubin ") == len(SIGNATURES)
