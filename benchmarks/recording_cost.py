"""What recording a call costs, kata by kata: each kata's model solution (or its reference) called on its
cases in this process, plain and recorded as a worker records it (core/sandbox/trace.py).

- `first call`: what every case's call records, the line that returned its output; every grading pays it.
- `replay`: what a failing case's second call records (SolutionCalls.replay): the lines that wrote its
  graded and unchangeable arguments and the values of its arguments and locals; paid once per failing case.

What each adds is the recorded calls' total time less the plain calls' (best of `--repeats`, each call on a
fresh copy of its inputs), beside the kata's warm grading (`Runner.run`, the median of `--repeats`), which is
what a save waits for: the share is of that. (A formula kata's calls take a microsecond each, so a share of
the calls alone would say only that recording has a fixed cost of some microseconds a call.) Kernel katas
are left out: their calls are Triton launches through the interpreter, in which nothing of the solution's
own code runs per element.

    .venv/bin/python benchmarks/recording_cost.py [--repeats 5] [--katas N] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import tempfile
import time
from typing import Any

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import NativeSource
from infrakata.core.catalog.loading import Catalog
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import trace

TARGET = 0.10  # the first call's recording adds at most this share to a kata's warm grading


def timed(entry: Any, args: tuple[Any, ...], kwargs: dict[str, Any], level: str,
          watch: tuple[Any, ...]) -> float:
    args, kwargs = copy.deepcopy((args, kwargs))
    started = time.perf_counter()
    recording = trace.start(level, args, kwargs, watch) if level != "off" else None  # type: ignore[arg-type]
    try:
        entry(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a model solution that raises on a case still costs its call
        pass
    trace.stop(recording)
    return time.perf_counter() - started


def kata_cost(runner: Runner, problem: Any, repeats: int) -> dict[str, Any]:
    model = kind_of(problem).model_solution(problem)
    source = model.read_text(encoding="utf-8") if model is not None else problem.reference_source
    filename = str(model or problem.folder / "reference.py")
    namespace: dict[str, Any] = {"__name__": "recorded_solution"}
    code = compile(source, filename, "exec")
    exec(code, namespace)  # noqa: S102 - our own model solutions
    entry = namespace[problem.entry_point]
    trace.loaded(source, code, entry, problem.entry_point)
    cases = runner.prepare(problem).cases
    totals = {}
    for level, watched in (("off", False), ("lines", False), ("values", True)):
        best = []
        for _ in range(repeats):
            best.append(sum(timed(entry, case.args, case.kwargs, level,
                                  case.state_keys + case.frozen_keys if watched else ()) for case in cases))
        totals[level] = min(best)
    gradings = []
    for _ in range(repeats):
        started = time.perf_counter()
        runner.run(problem, source, filename, values=True)
        gradings.append(time.perf_counter() - started)
    grading = statistics.median(gradings)
    plain = totals["off"]
    return {"kata": problem.slug, "cases": len(cases), "grading_ms": round(grading * 1e3, 1),
            "calls_ms": round(plain * 1e3, 2),
            "first_call_ms": round((totals["lines"] - plain) * 1e3, 2),
            "first_call_share": round(max(0.0, totals["lines"] - plain) / grading, 4),
            "replay_ms": round((totals["values"] - plain) * 1e3, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--katas", type=int, default=None, help="the first N katas by slug (default: all)")
    parser.add_argument("--json", default=None)
    options = parser.parse_args()
    catalog = Catalog.load()
    runner = Runner()
    rows = []
    print(f"{'kata':<40}{'cases':>6}{'grading ms':>12}{'calls ms':>10}{'first call +ms':>16}{'share':>8}"
          f"{'replay +ms':>12}")
    chosen = [p for p in sorted(catalog.problems.values(), key=lambda p: p.slug)
              if p.category != "Kernels" and isinstance(p.source, NativeSource)][:options.katas]
    for problem in chosen:
        row = kata_cost(runner, problem, options.repeats)
        rows.append(row)
        print(f"{row['kata']:<40}{row['cases']:>6}{row['grading_ms']:>12.1f}{row['calls_ms']:>10.2f}"
              f"{row['first_call_ms']:>16.2f}{row['first_call_share']:>8.1%}{row['replay_ms']:>12.2f}", flush=True)
    shares = [r["first_call_share"] for r in rows]
    worst = max(rows, key=lambda r: r["first_call_share"])
    summary = (f"{len(rows)} katas: the first call's recording adds a median {statistics.median(shares):.2%} of a "
               f"warm grading, at most {worst['first_call_share']:.2%} ({worst['kata']}); "
               f"{sum(s <= TARGET for s in shares)} of {len(rows)} within {TARGET:.0%}; a failing case's replay "
               f"records for a median {statistics.median(r['replay_ms'] for r in rows):.2f} ms more")
    print(summary)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump({"summary": summary, "katas": rows}, out, indent=2)


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # nothing here is your progress
    main()
