"""What a CUDA worker runs, run where there is no GPU: in a worker confined as a CUDA worker is (every layer, the
CUDA grants of core/sandbox/policy.py included: INFRAKATA_CONFINE_AS_CUDA=1), a solution compiles a Triton
kernel ahead of time for a CUDA target (Triton runs its ptxas) and builds what Triton's CUDA driver builds with the
C compiler (gcc runs cc1, as, collect2 and ld). Each of those programs is dynamically linked: the kernel opens
its ELF interpreter for execution, so the policy must grant that too. On a GPU the first compile of every
learner's kernel depends on this; the pip Triton wheel ships ptxas without a GPU as well."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest
from infrakata.core.catalog.loading import load_problem
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import policy
from infrakata.core.sandbox.pool import WorkerPool

from .conftest import FIXTURES

# Not imported here: the kernel tests import triton after setting TRITON_INTERPRET, which its import reads.
TRITON = importlib.util.find_spec("triton")

pytestmark = [
    pytest.mark.skipif(TRITON is None, reason="needs Triton"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux namespaces"),
    pytest.mark.skipif(shutil.which("gcc") is None and shutil.which("clang") is None, reason="needs a C compiler"),
]

COMPILES = '''\
import os
import subprocess

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.jit import JITFunction


def _double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def build(what):
    if what == "ptxas":  # JITFunction: under TRITON_INTERPRET, @triton.jit would make an interpreted one
        source = ASTSource(fn=JITFunction(_double), constexprs={"BLOCK": 128},
                           signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"})
        kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32))
        assert kernel.asm["cubin"], "no cubin"
    else:  # Triton's CUDA driver module, as it is built, but without libcuda (there is none here)
        from triton.backends.nvidia import driver
        from triton.runtime.build import compile_so_from_file

        built = compile_so_from_file(os.path.join(driver.dirname, "driver.c"), "cuda_utils",
                                     library_dirs=[driver.libdevice_dir], include_dirs=driver.include_dirs)
        assert os.path.getsize(built) > 0, "an empty module"
        subprocess.run(["/sbin/ldconfig", "-p"], check=True, capture_output=True)  # where libcuda is, Triton asks
    return what
'''


@pytest.fixture(scope="module")
def cuda_confined():
    """A pool whose workers are all confined as CUDA workers are, and its runner."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(policy.CONFINE_AS_CUDA, "1")
        pool = WorkerPool()
        pool.start()
        pool.wait_ready()
    yield Runner(pool)
    pool.close()


@pytest.mark.parametrize("case", [1, 2], ids=["a kernel through ptxas", "Triton's launcher through gcc"])
def test_a_worker_confined_as_cuda_compiles_what_triton_compiles_on_cuda(cuda_confined, case):
    problem = load_problem(FIXTURES / "cuda-toolchain")
    report = cuda_confined.run(problem, COMPILES, "/tmp/compiles.py")
    result = report.cases[case - 1]
    assert result.status == "passed", result.message


def test_the_cuda_route_grants_the_loader_and_runs_no_system_folder():
    """EXECUTE: the programs the compile needs and the ELF interpreter they name, each a file: no folder of
    the system's (/usr/bin, /bin) is executable as a whole."""
    granted = policy.grants(FIXTURES, cuda=True)
    executable = {grant.path for grant in granted if grant.access == policy.EXECUTE}
    assert not executable & {"/usr/bin", "/bin", "/usr/lib/gcc", "/usr/libexec", "/usr/local/cuda/bin"}
    ptxas = policy.Path(TRITON.origin or "").parent / "backends" / "nvidia" / "bin" / "ptxas"
    if ptxas.is_file():
        assert str(ptxas.resolve()) in executable
        interpreter = policy.elf_interpreter(ptxas)
        if interpreter is not None:
            assert str(interpreter.resolve()) in executable
    assert not [grant for grant in granted if grant.access == policy.EXECUTE and policy.Path(grant.path).is_dir()]
