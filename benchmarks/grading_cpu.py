"""Where a warm grading's CPU goes, by process: the grader's own (its Python, its reference, its round trips),
the zygote's (its forks, their page tables and copies on write) and the workers' (each one's confinement,
its run and its exit: the zygote reaps them, so their time is its children's). Gradings one after another
through one pool, kata by kata, each kata's model solution (or its reference); CPU from the kernel's own
accounts (os.times, /proc/PID/stat), so the machine's other work does not count, only its slowing of this.

    .venv/bin/python benchmarks/grading_cpu.py [--gradings 200] [SLUG ...]

Default katas: the scalar seed and a torch one (adam-optimizer-memory-bytes, activation-checkpointing-sqrt-memory,
gradient-accumulation).
"""

from __future__ import annotations

import argparse
import os
import time

from infrakata.core.catalog.loading import Catalog
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import procfs
from infrakata.core.sandbox.child import ZYGOTE_NAME
from infrakata.core.sandbox.pool import WorkerPool

DEFAULT = ("adam-optimizer-memory-bytes", "activation-checkpointing-sqrt-memory", "gradient-accumulation")
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def zygotes_cpu() -> tuple[float, float]:
    """(the zygotes' own CPU seconds, their reaped children's): every zygote this process started."""
    own = reaped = 0.0
    for pid in procfs.children(os.getpid()):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().strip() != ZYGOTE_NAME.decode():
                    continue
        except OSError:
            continue
        fields = procfs.stat_fields(pid)  # [state, ppid, ...]: utime, stime, cutime, cstime are 11 to 14
        own += (int(fields[11]) + int(fields[12])) * TICK_S
        reaped += (int(fields[13]) + int(fields[14])) * TICK_S
    return own, reaped


def measure(runner: Runner, catalog: Catalog, slug: str, gradings: int) -> str:
    problem = catalog.get(slug)
    model = problem.folder / "solution.py"
    source = (model if model.exists() else problem.folder / "reference.py").read_text(encoding="utf-8")
    for _ in range(5):  # warm: the prepared cases, the zygote's spares
        report = runner.run(problem, source, "/tmp/kata-grading-cpu/solution.py")
    time.sleep(1)
    grader, zygote, started = os.times(), zygotes_cpu(), time.perf_counter()
    for _ in range(gradings):
        report = runner.run(problem, source, "/tmp/kata-grading-cpu/solution.py")
    wall = time.perf_counter() - started
    grader_after, zygote_after = os.times(), zygotes_cpu()
    per = 1e3 / gradings
    own = ((grader_after.user - grader.user) + (grader_after.system - grader.system)) * per
    forks, workers = (zygote_after[0] - zygote[0]) * per, (zygote_after[1] - zygote[1]) * per
    return (f"| {slug} | {report.verdict} | {len(report.cases)} | {wall * per:.1f} | {own:.1f} | {forks:.1f} | "
            f"{workers:.1f} | {own + forks + workers:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("katas", nargs="*", default=list(DEFAULT))
    parser.add_argument("--gradings", type=int, default=200)
    args = parser.parse_args()
    catalog = Catalog.load([], include_bundled=True)
    pool = WorkerPool()
    try:
        runner = Runner(pool)
        print("| kata | verdict | cases | wall ms | grader CPU ms | zygote CPU ms | workers CPU ms | total CPU ms |\n"
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
        for slug in args.katas:
            print(measure(runner, catalog, slug, args.gradings), flush=True)
    finally:
        pool.close()


if __name__ == "__main__":
    main()
