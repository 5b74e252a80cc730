"""What the tests of our Triton kernels share (tests/test_kernels*.py): the Triton interpreter switched on where
there is no CUDA, which must happen before any kernel is imported (the interpreter is chosen when a kernel is
decorated), the skip where Triton does not exist, and a kata's cases and reference. Import it first."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch

CUDA = torch.cuda.is_available()
if not CUDA:
    os.environ["TRITON_INTERPRET"] = "1"

triton = pytest.importorskip("triton", reason="Triton exists for Linux on x86-64 only")

from infrakata.core.catalog.loading import Catalog  # noqa: E402

DEVICE = "cuda" if CUDA else "cpu"
CATALOG = Catalog.load()


def kata(slug: str) -> tuple[Any, Any, Any]:
    """-> the problem, its cases module, and its reference's entry point."""
    problem = CATALOG.problems[slug]
    return problem, problem.module("cases"), getattr(problem.module("reference"), problem.entry_point)


def on_device(values: Any) -> tuple[Any, ...]:
    """A case's arguments with its tensors on DEVICE."""
    return tuple(v.to(DEVICE) if isinstance(v, torch.Tensor) else v for v in values)
