"""What the Triton interpreter's patches (core/sandbox/triton_interpreter.py) save, kata by kata: each Triton
kata's model solution called on its cases through the interpreter, in a process of its own per variant (the
interpreter as Triton ships it; with its builtins listed once and NumPy dtypes mapped once; and with its types
built once and shapes compared directly as well, every patch the zygote applies), the best of `--repeats`
passes over the cases after one warm-up pass.

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
from infrakata.core.sandbox import triton_interpreter
folder, model, patches, repeats = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
problem = load_native(Path(folder))
for patch in patches:
    assert getattr(triton_interpreter, patch)(), patch
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


# Each variant applies the patches of the one before it, and more: the last is what the zygote applies.
VARIANTS = {"stock": (), "listed": ("list_builtins_once", "map_dtypes_once"),
            "typed": ("list_builtins_once", "map_dtypes_once", "make_types_once", "compare_shapes_directly")}


def measure(folder: Path, model: Path, patches: tuple[str, ...], repeats: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PASSES, str(folder), str(model), " ".join(patches), str(repeats)],
                          capture_output=True, text=True, timeout=600, cwd=REPO, check=True,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows: list[dict[str, str | float]] = []
    totals = dict.fromkeys(VARIANTS, 0.0)
    print(f"{'kata':<34}{'cases':>6}" + "".join(f"{name + ' ms':>11}" for name in VARIANTS)
          + f"{'typed/listed':>14}{'typed/stock':>13}")
    for problem in sorted(Catalog.load().problems.values(), key=lambda p: p.slug):
        source = problem.source
        if not problem.grading.triton_launch or not isinstance(source, NativeSource) or not source.model_solution:
            continue
        model = source.model_solution
        found = {name: measure(source.folder, model, patches, args.repeats) for name, patches in VARIANTS.items()}
        ms = {name: found[name]["ms"] for name in VARIANTS}
        for name in VARIANTS:
            totals[name] += ms[name]
        rows.append({"kata": problem.slug, "cases": found["stock"]["cases"], **{f"{n}_ms": v for n, v in ms.items()}})
        print(f"{problem.slug:<34}{int(found['stock']['cases']):>6}" + "".join(f"{v:>11.1f}" for v in ms.values())
              + f"{ms['typed'] / ms['listed'] - 1:>+14.0%}{ms['typed'] / ms['stock'] - 1:>+13.0%}")
    print(f"all {len(rows)} Triton katas: " + " -> ".join(f"{name} {total:.0f} ms" for name, total in totals.items())
          + f" (typed: {totals['typed'] / totals['listed'] - 1:+.0%} on listed, "
          f"{totals['typed'] / totals['stock'] - 1:+.0%} on stock)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
