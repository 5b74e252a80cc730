"""Compiled kernels kept between the gradings of one solution file.

A confined worker compiles its Triton kernels into a private folder that dies with it. The grader keeps,
per solution file, the cache files its workers wrote (`collect`, a harness call), as bytes within size
bounds (`KernelCaches`), and the next worker grading the same file writes them into its own private
cache (`restore`) before the solution loads. Why that is safe: docs/SECURITY.md (Compiled kernels).
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from infrakata.core.sandbox.protocol import SolutionSpec

CACHE_ENVIRONMENT = "TRITON_CACHE_DIR"  # a confined worker's is in its private folder (policy.worker_environment)
# Triton's cache: a folder per kernel key holding its compiled forms and metadata. No part of a name may
# start with a dot, so none is "..", and none starts with "/".
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}){0,2}")
FILES_PER_SOLUTION = 512
BYTES_PER_SOLUTION = 32 << 20
BYTES_IN_ALL = 256 << 20
COLLECT = "infrakata.core.sandbox.kernel_cache:collect"
COLLECT_TIMEOUT_S = 2.0  # a few files to read: a worker slower than this keeps nothing

CacheFiles = tuple[tuple[str, bytes], ...]


def applies(spec: SolutionSpec) -> bool:
    """Whether a worker's kernels are kept: a solution (not trusted code) that compiles kernels, on CUDA,
    or that must launch Triton kernels (on the CPU the interpreter compiles nothing, and nothing is kept)."""
    return not spec.trusted and (spec.cuda or spec.count_launches)


def _cache_folder() -> Path | None:
    folder = os.environ.get(CACHE_ENVIRONMENT)
    return Path(folder) if folder else None


# -- in the worker ------------------------------------------------------------------------------------

def restore(files: CacheFiles) -> None:
    """Write the kept files into this (confined) worker's own cache, before the solution loads."""
    folder = _cache_folder()
    if folder is None:
        return
    for name, data in files:
        if not NAME.fullmatch(name):
            continue
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def collect(_entry: Any, payload: dict[str, Any]) -> dict[str, str]:
    """A harness call at the end of a run: the cache files this worker wrote beyond those it was given
    (payload "given": name -> size), base64-encoded (the reply format carries no bytes)."""
    folder = _cache_folder()
    given: dict[str, int] = payload.get("given", {})
    found: dict[str, str] = {}
    if folder is None or not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*")):
        if len(found) >= FILES_PER_SOLUTION:
            break
        if not path.is_file() or path.is_symlink():
            continue
        name = path.relative_to(folder).as_posix()
        size = path.stat().st_size
        if given.get(name) != size and size <= BYTES_PER_SOLUTION:
            found[name] = base64.b64encode(path.read_bytes()).decode("ascii")
    return found


# -- in the grader -------------------------------------------------------------------------------------

def given(spec: SolutionSpec) -> dict[str, int]:
    """What a worker was given, by name and size: what it need not send back."""
    return {name: len(data) for name, data in spec.kernel_cache}


class KernelCaches:
    """What the workers of each solution file compiled, in memory, least recently used dropped first."""

    def __init__(self, bytes_in_all: int = BYTES_IN_ALL):
        self.bytes_in_all = bytes_in_all
        self._kept: OrderedDict[tuple[str, str], dict[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()  # gradings run on several threads (the server's, a batch's jobs)

    @staticmethod
    def key(spec: SolutionSpec) -> tuple[str, str]:
        return spec.filename, spec.entry_point

    def attach(self, spec: SolutionSpec) -> SolutionSpec:
        """The spec with the kept files of its solution file, for its worker to restore."""
        with self._lock:
            files = self._kept.get(self.key(spec))
            if not files:
                return spec
            self._kept.move_to_end(self.key(spec))
            return replace(spec, kernel_cache=tuple(files.items()))

    def keep(self, spec: SolutionSpec, collected: Any) -> None:
        """Add what a worker collected (untrusted: anything malformed, or more than one file's bound on
        its own, is dropped whole). A file's oldest kernels go first when its bound is reached (a learner's
        earlier versions), and the least recently graded file's when all together exceed theirs."""
        if not isinstance(collected, dict) or not collected:
            return
        new: dict[str, bytes] = {}
        for name, encoded in collected.items():
            if not (isinstance(name, str) and NAME.fullmatch(name)
                    and isinstance(encoded, str) and len(encoded) <= 2 * BYTES_PER_SOLUTION):
                return
            try:
                new[name] = base64.b64decode(encoded, validate=True)
            except ValueError:
                return
        if len(new) > FILES_PER_SOLUTION or sum(map(len, new.values())) > BYTES_PER_SOLUTION:
            return
        with self._lock:
            files = {name: data for name, data in self._kept.get(self.key(spec), {}).items() if name not in new}
            files.update(new)  # oldest first: a dict keeps the order files were added in
            while len(files) > FILES_PER_SOLUTION or sum(map(len, files.values())) > BYTES_PER_SOLUTION:
                del files[next(iter(files))]
            self._kept[self.key(spec)] = files
            self._kept.move_to_end(self.key(spec))
            while sum(len(data) for kept in self._kept.values() for data in kept.values()) > self.bytes_in_all:
                self._kept.popitem(last=False)
