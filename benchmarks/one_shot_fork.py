"""What the zygote's idle imports (torch._dynamo, torch.optim) cost a one-shot command: the wall time of
`kata bench` on the CPU (the Triton interpreter's correctness gate), with the pool as `kata bench` starts
it (no idle imports) and as a long-lived command does (with them); and how long a worker asked for
`--delay` seconds after the zygote is ready waits for its first reply, in each pool.

    .venv/bin/python benchmarks/one_shot_fork.py [--repeat 3] [--delay 0.5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from infrakata.core.limits import Limits
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import SolutionSpec

REPO = Path(__file__).resolve().parents[1]
SPEC = SolutionSpec("def f():\n    return 1\n", "/tmp/f.py", "f", Limits().worker(calls=1, cuda=False))
# `kata bench` itself, its pool's idle imports switched back on when asked (core/cli/commands/bench.py one_shot).
BENCH = ("import sys, infrakata.core.cli.commands as cli\n"
         "if sys.argv[1] == 'idle-imports':\n    cli.bench.COMMAND.one_shot = False\n"
         "sys.exit(cli.main(['bench', sys.argv[2], '--problem', 'fused-row-softmax']))\n")


def bench_wall(idle_imports: bool) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BENCH, "idle-imports" if idle_imports else "one-shot",
                           str(REPO / "kernels" / "softmax.py")], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    return time.perf_counter() - started


def first_reply(idle_imports: bool, delay: float) -> float:
    pool = WorkerPool()
    pool.idle_imports = idle_imports
    try:
        pool.wait_ready()
        time.sleep(delay)
        started = time.perf_counter()
        with pool.open(SPEC, 60.0) as worker:
            assert worker.call((), {}, timeout=30.0).value == 1
        return time.perf_counter() - started
    finally:
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds between Ready and the fork request")
    args = parser.parse_args()
    for idle_imports in (False, True):
        name = "with idle imports (long-lived)" if idle_imports else "without (one-shot, kata bench)"
        walls = [bench_wall(idle_imports) for _ in range(args.repeat)]
        replies = [first_reply(idle_imports, args.delay) for _ in range(args.repeat)]
        print(f"{name}: kata bench wall median {statistics.median(walls):.2f} s "
              f"({', '.join(f'{w:.2f}' for w in walls)}); first worker's reply {args.delay:g} s after Ready: "
              f"median {statistics.median(replies) * 1e3:.0f} ms ({', '.join(f'{r * 1e3:.0f}' for r in replies)})")


if __name__ == "__main__":
    main()
