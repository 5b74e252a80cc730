"""What `kata check-problems --mutants` costs over the catalogue, problem by problem.

    .venv/bin/python benchmarks/mutants_cost.py [--jobs N] [SLUG...]

One warm pool and one Runner, as the command uses them. For each problem it times the preparation
of the reference outputs (which the plain check pays anyway) apart from the mutants' gradings, and
prints the mutants made, killed and declared equivalent, and the survivors. The total of the
mutants' column is what `--mutants` adds to `kata check-problems`.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="problems (default: the bundled catalogue)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="gradings at a time (default: the cores)")
    options = parser.parse_args()

    from infrakata.core.catalog.loading import Catalog
    from infrakata.core.grading.kinds import driver_of
    from infrakata.core.grading.runner import Runner
    from infrakata.core.maintenance.mutants.check import check_mutants

    catalog = Catalog.load()
    runner = Runner()
    runner.pool.wait_ready()
    slugs = options.slugs or list(catalog.problems)
    totals = [0, 0, 0, 0]
    prepare_s = mutants_s = 0.0
    print(f"{'problem':40} {'made':>5} {'killed':>6} {'equiv':>5} {'surv':>4} {'prepare s':>9} {'mutants s':>9}")
    for slug in slugs:
        problem = catalog.problems[slug]
        started = time.perf_counter()
        driver_of(problem).case_names(runner, problem)  # the reference outputs: cached from here on
        prepared = time.perf_counter()
        report = check_mutants(problem, runner, options.jobs)
        done = time.perf_counter()
        row = [report.made, report.killed, report.equivalent, report.survivors]
        totals = [t + r for t, r in zip(totals, row, strict=True)]
        prepare_s += prepared - started
        mutants_s += done - prepared
        print(f"{slug:40} {row[0]:5} {row[1]:6} {row[2]:5} {row[3]:4} {prepared - started:9.2f} {done - prepared:9.2f}")
    print(f"{'total':40} {totals[0]:5} {totals[1]:6} {totals[2]:5} {totals[3]:4} {prepare_s:9.2f} {mutants_s:9.2f}")
    print(f"--mutants adds {mutants_s:.1f} s over {len(slugs)} problems ({options.jobs} gradings at a time)")


if __name__ == "__main__":
    main()
