"""Compiled kernels kept between the gradings of one solution file (core/sandbox/kernel_cache.py): a
worker's private Triton cache dies with it, so what it compiled is given to the next worker grading the
same file, and to no other. (On the CPU the Triton interpreter compiles nothing: these solutions write
into their cache folder what a compile would.)"""

from __future__ import annotations

import base64

import pytest
from infrakata.core.limits import Limits
from infrakata.core.sandbox.kernel_cache import BYTES_PER_SOLUTION, KernelCaches
from infrakata.core.sandbox.protocol import SolutionSpec

COMPILING = """import os
import pathlib


def kernel_key():
    cache = pathlib.Path(os.environ["TRITON_CACHE_DIR"])
    compiled = cache / "3xqv6a2k" / "softmax_kernel.cubin"
    if compiled.is_file():
        return "cached: " + compiled.read_text()
    compiled.parent.mkdir(parents=True, exist_ok=True)
    compiled.write_text("compiled by " + os.environ["HOME"])
    return "compiled"
"""


def _spec(filename: str, *, launches: bool = True) -> SolutionSpec:
    return SolutionSpec(COMPILING, filename, "kernel_key", Limits(time_s=5.0).worker(calls=1, cuda=False),
                        count_launches=launches)


def _grade(pool, spec: SolutionSpec) -> str:
    with pool.open(spec, 30.0) as worker:
        outcome = worker.call((), {}, timeout=10.0)
        assert outcome.status == "ok", outcome.error
        return outcome.value


def test_the_next_worker_grading_the_same_file_finds_what_the_last_compiled(pool, tmp_path):
    pool.wait_ready()
    if not all(layer.active for layer in pool.isolation_layers):
        pytest.skip("the kernels are kept only for confined workers, whose cache is their own")
    mine, other = str(tmp_path / "softmax.py"), str(tmp_path / "someone_else.py")
    assert _grade(pool, _spec(mine)) == "compiled"
    kept = _grade(pool, _spec(mine))
    assert kept.startswith("cached: compiled by ")  # compiled in the first worker's private folder
    assert _grade(pool, _spec(other)) == "compiled"  # nothing crosses to another file
    # A problem that compiles no kernels (no Triton launches, no CUDA) keeps nothing: no extra round trip.
    plain = str(tmp_path / "plain.py")
    assert _grade(pool, _spec(plain, launches=False)) == "compiled"
    assert _grade(pool, _spec(plain, launches=False)) == "compiled"


def test_what_a_worker_sends_back_is_kept_only_within_bounds():
    caches, spec = KernelCaches(bytes_in_all=3 << 20), _spec("/work/a.py")

    def encoded(size: int) -> str:
        return base64.b64encode(b"x" * size).decode()

    for hostile in ({"../../etc/cron.d/x": encoded(4)}, {"/abs/k.cubin": encoded(4)}, {"k.cubin": "not base64!"},
                    {"k.cubin": encoded(BYTES_PER_SOLUTION + 1)}, {"k.cubin": 7}, ["k.cubin"]):
        caches.keep(spec, hostile)
        assert caches.attach(spec) == spec, hostile
    caches.keep(spec, {"key1/k.cubin": encoded(2 << 20)})
    assert dict(caches.attach(spec).kernel_cache) == {"key1/k.cubin": b"x" * (2 << 20)}
    later = _spec("/work/b.py")
    caches.keep(later, {"key2/k.cubin": encoded(2 << 20)})  # over the 3 MiB in all: the least recent goes
    assert caches.attach(spec) == spec and caches.attach(later).kernel_cache


def test_a_files_oldest_kernels_make_room_for_its_newest():
    """A learner's earlier versions of a kernel go first when the file's bound is reached."""
    caches, spec = KernelCaches(), _spec("/work/a.py")
    version = base64.b64encode(b"x" * (BYTES_PER_SOLUTION // 3)).decode()
    for n in range(5):
        caches.keep(spec, {f"v{n}/k.cubin": version})
    assert [name for name, _ in caches.attach(spec).kernel_cache] == ["v2/k.cubin", "v3/k.cubin", "v4/k.cubin"]
