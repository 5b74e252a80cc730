"""The grader's own work per case: one warm worker answering calls of a solution that does nearly nothing,
so that what is measured is the round trip (the request written, the reply read, decoded and checked) and
the comparison of its output, in wall time and in the grading process's CPU time.

    .venv/bin/python benchmarks/call_overhead.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from infrakata.core.grading.compare import Tolerance, compare
from infrakata.core.limits import Limits
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import SolutionSpec

SUBJECTS = {
    "an int": ("def f(x):\n    return x + 1\n", lambda i: (i,), lambda i: i + 1),
    "a list of 1,000 floats": ("def f(x):\n    return [v * 2 for v in x]\n",
                               lambda i: ([float(i)] * 1000,), lambda i: [2.0 * i] * 1000),
    "a 256 x 256 tensor": ("def f(x):\n    return x * 2\n",
                           lambda i: (torch.full((256, 256), float(i)),), lambda i: torch.full((256, 256), 2.0 * i)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    calls = parser.parse_args().calls
    pool = WorkerPool()
    pool.start()
    pool.wait_ready()
    try:
        for name, (source, inputs, expected) in SUBJECTS.items():
            spec = SolutionSpec(source, "/tmp/f.py", "f", Limits().worker(calls=calls + 50, cuda=False))
            with pool.open(spec, 30.0) as worker:
                for i in range(50):  # warm
                    worker.call(inputs(i), {}, timeout=10.0, trace="lines")
                walls, cpu_started = [], time.process_time()
                for i in range(calls):
                    started = time.perf_counter()
                    outcome = worker.call(inputs(i), {}, timeout=10.0, trace="lines")
                    assert compare(outcome.value, expected(i), Tolerance()).ok, outcome
                    walls.append(time.perf_counter() - started)
                cpu = (time.process_time() - cpu_started) / calls
            print(f"{name:<24} per call: wall p50 {statistics.median(walls) * 1e3:.2f} ms, grader CPU "
                  f"{cpu * 1e3:.2f} ms (request, reply decoded and checked, comparison)", flush=True)
    finally:
        pool.close()


if __name__ == "__main__":
    main()
