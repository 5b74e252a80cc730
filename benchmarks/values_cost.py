"""What recording the first failing case's values adds to a grading: the same wrong solution graded
through one warm Runner, alternately with its values recorded (the editor with `inlineValues` on,
`kata run --values`) and without (`inlineValues` off, plain `kata run`, batch grading), so that
whatever else loads the machine falls on both alike. Both record the line that returned each output.

    .venv/bin/python benchmarks/values_cost.py [--gradings 60]

Subjects: the wrong versions that benchmarks/save_latency.py saves (scalar problems), and a wrong
gradient-accumulation solution (tensors, a model and an optimizer whose writes are followed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from infrakata.core.catalog.loading import Catalog
from infrakata.core.grading.runner import Runner

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from save_latency import SOLUTIONS  # noqa: E402 - the same wrong versions as the save benchmark

SUBJECTS = [(slug, versions[1]) for slug, versions in SOLUTIONS.items()] + [
    ("gradient-accumulation",
     (REPO / "problems" / "gradient-accumulation" / "wrong" / "steps_every_batch.py").read_text(encoding="utf-8"))]


def main(gradings: int) -> None:
    catalog = Catalog.load()
    runner = Runner()
    print(f"{'problem':<40}{'gradings':>9}{'values off p50':>16}{'on p50':>9}{'added':>9}")
    with tempfile.TemporaryDirectory(prefix="kata-values-") as folder:
        for slug, source in SUBJECTS:
            problem = catalog.problems[slug]
            path = Path(folder) / f"{slug.replace('-', '_')}.py"
            path.write_text(source, encoding="utf-8")
            times: dict[bool, list[float]] = {False: [], True: []}
            runner.run(problem, source, path)  # the reference's outputs, cached: not counted
            for index in range(2 * gradings):
                values = index % 2 == 1
                started = time.perf_counter()
                report = runner.run(problem, source, path, values=values)
                times[values].append((time.perf_counter() - started) * 1e3)
                if report.accepted or any(case.values for case in report.cases) != values:
                    raise SystemExit(f"{slug}: the wrong solution was graded unexpectedly")
            off, on = statistics.median(times[False]), statistics.median(times[True])
            print(f"{slug:<40}{gradings:>9}{off:>14.1f}ms{on:>7.1f}ms{100 * (on - off) / off:>8.1f}%")
    runner.pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gradings", type=int, default=60, help="gradings of each kind per problem")
    main(parser.parse_args().gradings)
