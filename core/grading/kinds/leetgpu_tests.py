"""A LeetGPU test's values made as LeetGPU makes them: shared by the grader (core/grading/kinds/leetgpu.py), which
makes the example and functional tests, and a benchmark's workers (core/bench/leetgpu_trials.py), which make the
performance test. Light on purpose: a worker imports it before the solution, and the grader
imports torch only once it makes a test."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

# The tensors the set's base class describes rather than makes (challenges/core/challenge_base.py).
DESCRIBED = ("RandTensor", "RandnTensor", "RandIntTensor", "FullTensor", "OutTensor")
_GENERATING = threading.Lock()  # one challenge's tests made at a time: torch's deterministic switch is the process's


def made_value(value: Any, generator: torch.Generator) -> Any:
    """A tensor the base class describes (RandTensor, ..., OutTensor), made on the CPU from `generator`; anything
    else as it is."""
    import torch

    kind = type(value).__name__
    if kind not in DESCRIBED:
        return value
    dtype = getattr(torch, str(value.dtype))
    if kind == "RandTensor":
        return torch.rand(value.shape, generator=generator).mul_(value.high - value.low).add_(value.low).to(dtype)
    if kind == "RandnTensor":
        return torch.randn(value.shape, generator=generator).mul_(value.std).add_(value.mean).to(dtype)
    if kind == "RandIntTensor":
        return torch.randint(value.low, value.high, value.shape, generator=generator, dtype=torch.int64).to(dtype)
    if kind == "FullTensor":
        return torch.full(value.shape, value.value, dtype=dtype)
    return torch.empty(value.shape, dtype=dtype)


def elements(values: Any) -> int:
    """The elements of a test's tensors, made or described."""
    import torch

    return sum(math.prod(v.shape) for v in values if isinstance(v, torch.Tensor) or type(v).__name__ in DESCRIBED)


@contextlib.contextmanager
def uninitialised_memory_filled() -> Iterator[None]:
    """What a test's `torch.empty` gives on LeetGPU's GPUs: not zeros. A fresh CPU allocation often holds zeros, and a
    solution that adds into an output it never cleared passed here and failed there; while the tests are made, torch's
    deterministic mode fills uninitialised memory (NaN, or an integer type's largest value). warn_only: the switch is
    the process's, and another thread's operation is not refused meanwhile."""
    import torch

    with _GENERATING:
        before = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
        torch.use_deterministic_algorithms(True, warn_only=True)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(before[0], warn_only=before[1])
