"""Median time to grade a solution: through the warm pool vs a cold `kata run` process, side by side.

    .venv/bin/python benchmarks/grade_latency.py [--warm 30] [--cold 5]

For each seed problem (native and codestar forms) it grades the reference (accepted) and a wrong
solution (rejected) alternately: warm through one Runner with its zygote, cold as a fresh
`kata run --json` process per grading, which is what a save costs without infrakata's warm pool.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEEDS = next((p for p in (REPO / "shared" / "seeds", REPO.parent / "shared" / "seeds") if p.is_dir()), None)
KATA = Path(sys.executable).with_name("kata")

# (problem: slug or path, a wrong solution's source)
SUBJECTS = [
    ("adam-optimizer-memory-bytes", "def adam_memory_bytes(num_params):\n    return num_params * 8\n"),
    ("activation-checkpointing-sqrt-memory",
     "def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):\n"
     "    return float(num_layers // checkpoint_interval * boundary_input_mb + checkpoint_interval * layer_act_mb)\n"),
    ("gradient-accumulation", (REPO / "problems/gradient-accumulation/wrong/unscaled_loss.py")),
]
if SEEDS:
    SUBJECTS += [(str(SEEDS / "codestar-adam-optimizer-memory-bytes.json"), SUBJECTS[0][1]),
                 (str(SEEDS / "codestar-activation-checkpointing-sqrt-memory.json"), SUBJECTS[1][1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=30, help="warm gradings per problem")
    parser.add_argument("--cold", type=int, default=5, help="cold processes per problem")
    options = parser.parse_args()

    from infrakata.core.catalog.loading import Catalog
    from infrakata.core.grading.runner import Runner

    catalog = Catalog.load()
    runner = Runner()
    runner.pool.wait_ready()
    folder = Path(tempfile.mkdtemp(prefix="kata-latency-"))
    print(f"{'problem':<44} {'warm median':>12} {'cold median':>12} {'speed-up':>9}")
    for name, wrong in SUBJECTS:
        problem = catalog.get(name)
        wrong_source = wrong.read_text() if isinstance(wrong, Path) else wrong
        files = []
        for label, source in (("right", problem.reference_source), ("wrong", wrong_source)):
            path = folder / f"{problem.slug.replace('-', '_')}_{label}.py"
            path.write_text(source)
            files.append((path, source))
        runner.run(problem, *reversed(files[0]))  # fills the reference cache, as the first save does
        warm = []
        for i in range(options.warm):
            path, source = files[i % 2]
            started = time.perf_counter()
            runner.run(problem, source, path)
            warm.append((time.perf_counter() - started) * 1e3)
        cold = []
        for i in range(options.cold):
            path, _ = files[i % 2]
            started = time.perf_counter()
            done = subprocess.run([str(KATA), "run", str(path), "--problem", name, "--json"], capture_output=True)
            cold.append((time.perf_counter() - started) * 1e3)
            assert json.loads(done.stdout)["problem"] == problem.slug, done.stderr
        label = problem.slug + (" (codestar)" if problem.kind == "codestar" else "")
        w, c = statistics.median(warm), statistics.median(cold)
        print(f"{label:<44} {w:>9.1f} ms {c:>9.0f} ms {c / w:>8.0f}x", flush=True)


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    main()
