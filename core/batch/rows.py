"""The lines a batch writes and ranks: a result per submission, and a leaderboard's entry."""

from __future__ import annotations

from typing import Any, TypedDict


class ResultRow(TypedDict, total=False):
    """One line of a batch's results: the `kata run --json` object (docs/TERMINAL.md) with the
    submission's id first; `reason` where it could not be graded, `bench` for an accepted kernel
    graded with --bench, `signature` once written (batch/results_file.py)."""

    id: str
    problem: str | None
    file: str | None
    verdict: str
    cases: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    time_ms: float
    title: str
    entry_line: int | None
    output: str
    cancelled: bool
    device: str
    passed: int
    total: int
    reason: str
    bench: dict[str, Any]
    signature: str


class RankedEntry(TypedDict):
    """A submission's place on its problem's leaderboard."""

    rank: int
    id: str | None
    file: str | None
    verdict: str | None
    passed: int | None
    total: int | None
    time_ms: float | None
    bench: float | None  # the benchmark's geomean, where it ran and was correct
    unit: str | None
