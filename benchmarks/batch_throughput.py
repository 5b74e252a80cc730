"""Batch grading throughput: `kata grade` on 100, 1,000 and 10,000 submissions, beside a cold `kata run`
loop, locally and on Ray on this machine (each with `kata grade`'s own --jobs unless one is given); the peak
memory of each run's process tree.

    .venv/bin/python benchmarks/batch_throughput.py [--sizes 100,1000,10000] [--ray-sizes 1000,10000]
                                                    [--cold 12] [--jobs N] [--json results.json]

The submissions cycle through the seed problems (adam-optimizer-memory-bytes,
activation-checkpointing-sqrt-memory, gradient-accumulation, and the two codestar seeds of
../shared/seeds when they are there), copied with a short time limit (0.3 s) so that a slow
submission costs what a slow one costs in a real batch. The mix, per 50 submissions: 34 right, 8 wrong,
3 raising, 3 crashing (a segfault: a read of address 0, since seccomp refuses the signal that
faulthandler._sigsegv sends) and 2 slow (sleep past the limit); a verdict other than its kind's is counted
as "unexpected" and fails the run. Each run is a real `kata grade`
process; "rate" counts from the process's start to its exit (what a user waits for), "steady" is the
grading rate it reports itself (from its first grading, or from its actors being ready). Memory: the
peak, over the run, of the summed resident size (RSS) of the process and all its descendants (the
zygote, the forked workers, Ray's raylet, GCS and actors), sampled every 0.1 s; forked workers share
most of their pages with the zygote, so the sum overstates what the machine spends, and PSS (the
proportional set size, sampled every second) is given beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KATA = Path(sys.executable).with_name("kata")
SEEDS = next((p for p in (REPO / "shared" / "seeds", REPO.parent / "shared" / "seeds") if p.is_dir()), None)
TIME_LIMIT_S = 0.3
MIX = ["right"] * 34 + ["wrong"] * 8 + ["raises"] * 3 + ["crashes"] * 3 + ["slow"] * 2  # per 50
random.Random(11).shuffle(MIX)
EXPECTED = {"right": "accepted", "wrong": "wrong_answer", "raises": "runtime_error", "crashes": "crashed",
            "slow": "time_limit_exceeded"}
NATIVE = ("adam-optimizer-memory-bytes", "activation-checkpointing-sqrt-memory", "gradient-accumulation")
CODESTAR = ("codestar-adam-optimizer-memory-bytes.json", "codestar-activation-checkpointing-sqrt-memory.json")


def make_problems(root: Path, scalar_only: bool) -> list[tuple[str, str, str]]:
    """Copies of the seed problems with a short time limit, in `root` -> [(problem path, entry point,
    reference)]. Each copy has a slug of its own, so that `--problems root` adds it beside the bundled
    catalogue: a manifest names its problem by a path into the catalogue."""
    problems = []
    for slug in NATIVE:
        if scalar_only and slug == "gradient-accumulation":  # trains a small model per case: ~4x a scalar one
            continue
        folder = root / f"bench-{slug}"  # a native problem's folder is named by its slug
        shutil.copytree(REPO / "problems" / slug, folder, ignore=shutil.ignore_patterns("wrong", "__pycache__"))
        toml = folder / "problem.toml"
        text = re.sub(r"^time_limit = .*$", f"time_limit = {TIME_LIMIT_S}", toml.read_text(), flags=re.M)
        text = re.sub(r'^slug = "(.*)"$', r'slug = "bench-\1"', text, flags=re.M)
        toml.write_text(text)
        entry = re.search(r'^entry_point = "(.*)"', text, re.M).group(1)
        problems.append((str(folder), entry, (folder / "reference.py").read_text()))
    for name in CODESTAR if SEEDS else ():
        data = json.loads((SEEDS / name).read_text(encoding="utf-8"))
        data["time_limit"] = TIME_LIMIT_S
        data["slug"] = f"bench-codestar-{data['slug']}"
        target = root / name
        target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        problems.append((str(target), data["entry_point"], data["reference_code"]))
    return problems


def variant(kind: str, entry: str, reference: str) -> str:
    if kind == "right":
        return reference
    body = {"wrong": "    return _reference(*args, **kwargs) * 2 + 1\n",
            "raises": "    raise ValueError('not implemented yet')\n",
            "crashes": "    import faulthandler\n    faulthandler._read_null()\n",
            "slow": "    import time\n    time.sleep(10)\n"}[kind]
    return f"{reference}\n\n_reference = {entry}\n\n\ndef {entry}(*args, **kwargs):\n{body}"


def make_batch(root: Path, problems: list[tuple[str, str, str]], count: int, mix: list[str] = MIX) -> Path:
    """`count` solution files and their manifest."""
    folder = root / f"batch-{count}"
    folder.mkdir()
    with (folder / "manifest.jsonl").open("w") as manifest:
        for i in range(count):
            problem, entry, reference = problems[i % len(problems)]
            kind = mix[(i // len(problems)) % len(mix)]
            file = folder / f"s{i:05d}_{kind}.py"
            file.write_text(variant(kind, entry, reference))
            manifest.write(json.dumps({"id": f"s{i:05d}", "file": file.name, "problem": problem}) + "\n")
    return folder / "manifest.jsonl"


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    ppid = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def _rss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


def _pss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) * 1024 for line in rollup if line.startswith("Pss:"))
        except (OSError, StopIteration, ValueError):
            continue
    return total


def measured(command: list[str], cwd: Path | None = None) -> dict:
    """Run a command; its wall time, output and the peak RSS (sampled every 0.1 s) and PSS (every 1 s:
    reading smaps of processes that map torch costs CPU) of its process tree."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                               env={**os.environ, "COLUMNS": "200", "RAY_AUTH_MODE": "disabled"})
    peak = {"rss": 0, "pss": 0}
    done = threading.Event()

    def sample() -> None:
        ticks = 0
        while not done.wait(0.1):
            pids = _tree(process.pid)
            peak["rss"] = max(peak["rss"], _rss(pids))
            if ticks % 10 == 5:
                peak["pss"] = max(peak["pss"], _pss(pids))
            ticks += 1

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": time.perf_counter() - started, "cpu_s": cpu, "code": process.returncode, "stdout": stdout,
            "stderr": stderr, "peak_rss_mib": peak["rss"] / 2**20, "peak_pss_mib": peak["pss"] / 2**20}


def grade_run(manifest: Path, count: int, label: str, extra: list[str]) -> dict:
    out = manifest.parent / f"results-{label}.jsonl"
    # The problems' copies are beside the batch's folder (make_problems, make_batch).
    run = measured([str(KATA), "--problems", str(manifest.parent.parent), "grade", "--manifest", str(manifest),
                    "--out", str(out), *extra])
    lines = out.read_text().splitlines() if out.exists() else []
    ids = [json.loads(line)["id"] for line in lines]
    verdicts: dict[str, int] = {}
    unexpected = 0  # a verdict other than its kind's (make_batch names each file by its kind)
    for line in lines:
        row = json.loads(line)
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
        unexpected += row["verdict"] != EXPECTED[Path(row["file"]).stem.rpartition("_")[2]]
    steady = re.search(r"(\d+) graded in ([\d.]+) s \(([\d.]+)/s\)", run["stdout"] + run["stderr"])
    result = {"mode": label, "n": count, "wall_s": round(run["wall_s"], 2), "rate": round(count / run["wall_s"], 1),
              "cpu_ms_per_grading": round(run["cpu_s"] / count * 1e3, 1),
              "steady_rate": float(steady.group(3)) if steady else None,
              "peak_rss_mib": round(run["peak_rss_mib"]), "peak_pss_mib": round(run["peak_pss_mib"]),
              "lines": len(lines), "unique_ids": len(set(ids)), "verdicts": verdicts, "unexpected": unexpected,
              "exit": run["code"]}
    if len(lines) != count or len(set(ids)) != count or unexpected:
        result["error"] = run["stderr"][-2000:]
    print(json.dumps(result), flush=True)
    return result


def cold_loop(manifest: Path, sample: int) -> dict:
    """`kata run FILE --problem P --json` once per submission, for the first `sample` of the batch."""
    entries = [json.loads(line) for line in manifest.read_text().splitlines()[:sample]]
    started = time.perf_counter()
    peak_rss = peak_pss = 0.0
    cpu = 0.0
    for entry in entries:
        run = measured([str(KATA), "run", entry["file"], "--problem", entry["problem"], "--json"], cwd=manifest.parent)
        peak_rss, peak_pss = max(peak_rss, run["peak_rss_mib"]), max(peak_pss, run["peak_pss_mib"])
        cpu += run["cpu_s"]
    wall = time.perf_counter() - started
    result = {"mode": "cold kata run loop", "n": sample, "wall_s": round(wall, 2), "rate": round(sample / wall, 2),
              "cpu_ms_per_grading": round(cpu / sample * 1e3, 1),
              "steady_rate": None, "peak_rss_mib": round(peak_rss), "peak_pss_mib": round(peak_pss)}
    print(json.dumps(result), flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--ray-sizes", default="1000,10000")
    parser.add_argument("--cold", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=None,
                        help="`kata grade --jobs N` (default: none given, kata grade's own, three per core)")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--answers-only", action="store_true",
                        help="only right and wrong answers (34:8), no raising, crashing or slow submissions")
    parser.add_argument("--all-problems", action="store_true",
                        help="add gradient-accumulation (torch training per case) to the scalar seed problems")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    ray_sizes = [int(s) for s in args.ray_sizes.split(",") if s]
    print(f"load average before: {os.getloadavg()}, cores: {os.cpu_count()}", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="kata-batch-bench-") as tmp:
        root = Path(tmp)
        problems = make_problems(root, scalar_only=not args.all_problems)
        print(f"problems: {', '.join(Path(p).name for p, _, _ in problems)}", flush=True)
        mix = [kind for kind in MIX if kind in ("right", "wrong")] if args.answers_only else MIX
        manifests = {n: make_batch(root, problems, n, mix) for n in sorted(set(sizes + ray_sizes))}
        if args.cold:
            results.append(cold_loop(manifests[min(manifests)], args.cold))
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        for n in sizes:
            results.append(grade_run(manifests[n], n, " ".join(["local", *jobs]), jobs))
        for n in ray_sizes:
            results.append(grade_run(manifests[n], n, " ".join(["ray", *jobs]), ["--ray", *jobs]))
    print(f"load average after: {os.getloadavg()}", flush=True)
    print("\n| mode | n | wall s | rate /s | steady /s | CPU ms/grading | peak RSS MiB | peak PSS MiB |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['mode']} | {r['n']} | {r['wall_s']} | {r['rate']} | {r['steady_rate'] or '-'} | "
              f"{r.get('cpu_ms_per_grading', '-')} | {r['peak_rss_mib']} | {r['peak_pss_mib']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    sys.exit(main())
