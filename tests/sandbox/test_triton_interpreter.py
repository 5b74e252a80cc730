"""The Triton interpreter's builtins listed once, its NumPy dtypes kept once found, its types built once and
its shapes compared directly (core/sandbox/triton_interpreter.py): kernels compute the same, bit for bit,
types that differ stay apart, and this Triton is one they apply to (a Triton whose interpreter changed fails
this test, so that the change is looked at rather than left to slow every save)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Found, not imported: Triton imported in this process before tests/kernels sets TRITON_INTERPRET would leave
# its own jitted functions (tl.sum) compiled-mode, and those tests failing when run after this one.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="no Triton")
REPO = Path(__file__).resolve().parents[2]

# Top-p sampling's kernel: a row-wide tl.sum in a 30-step loop, tl.cumsum, tl.max and tl.min; split-K GEMM's:
# 2-D tiles, broadcasts, pointer blocks and tl.dot, then a second kernel adding the splits. Each on its kata's
# own cases (ties at the cut, masked tokens, a row of one token; edges of no tile or split size), then the same
# after the patches, compared as bytes.
SCRIPT = """
import importlib.util, json, sys
import triton.language as tl
from infrakata.core.sandbox import triton_interpreter
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
katas = {"triton-top-p-sampling": load("top_p", "kernels/top_p.py").top_p_sample,
         "triton-split-k-gemm": load("split_k", "kernels/split_k_matmul.py").split_k_linear}
cases = {slug: load(slug, f"problems/{slug}/cases.py").cases() for slug in katas}
def outputs():
    return [katas[slug](*case["args"]).numpy().tobytes() for slug in katas for case in cases[slug]]
patches = [triton_interpreter.list_builtins_once, triton_interpreter.map_dtypes_once,
           triton_interpreter.make_types_once, triton_interpreter.compare_shapes_directly]
def refused(shape):
    try:
        tl.block_type(tl.float32, shape)
    except (AssertionError, TypeError, ValueError) as error:
        return type(error).__name__
def compared():
    pairs = [([4, 8], [4, 8]), ([4, 8], [4, 4]), ([4, 8], [8]), ([4, 8], tl.tuple([4, 8])), ([], []),
             ([4, 8], [tl.constexpr(4), 8]), ([tl.constexpr(4), 8], [4, 8]), ([1], [True]),
             ([tl.tuple([1, 2])], [[1, 2]]), ([tl.tuple([1, 2])], [(1, 2)])]
    return [(type(result).__name__, bool(result)) for left, right in pairs
            for result in (tl.tuple(left) == right, tl.tuple(left) != right)]
def fields(block):
    return block.element_ty, block.shape.values, block.numel, block.name
before, built = outputs(), fields(tl.block_type(tl.float32, [4, 8]))
refusals, comparisons = [refused(shape) for shape in ([3], [], (4,), [3])], compared()
applied = [patch() for patch in patches]
after = outputs()
again = [patch() for patch in patches]
# Types that differ stay apart (an equal but other element type too: Triton asks `element_ty is tl.float16`)
fp32_ptr, fp16_ptr = tl.pointer_type(tl.float32), tl.pointer_type(tl.float16)
block = tl.block_type(tl.float32, [4, 8])
x, y = tl.tensor(None, block), tl.tensor(None, block)
types = {
    "equal ones are one": block is tl.block_type(tl.float32, [4, 8]) is tl.block_type(tl.float32, [tl.constexpr(4), 8])
                          is tl.block_type(tl.float32, tl.tuple([4, 8])),
    "other element type": tl.block_type(tl.float16, [4, 8]) is not block,
    "other shape": tl.block_type(tl.float32, [8, 4]) is not block and tl.block_type(tl.float32, [4]) is not block,
    "pointer element types": tl.block_type(fp32_ptr, [4]) is not tl.block_type(fp16_ptr, [4])
                             and tl.block_type(fp32_ptr, [4]).element_ty is fp32_ptr,
    "an equal element type kept apart": tl.block_type(tl.dtype("fp32"), [4, 8]) is not block
                                        and tl.block_type(tl.dtype("fp32"), [4, 8]) == block,
    "fields as built": fields(block) == built,
    "shapes refused as before": [refused(shape) for shape in ([3], [], (4,), [3])] == refusals,
    "a shape per tensor": x.shape is not y.shape and x.shape.values == [4, 8] and x.numel == 32
                          and x.dtype is tl.float32 and x.type is block,
    "scalar tensor": tl.tensor(None, tl.int32).shape.values == [] and tl.tensor(None, tl.int32).numel == 1,
    "shapes compared as before": compared() == comparisons,
}
print(json.dumps({"applied": applied, "again": again, "same": before == after, "cases": len(before),
                  "types": [name for name, held in types.items() if not held]}))
"""


def test_the_interpreter_computes_the_same_with_its_patches() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "TRITON_INTERPRET": "1"}, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"applied": [True] * 4, "again": [False] * 4, "same": True, "cases": 7, "types": []}, found
