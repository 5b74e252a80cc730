"""The Python API's throughput beside `kata grade`'s, on the mixed workload of benchmarks/batch_throughput.py
(copies of the seed problems with a 0.3 s time limit; per 50 submissions 34 right, 8 wrong, 3 raising,
3 crashing, 2 slow), each graded once by a `kata grade` process and once by a process that grades the same
submissions through `Grader.grade_many`, with the same number of jobs.

    .venv/bin/python benchmarks/api_throughput.py [--sizes 200,1000] [--jobs 2] [--json results.json]

"rate" counts from the process's start to its exit (start-up and the pool's start included); "steady" is
the rate each reports itself: `kata grade` from its first grading, the API over its `grade_many` call. Both
must give the same verdicts; memory is the peak of each process tree, as batch_throughput.py samples it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import batch_throughput as batch


def api_run(manifest: Path, count: int, jobs: int) -> dict:
    """This script in a process of its own (--grade-manifest), measured as batch_throughput.py measures kata grade."""
    run = batch.measured([sys.executable, __file__, "--grade-manifest", str(manifest), "--jobs", str(jobs)])
    reported = json.loads(run["stdout"].splitlines()[-1]) if run["code"] == 0 else {}
    result = {"mode": f"API grade_many, jobs {jobs}", "n": count, "wall_s": round(run["wall_s"], 2),
              "rate": round(count / run["wall_s"], 1), "cpu_ms_per_grading": round(run["cpu_s"] / count * 1e3, 1),
              "steady_rate": reported.get("steady_rate"), "peak_rss_mib": round(run["peak_rss_mib"]),
              "peak_pss_mib": round(run["peak_pss_mib"]), "verdicts": reported.get("verdicts"), "exit": run["code"]}
    if run["code"] != 0:
        result["error"] = run["stderr"][-2000:]
    print(json.dumps(result), flush=True)
    return result


def grade_manifest(manifest: Path, jobs: int) -> None:
    """The measured process: the manifest's submissions through the API; prints its own rate and verdicts."""
    from infrakata import Grader, Source

    entries = [json.loads(line) for line in manifest.read_text().splitlines()]
    sources = [Source((manifest.parent / e["file"]).read_text(), e["file"], e["problem"]) for e in entries]
    with Grader(manifest.parent.parent, jobs=jobs) as grader:  # the problems' copies, as kata grade gets them
        started = time.perf_counter()
        results = grader.grade_many(sources)
        elapsed = time.perf_counter() - started
    print(json.dumps({"steady_rate": round(len(results) / elapsed, 1),
                      "verdicts": dict(Counter(r.verdict for r in results))}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200,1000")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--grade-manifest", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.grade_manifest:
        grade_manifest(args.grade_manifest, args.jobs)
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print(f"load average before: {os.getloadavg()}, cores: {os.cpu_count()}", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="kata-api-bench-") as tmp:
        root = Path(tmp)
        problems = batch.make_problems(root, scalar_only=True)
        print(f"problems: {', '.join(Path(p).name for p, _, _ in problems)}", flush=True)
        for n in sorted(set(sizes)):
            manifest = batch.make_batch(root, problems, n)
            graded = batch.grade_run(manifest, n, f"kata grade --jobs {args.jobs}", ["--jobs", str(args.jobs)])
            results += [graded, api_run(manifest, n, args.jobs)]
            if graded["verdicts"] != results[-1]["verdicts"]:  # a right answer near its 0.3 s limit, under load
                print(f"note: n={n}: the verdicts differ: {graded['verdicts']} and {results[-1]['verdicts']}")
    print(f"load average after: {os.getloadavg()}", flush=True)
    print("\n| mode | n | wall s | rate /s | steady /s | CPU ms/grading | peak RSS MiB | peak PSS MiB |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['mode']} | {r['n']} | {r['wall_s']} | {r['rate']} | {r['steady_rate'] or '-'} | "
              f"{r['cpu_ms_per_grading']} | {r['peak_rss_mib']} | {r['peak_pss_mib']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    sys.exit(main())
