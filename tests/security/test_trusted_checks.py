"""Checks the grader once left to the suspect: that an input came back unchanged (the worker's own
snapshot, which the solution could replace), and the benchmark's repetitions (only the last one's
output was checked, and the seeds were known ahead)."""

from __future__ import annotations

from dataclasses import replace

from infrakata.core.bench.benchmark import run_benchmark
from infrakata.core.catalog.loading import Catalog

from .conftest import REPO, attempt

FORGED_SNAPSHOT = """
    import infrakata.core.sandbox.child as harness
    pristine = x.clone()
    harness.snapshot = lambda value: pristine  # the worker now reports the input as it was
    y = x * factor
    x.zero_()
    return y
"""


def test_a_forged_snapshot_does_not_hide_a_changed_input(runner, probe):
    report, message, _ = attempt(runner, probe, FORGED_SNAPSHOT)
    assert report.verdict == "wrong_answer"
    assert "argument 'x' was modified in place" in message


def test_an_input_restored_before_returning_is_unchanged(runner, probe):
    report, message, _ = attempt(runner, probe, "saved = x.clone()\nx.mul_(3)\nx.copy_(saved)")
    assert report.verdict == "accepted", message


RIGHT_ON_THE_LAST_CALL = (REPO / "kernels" / "softmax.py").read_text() + '''

_calls = {}
_fused = softmax_rows


def softmax_rows(x):
    """Wrong on the first repetition of the timed shape (4, 8), which the old benchmark never checked: it
    checked only the last call of each shape (a warm-up and two repetitions on the CPU)."""
    n = _calls[tuple(x.shape)] = _calls.get(tuple(x.shape), 0) + 1
    return _fused(x) * 0 if tuple(x.shape) == (4, 8) and n == 2 else _fused(x)
'''


def test_every_repetitions_output_is_checked(pool):
    problem = Catalog.load().problems["fused-row-softmax"]
    # The cheat computes in eager torch, which the kata's eager rule refuses at once: lifted here, so that what
    # is tried is the benchmark's check of every repetition.
    problem = replace(problem, grading=replace(problem.grading, eager="any"))
    report = run_benchmark(problem, RIGHT_ON_THE_LAST_CALL, "/tmp/cheat.py", pool, shapes=[(4, 8)])
    assert not report.correct
    assert report.gate_message.startswith("timed shape (4, 8), repetition 1 of 2"), report.gate_message
