"""Parsing on several threads at once, as `kata grade` does, under the thread switches a loaded machine
makes: every parse succeeds (CPython 3.11's shared depth counter made one fail with "SystemError: AST
constructor recursion depth mismatch", and a correct solution came back could_not_grade in the soak)."""

from __future__ import annotations

import gc
import sys
import threading
import time
from pathlib import Path

from infrakata.core import pysource
from infrakata.core.grading import static

REPO = Path(__file__).resolve().parents[1]
STRESS_S = 15.0


class _Finalized:
    """Python code run by the collector in the middle of whatever allocates: a thread switch there."""

    def __del__(self) -> None:
        sum(range(30))


def test_parsing_on_many_threads_never_fails_under_thread_switches():
    sources = [path.read_text(encoding="utf-8") for path in sorted((REPO / "core").rglob("*.py"))[:40]]
    cases = [path.read_text(encoding="utf-8") for path in sorted((REPO / "problems").glob("*/cases.py"))[:20]]
    errors: list[str] = []
    stop = time.monotonic() + STRESS_S

    def parse_like_a_grader(offset: int) -> None:
        index = offset
        while time.monotonic() < stop and not errors:
            garbage: list[object] = [_Finalized() for _ in range(5)]
            garbage.append(garbage)  # a cycle: freed by the collector, which runs the finalizers
            try:
                # Each source new (trees are kept per source): every check parses.
                static.check(f"{sources[index % len(sources)]}\n# {index}\n", ("os",), ("eval",))
                pysource.top_level_functions(cases[index % len(cases)])
            except SystemError as error:
                errors.append(str(error))
            index += 1

    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(20, 1, 1)
    try:
        threads = [threading.Thread(target=parse_like_a_grader, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=STRESS_S + 60)
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)
    assert not errors, errors[0]
