"""What listing triton.language's builtins once saves the Triton interpreter (core/sandbox/triton_interpreter.py),
kata by kata: each Triton kata's model solution called on its cases through the interpreter, in a process of
its own per variant (the interpreter as Triton ships it, then with the builtins listed once), the best of
`--repeats` passes over the cases after one warm-up pass.

    .venv/bin/python benchmarks/interpreter_builtins.py [--repeats 3] [--json FILE]

Run it at real-time priority (`chrt -f 10`) on a busy machine, as the other latency benchmarks are.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from infrakata.core.catalog.kinds.native import NativeSource
from infrakata.core.catalog.loading import Catalog

REPO = Path(__file__).resolve().parents[1]

# One variant of one kata, in a fresh process: TRITON_INTERPRET must be set before Triton is imported.
PASSES = """
import json, sys, time
from pathlib import Path
from infrakata.core.catalog.kinds.native import load_native
from infrakata.core.sandbox.triton_interpreter import list_builtins_once
folder, model, listed, repeats = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
problem = load_native(Path(folder))
if listed:
    assert list_builtins_once()
namespace = {"__name__": "model_solution"}
exec(compile(open(model).read(), model, "exec"), namespace)
solution = namespace[problem.entry_point]
cases = problem.module("cases").cases()
best = float("inf")
for attempt in range(repeats + 1):
    started = time.perf_counter()
    for case in cases:
        solution(*case["args"])
    if attempt:  # the first pass warms up (the kernels' specialisation)
        best = min(best, (time.perf_counter() - started) * 1e3)
print(json.dumps({"ms": best, "cases": len(cases)}))
"""


def measure(folder: Path, model: Path, listed: bool, repeats: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PASSES, str(folder), str(model), "1" if listed else "0",
                           str(repeats)], capture_output=True, text=True, timeout=600, cwd=REPO, check=True,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    print(f"{'kata':<34}{'cases':>6}{'stock ms':>10}{'listed ms':>11}{'saved':>8}")
    for problem in sorted(Catalog.load().problems.values(), key=lambda p: p.slug):
        source = problem.source
        if not problem.grading.triton_launch or not isinstance(source, NativeSource) or not source.model_solution:
            continue
        model = source.model_solution
        stock = measure(source.folder, model, False, args.repeats)
        listed = measure(source.folder, model, True, args.repeats)
        saved = 1 - listed["ms"] / stock["ms"]
        rows.append({"kata": problem.slug, "cases": stock["cases"], "stock_ms": stock["ms"], "listed_ms": listed["ms"]})
        print(f"{problem.slug:<34}{int(stock['cases']):>6}{stock['ms']:>10.1f}{listed['ms']:>11.1f}{saved:>8.0%}")
    total_stock, total_listed = sum(r["stock_ms"] for r in rows), sum(r["listed_ms"] for r in rows)
    print(f"all {len(rows)} Triton katas: {total_stock:.0f} ms -> {total_listed:.0f} ms "
          f"({1 - total_listed / total_stock:.0%} saved)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
