"""The Triton interpreter's builtins listed once and its NumPy dtypes kept once found
(core/sandbox/triton_interpreter.py): kernels compute the same, and this Triton is one they apply to (a
Triton whose interpreter changed fails this test, so that the change is looked at rather than left to slow
every save)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton")
REPO = Path(__file__).resolve().parents[2]

# Top-p sampling's kernel: a row-wide tl.sum in a 30-step loop, tl.cumsum, tl.max and tl.min, on the kata's
# own cases (ties at the cut, masked tokens, a row of one token); then the same after the listing.
SCRIPT = """
import importlib.util, json, sys
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
cases = load("cases", "problems/triton-top-p-sampling/cases.py").cases()
kernel = load("top_p", "kernels/top_p.py")
before = [kernel.top_p_sample(*case["args"]).tolist() for case in cases]
from infrakata.core.sandbox.triton_interpreter import list_builtins_once, map_dtypes_once
applied = [list_builtins_once(), map_dtypes_once()]
after = [kernel.top_p_sample(*case["args"]).tolist() for case in cases]
again = [list_builtins_once(), map_dtypes_once()]
print(json.dumps({"applied": applied, "again": again, "same": before == after, "cases": len(cases)}))
"""


def test_the_interpreter_computes_the_same_with_its_builtins_listed_and_dtypes_mapped_once():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "TRITON_INTERPRET": "1"}, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"applied": [True, True], "again": [False, False], "same": True, "cases": 3}, found
