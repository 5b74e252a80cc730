"""What a kata's tripwires cost per run (core/sandbox/tripwires.py).

Two figures:

1. Installing them, in the worker's own conditions: a warm parent imports what the zygote imports
   (torch, Triton, torch._dynamo, torch.optim) and forks one child per measurement, which times
   `tripwires.install(...)` with a kata's forbidden calls and switches, once, as a worker does.
2. A whole warm grading through the real pool (confined workers), of the kata's model solution (or its
   reference), with the kata's tripwires and with them removed (the same problem, its dotted forbidden
   calls and [grading] switches taken out), alternated run by run. The difference is what a save pays.

    python benchmarks/tripwire_cost.py [--runs 30] [--forks 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace

KATAS = ("logsumexp", "cross-entropy-loss", "adamw-step", "layernorm-backward", "flash-attention-forward",
         "fused-row-softmax", "tiled-matmul")
# Quick enough to repeat; tiled-matmul for a kernel kata's (its launch count and eager guard, in the interpreter).
GRADED = ("logsumexp", "cross-entropy-loss", "adamw-step", "layernorm-backward", "tiled-matmul")


def _install_ms(calls: tuple[str, ...], autograd: bool, count_launches: bool, eager_views: bool,
                forks: int) -> list[float]:
    times = []
    for _ in range(forks):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            from infrakata.core.sandbox import tripwires

            started = time.perf_counter()
            tripwires.install(calls, autograd=autograd, count_launches=count_launches, eager_views=eager_views)
            os.write(write, f"{(time.perf_counter() - started) * 1e3:.6f}".encode())
            os._exit(0)
        os.close(write)
        times.append(float(os.read(read, 64)))
        os.close(read)
        os.waitpid(pid, 0)
    return times


def _without_tripwires(problem):  # type: ignore[no-untyped-def]
    return replace(problem, forbidden_calls=tuple(c for c in problem.forbidden_calls if "." not in c),
                   grading=replace(problem.grading, autograd=True, triton_launch=False, eager="any"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--forks", type=int, default=30)
    args = parser.parse_args()

    os.environ.setdefault("TRITON_INTERPRET", "1")  # as the zygote sets it where there is no CUDA
    import torch

    torch.set_num_threads(1)
    import torch._dynamo  # noqa: F401 - what the zygote imports while idle
    import torch.optim  # noqa: F401
    import triton  # noqa: F401
    from infrakata.core.catalog.kinds import kind_of
    from infrakata.core.catalog.loading import Catalog
    from infrakata.core.grading.runner import Runner
    from infrakata.core.sandbox import child  # noqa: F401 - imported by the zygote
    from infrakata.core.sandbox.pool import WorkerPool

    catalog = Catalog.load()
    print("1. tripwires.install in a fresh fork of a warm process (ms; median, max)")
    for slug in KATAS:
        problem = catalog.problems[slug]
        wired = [c for c in problem.forbidden_calls if "." in c]
        times = _install_ms(problem.forbidden_calls, problem.grading.autograd, problem.grading.triton_launch,
                            problem.grading.eager == "views", args.forks)
        switches = [s for s, on in (("autograd off", not problem.grading.autograd),
                                    ("launches counted", problem.grading.triton_launch),
                                    ("eager views only", problem.grading.eager == "views")) if on]
        print(f"  {slug:<26} {len(wired):>2} dotted names{', ' + ', '.join(switches) if switches else '':<48}"
              f" {statistics.median(times):7.3f}  {max(times):7.3f}")

    pool = WorkerPool()
    pool.start()
    runner = Runner(pool)
    print(f"\n2. a warm grading through the pool, {args.runs} runs each, alternated (ms; p50 with, p50 without, "
          f"difference)")
    try:
        for slug in GRADED:
            problem = catalog.problems[slug]
            path = kind_of(problem).model_solution(problem) or problem.folder / "reference.py"
            source = path.read_text(encoding="utf-8")
            bare = _without_tripwires(problem)
            for variant in (problem, bare):  # warm the reference outputs and the spares
                assert runner.run(variant, source, path).accepted
            timed: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.runs):
                for wired, variant in ((True, problem), (False, bare)):
                    started = time.perf_counter()
                    runner.run(variant, source, path)
                    timed[wired].append((time.perf_counter() - started) * 1e3)
            with_, without = statistics.median(timed[True]), statistics.median(timed[False])
            print(f"  {slug:<26} {with_:8.1f} {without:8.1f} {with_ - without:+8.1f}")
    finally:
        pool.close()


if __name__ == "__main__":
    main()
