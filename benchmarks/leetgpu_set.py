"""Grades a clone of LeetGPU's public challenge set through the `leetgpu` kind: each challenge's reference_impl as a
solution (must be accepted) and a copy whose first output element is one off (must be rejected), with `kata grade`
as a user would run it. With `--solutions DIR`, also each solution there (community Triton solutions, say), matched
to its challenge by its solve signature and name, whose verdict must be an in-process oracle's: the solution called
in this process on the same tests, its outputs within the challenge's atol and rtol of the reference's and every
other argument unchanged. Prints a line per miss and the tally.

    .venv/bin/python benchmarks/leetgpu_set.py PATH/TO/leetgpu-challenges [--jobs N] [--only SLUG ...]
        [--solutions DIR]

Nothing of the set is written anywhere but a temporary folder of solutions, removed at the end.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from infrakata.core.catalog.loading import Catalog

KATA = Path(sys.executable).with_name("kata")
os.environ.setdefault("TRITON_INTERPRET", "1")  # the oracle's Triton, as kata's without CUDA (before triton loads)
# One thread for the oracle's numpy and torch, as a kata worker has (core/sandbox/pool.py): with a pool of threads
# the interpreter's many small operations ran 2 to 3 times slower here, and right solutions ran past the limit.
for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

ONE_OFF = '''

_reference_solve = solve


def solve(*args):
    _reference_solve(*args)
    output = args[{position}]
    flat = output.view(-1) if output.is_contiguous() else output.reshape(-1)
    if flat.numel():
        if output.dtype == torch.bool:
            flat[0] = flat[0] ^ 1
        else:  # one off by more than any tolerance a challenge sets, whatever the value's size
            flat[0] = flat[0] * 2 + 1 if output.is_floating_point() else flat[0] + 1
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--solutions", type=Path, default=None)
    args = parser.parse_args()
    catalog = Catalog.load([args.clone], include_bundled=False)
    for error in catalog.errors:
        print(f"not loaded: {error}")
    expected: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="leetgpu-set-") as folder:
        for slug, problem in catalog.problems.items():
            if args.only and slug not in args.only:
                continue
            header = f"# kata: {slug}\n"
            (Path(folder) / f"{slug}__reference.py").write_text(header + problem.reference_source)
            expected[f"{slug}__reference.py"] = "accepted"
            outputs = problem.grading.state
            if outputs:
                parameters = _parameters(problem)
                position = parameters.index(outputs[0])
                (Path(folder) / f"{slug}__one_off.py").write_text(
                    header + problem.reference_source + ONE_OFF.format(position=position))
                expected[f"{slug}__one_off.py"] = "rejected"
        if args.solutions:
            for path, slug in _matched(args.solutions, catalog).items():
                if args.only and slug not in args.only:
                    continue
                name = f"{slug}__{path.stem}.py"
                (Path(folder) / name).write_text(f"# kata: {slug}\n" + path.read_text())
                expected[name] = "accepted" if _oracle_accepts(catalog.problems[slug], path) else "rejected"
        done = subprocess.run([str(KATA), "--problems", str(args.clone), "grade", folder, "--jobs", str(args.jobs)],
                              capture_output=True, text=True, check=False)
    rows = {Path(r["file"]).name: r for r in (json.loads(line) for line in done.stdout.splitlines()
                                              if line.startswith("{"))}
    good = 0
    for name, want in sorted(expected.items()):
        row = rows.get(name)
        verdict = row["verdict"] if row else "missing"
        right = verdict == "accepted" if want == "accepted" else verdict not in ("accepted", "could_not_grade")
        good += right
        if not right:
            detail = (row or {}).get("reason") or next((c["message"] for c in (row or {}).get("cases", [])
                                                        if c["status"] != "passed"), "")
            print(f"MISS {name}: {verdict} (want {want}): {detail[:300]}")
    print(f"{good} of {len(expected)} as expected")
    return 0 if good == len(expected) else 1


def _matched(folder: Path, catalog: Catalog) -> dict[Path, str]:
    """Each solution's challenge: of those whose solve signature has its parameters, the nearest by name."""
    signatures = {slug: _parameters(problem) for slug, problem in catalog.problems.items()}
    found = {}
    for path in sorted(folder.glob("*.py")):
        # solve's parameters, read without parsing the file (a solution with a syntax error is graded too)
        solve = re.search(r"^def solve\((.*?)\)", path.read_text(), re.M | re.S)
        if solve is None:
            print(f"unmatched {path.name}: no solve()")
            continue
        wanted = [p.split(":")[0].strip() for p in solve.group(1).split(",") if p.strip()]
        # the same parameters (in any case), else as many (a solution to an older version of the challenge, which
        # is called positionally)
        candidates = [slug for slug, parameters in signatures.items() if [p.lower() for p in parameters] ==
                      [w.lower() for w in wanted]] or \
            [slug for slug, parameters in signatures.items() if len(parameters) == len(wanted)]
        if not candidates:
            print(f"unmatched {path.name}: no challenge's solve takes {len(wanted)} arguments")
            continue
        found[path] = max(candidates, key=lambda slug: _likeness(path.stem, slug.removeprefix("leetgpu-")))
        print(f"matched {path.name} to {found[path]}")
    return found


def _likeness(stem: str, folder: str) -> float:
    """How alike a file's name is to a challenge's folder, by the letters or by the initials (a file named
    gaussian_error_gated_linear_unit solves geglu)."""
    names = [w for w in re.split(r"[^a-z0-9]+", stem.lower()) if w and w not in ("easy", "medium", "hard")]
    target = re.sub(r"^\d+|[^a-z0-9]", "", folder.lower())
    return max(difflib.SequenceMatcher(None, "".join(names), target).ratio(),
               difflib.SequenceMatcher(None, "".join(n[0] for n in names), target).ratio())


def _oracle_accepts(problem, path: Path) -> bool:
    """The in-process oracle: the solution and the reference called here on the same tests (those kata grades
    without CUDA), each call within the challenge's time limit, outputs within its tolerances, every other
    argument unchanged. Not the fresh case: a solution right on the fixed tests and wrong on fresh inputs is
    a miss of this oracle's, said as one."""
    import torch
    from infrakata.core.grading.kinds.leetgpu import cases, reference

    torch.set_num_threads(1)

    def over_time(signum, frame):
        raise TimeoutError(f"a test ran past the challenge's {problem.time_limit:g} s")

    signal.signal(signal.SIGALRM, over_time)
    namespace: dict = {"__name__": f"solution_{path.stem}"}
    try:
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        outputs = set(problem.grading.state)
        parameters = _parameters(problem)
        for case in cases(problem, on_cpu=True):
            want = [a.clone() if isinstance(a, torch.Tensor) else a for a in case.args]
            got = [a.clone() if isinstance(a, torch.Tensor) else a for a in case.args]
            reference(problem)(*want)
            signal.setitimer(signal.ITIMER_REAL, problem.time_limit)  # kata's limit on a case's call
            try:
                namespace["solve"](*got)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            for name, w, g in zip(parameters, want, got, strict=False):
                if not isinstance(w, torch.Tensor):
                    continue
                if name in outputs and w.is_floating_point():
                    if not torch.allclose(g.float(), w.float(), atol=problem.atol, rtol=problem.rtol):
                        return False
                elif not torch.equal(g, w):
                    return False
    except Exception:
        return False
    return True


def _parameters(problem) -> list[str]:
    import inspect

    from infrakata.core.grading.kinds.leetgpu import reference

    return list(inspect.signature(reference(problem)).parameters)


if __name__ == "__main__":
    sys.exit(main())
