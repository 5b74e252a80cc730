"""`kata grade` and `kata leaderboard` as a user runs them: every input form (files, folders, a manifest
with files and with inline sources), every output form (JSONL, JUnit), --resume, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

KATA = Path(sys.executable).with_name("kata")
REPO = Path(__file__).resolve().parents[2]
ADAM = REPO / "problems" / "adam-optimizer-memory-bytes"
RIGHT = (ADAM / "reference.py").read_text()
WRONG = (ADAM / "wrong" / "gibibytes.py").read_text()
RUN_KEYS = {"problem", "file", "verdict", "passed", "total", "time_ms", "findings", "cases", "title", "entry_line",
            "output", "cancelled", "device"}


def kata(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(KATA), *args], capture_output=True, text=True, cwd=cwd, timeout=240)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def solutions(folder: Path) -> dict[str, Path]:
    """Two solutions in a folder (one right, one wrong) and one file beside it."""
    (folder / "class").mkdir(parents=True)
    files = {"right": folder / "class" / "adam_optimizer_memory_bytes.py",
             "wrong": folder / "class" / "bob.py",
             "single": folder / "carol.py"}
    files["right"].write_text(RIGHT)
    files["wrong"].write_text("# kata: adam-optimizer-memory-bytes\n" + WRONG)
    files["single"].write_text("# kata: adam-optimizer-memory-bytes\n" + RIGHT)
    return files


def test_files_and_folders_to_jsonl_and_junit_with_the_run_json_object(tmp_path):
    files = solutions(tmp_path)
    missing = tmp_path / "missing.py"
    done = kata("grade", str(tmp_path / "class"), str(files["single"]), str(missing),
                "--out", str(tmp_path / "r.jsonl"),
                "--junit", str(tmp_path / "junit.xml"), "--jobs", "2")
    assert done.returncode == 2, done.stderr  # a file could not be graded
    results = {r["id"]: r for r in lines(tmp_path / "r.jsonl")}
    assert set(results) == {str(files["right"]), str(files["wrong"]), str(files["single"]), str(missing)}
    assert results[str(files["right"])]["verdict"] == "accepted"
    assert results[str(files["wrong"])]["verdict"] == "wrong_answer"
    assert results[str(missing)]["verdict"] == "could_not_grade"
    assert results[str(missing)]["reason"] == f"{missing}: no such file"

    # Each line is `kata run --json`'s object plus its id.
    run = json.loads(kata("run", str(files["wrong"]), "--json").stdout)
    graded = results[str(files["wrong"])]
    assert set(graded) == set(run) | {"id", "signature"} and set(run) == RUN_KEYS
    assert [(c["id"], c["status"], c["message"]) for c in graded["cases"]] == \
        [(c["id"], c["status"], c["message"]) for c in run["cases"]]

    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "1")
    suite = root.find("testsuite[@name='adam-optimizer-memory-bytes']")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases[str(files["wrong"])].find("failure").get("type") == "wrong_answer"
    assert "case 1 (7B model): failed" in cases[str(files["wrong"])].find("failure").text
    assert cases[str(files["right"])].find("failure") is None
    error = root.find(f".//testcase[@name='{missing}']/error")
    assert error.get("type") == "could_not_grade" and "no such file" in error.get("message")
    assert "1 could not be graded" in done.stderr


def test_manifest_with_files_inline_sources_and_bad_lines(tmp_path):
    files = solutions(tmp_path)
    entries = [
        {"id": "alice", "file": "class/adam_optimizer_memory_bytes.py"},  # relative to the manifest
        {"id": "inline", "source": RIGHT, "problem": "adam-optimizer-memory-bytes"},
        {"id": "inline-wrong", "source": WRONG, "problem": "adam-optimizer-memory-bytes", "author": "dan"},
        "not json {",
        {"file": "carol.py"},
        {"id": "both", "file": "carol.py", "source": RIGHT},
        {"id": "nowhere", "source": RIGHT, "problem": "no-such-problem"},
        {"id": "alice", "file": "carol.py"},
        {"id": "unmatched", "source": "def f():\n    return 1\n"},
    ]
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("\n".join(e if isinstance(e, str) else json.dumps(e) for e in entries) + "\n\n")
    done = kata("grade", "--manifest", str(manifest), "--out", str(tmp_path / "r.jsonl"))
    assert done.returncode == 2, done.stderr
    results = {r["id"]: r for r in lines(tmp_path / "r.jsonl")}
    assert len(results) == len(entries)  # one line each, the batch went on
    assert results["alice"]["verdict"] == "accepted" and results["alice"]["file"] == str(files["right"])
    assert results["inline"]["verdict"] == "accepted" and results["inline"]["passed"] == results["inline"]["total"]
    assert results["inline-wrong"]["verdict"] == "wrong_answer"
    reasons = {i: r.get("reason") for i, r in results.items() if r["verdict"] == "could_not_grade"}
    assert reasons[f"{manifest}:4"].startswith(f"{manifest}:4: not JSON")
    assert reasons[f"{manifest}:5"] == f'{manifest}:5: no "id" (a non-empty string or a number)'
    assert reasons["both"] == f'{manifest}:6: exactly one of "file" and "source" is needed'
    assert reasons["nowhere"].startswith("no problem 'no-such-problem'")
    assert reasons[f"{manifest}:8"] == f"{manifest}:8: duplicate id 'alice' (each id is graded once)"
    assert "no problem matches" in reasons["unmatched"] or "unmatched" in reasons["unmatched"]
    assert set(reasons) == {f"{manifest}:4", f"{manifest}:5", "both", "nowhere", f"{manifest}:8", "unmatched"}


def test_resume_skips_the_ids_done_and_drops_a_line_cut_short(tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"id": f"s{i}", "source": RIGHT if i % 2 else WRONG,
                                            "problem": "adam-optimizer-memory-bytes"}) + "\n" for i in range(4)))
    out = tmp_path / "r.jsonl"
    first = kata("grade", "--manifest", str(manifest), "--out", str(out), "--jobs", "1")
    assert first.returncode == 1, first.stderr  # graded, some not accepted
    kept = out.read_text().splitlines()[:2]
    out.write_text("\n".join(kept) + "\n" + kept[0][:40])  # interrupted while writing the third line
    again = kata("grade", "--manifest", str(manifest), "--out", str(out), "--resume")
    assert again.returncode == 1, again.stderr
    final = out.read_text().splitlines()
    assert final[:2] == kept  # untouched
    ids = [json.loads(line)["id"] for line in final]
    assert sorted(ids) == ["s0", "s1", "s2", "s3"]
    assert "2 graded" in again.stdout and "2 already in the results file" in again.stdout

    nothing_left = kata("grade", "--manifest", str(manifest), "--out", str(out), "--resume")
    assert nothing_left.returncode == 1 and len(out.read_text().splitlines()) == 4
    assert "0 graded" in nothing_left.stdout


def test_all_accepted_exits_0_lines_on_stdout_and_the_leaderboard(tmp_path):
    files = solutions(tmp_path)
    done = kata("grade", str(files["right"]), str(files["single"]))
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]  # no --out: JSONL on stdout
    assert {r["id"] for r in results} == {str(files["right"]), str(files["single"])}
    assert all(r["verdict"] == "accepted" for r in results)

    out = tmp_path / "all.jsonl"
    wrong = kata("grade", str(files["wrong"]), str(tmp_path / "missing.py"))  # a second batch, appended
    out.write_text(done.stdout + wrong.stdout)
    board = kata("leaderboard", str(out), "--json")
    assert board.returncode == 0, board.stderr
    ranked = json.loads(board.stdout)["adam-optimizer-memory-bytes"]
    assert [e["rank"] for e in ranked] == [1, 2, 3] and ranked[-1]["id"] == str(files["wrong"])
    assert {e["id"] for e in ranked[:2]} == {str(files["right"]), str(files["single"])}
    text = kata("leaderboard", str(out))
    assert "adam-optimizer-memory-bytes: 2/3 accepted" in text.stdout


def test_nothing_to_grade_and_resume_without_out_cannot_grade(tmp_path):
    assert kata("grade").returncode == 2
    done = kata("grade", str(tmp_path), "--resume")
    assert done.returncode == 2 and "--resume needs --out" in done.stderr


def test_bench_adds_the_benchmark_object_to_accepted_kernel_solutions(tmp_path):
    manifest = tmp_path / "kernels.jsonl"
    manifest.write_text(json.dumps({"id": "ours", "file": str(REPO / "kernels" / "softmax.py"),
                                    "problem": "fused-row-softmax"}) + "\n"
                        + json.dumps({"id": "scalar", "source": RIGHT,
                                      "problem": "adam-optimizer-memory-bytes"}) + "\n")
    done = kata("grade", "--manifest", str(manifest), "--bench", "--out", str(tmp_path / "r.jsonl"))
    assert done.returncode == 0, done.stderr
    results = {r["id"]: r for r in lines(tmp_path / "r.jsonl")}
    bench = results["ours"]["bench"]  # kata bench --json's object; figures only on CUDA
    assert bench["problem"] == "fused-row-softmax" and bench["correct"] is True and bench["unit"] == "GB/s"
    assert "bench" not in results["scalar"]  # no [benchmark] in its problem


def test_a_folder_is_walked_without_environments_hidden_folders_or_what_gitignore_ignores(tmp_path):
    from infrakata.core.batch.submissions import collect

    root = tmp_path / "class"
    for name in ("alice.py", "team/bob.py", "team/keep.py", ".venv/lib/site.py", "node_modules/pkg/x.py",
                 ".hidden/carol.py", ".secret.py", "build/out.py", "team/scratch.tmp.py", "team/drafts/d.py",
                 "venv/lib/site.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(RIGHT)
    (root / ".gitignore").write_text("# outputs\nbuild/\n*.tmp.py\n/venv\n")
    (root / "team" / ".gitignore").write_text("drafts/\n")
    (tmp_path / ".gitignore").write_text("class/team/keep.py\n")  # above the folder: not its own rules
    (tmp_path / ".git").mkdir()  # ...unless the folder is in that git work tree
    found = [Path(s.file).relative_to(root).as_posix() for s in collect([root])]
    assert found == ["alice.py", "team/bob.py"]
    assert [s.file for s in collect([root / "build"])] == [str(root / "build" / "out.py")]  # named: walked
    (tmp_path / ".git").rmdir()
    found = [Path(s.file).relative_to(root).as_posix() for s in collect([root])]
    assert found == ["alice.py", "team/bob.py", "team/keep.py"]
    assert [s.file for s in collect([root / "build" / "out.py"])] == [str(root / "build" / "out.py")]


def test_a_problem_name_that_matches_none_gets_no_summary_row_of_its_own(tmp_path):
    manifest = tmp_path / "batch.jsonl"
    manifest.write_text(json.dumps({"id": 7, "source": RIGHT, "problem": "adam-optimizer-memory-bytez"}) + "\n"
                        + json.dumps({"id": 8, "source": RIGHT, "problem": "adam-optimizer-memory-bytes"}) + "\n")
    out = tmp_path / "r.jsonl"
    done = kata("grade", "--manifest", str(manifest), "--out", str(out))
    assert done.returncode == 2
    unknown, graded = lines(out)
    assert unknown["id"] == "7" and unknown["problem"] is None and "adam-optimizer-memory-bytez" in unknown["reason"]
    assert graded["verdict"] == "accepted"
    rows = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert "adam-optimizer-memory-bytez" not in rows and "(unresolved)" in rows, done.stdout


def test_a_batch_that_needs_no_torch_never_starts_the_zygote_with_torch():
    """Scalar submissions run in workers of the torch-free zygote; the zygote with torch (its import and idle
    imports, seconds of CPU the batch's gradings would share, and hundreds of MiB) is not started for them.
    A submission that needs torch starts it, for its own batch."""
    from infrakata.core.batch.grader import BatchGrader, run_local
    from infrakata.core.batch.submissions import Submission
    from infrakata.core.catalog.loading import Catalog
    from infrakata.core.sandbox.pool import WorkerPool

    catalog = Catalog.load([])
    adamw = (REPO / "problems" / "adamw-step" / "solution.py").read_text()
    for batch, needs_torch in (([RIGHT, WRONG], False), ([adamw], True)):
        pool = WorkerPool()
        try:
            grader = BatchGrader(catalog, pool=pool)
            problem = "adamw-step" if needs_torch else "adam-optimizer-memory-bytes"
            submissions = [Submission(f"s{i}", source=source, problem=problem) for i, source in enumerate(batch)]
            grader.warm(submissions[0])
            rows: list[dict] = []
            run_local(submissions, grader, 2, rows.append)
            assert sorted(row["verdict"] for row in rows) == (["accepted"] if needs_torch else
                                                              ["accepted", "wrong_answer"])
            assert bool(pool.info) is needs_torch  # the pool's own zygote said it was ready only if started
        finally:
            pool.close()


def test_a_batch_of_scalar_katas_never_imports_torch_in_the_grading_process_either(tmp_path):
    """Its import was a second of a core before the first grading: the comparison and the shared inputs' arena
    import torch only where a tensor can exist, which is only where something imported it."""
    solutions(tmp_path)
    out = tmp_path / "r.jsonl"
    script = ("import sys\nfrom infrakata.core.cli.commands import main\n"
              f"code = main(['grade', {str(tmp_path / 'class')!r}, '--out', {str(out)!r}])\n"
              "print('torch' in sys.modules, code)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.stdout.splitlines()[-1].split() == ["False", "1"], done.stderr  # 1: one of the two is wrong
    assert sorted(row["verdict"] for row in lines(out)) == ["accepted", "wrong_answer"]


def test_a_codestar_problem_that_only_binds_torch_is_graded_without_importing_it(tmp_path):
    """The seeds' reference_code and test_code run in the grading process and begin with `import torch`,
    `import torch.nn as nn`, `import torch.nn.functional as F`, names they never read: those bind stand-ins
    there, and the batch does not spend two seconds of a core on torch's import."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "grading"))
    from test_codestar import SEED_TEST_CODE, write_codestar

    boilerplate = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport math\n\n"
    (tmp_path / "problems").mkdir()
    codestar = write_codestar(tmp_path / "problems", reference_code=boilerplate + "def triple(x):\n    return 3 * x\n",
                              test_code=boilerplate + SEED_TEST_CODE)
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"id": name, "source": f"def triple(x):\n    return {body}\n",
                                            "problem": str(codestar)}) + "\n"
                                for name, body in (("right", "3 * x"), ("wrong", "3 * x + 1"))))
    out = tmp_path / "r.jsonl"
    script = ("import sys\nfrom infrakata.core.cli.commands import main\n"
              f"code = main(['--problems', {str(tmp_path / 'problems')!r}, 'grade', '--manifest', {str(manifest)!r}, "
              f"'--out', {str(out)!r}])\n"
              "print('torch' in sys.modules, code)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.stdout.splitlines()[-1].split() == ["False", "1"], done.stderr  # 1: one of the two is wrong
    assert {row["id"]: row["verdict"] for row in lines(out)} == {"right": "accepted", "wrong": "wrong_answer"}


def test_scalar_gradings_beside_a_reference_that_imports_torch_are_graded(tmp_path):
    """A codestar reference runs in the grading process; the first one that reads torch imports it there,
    for a second or more, while other threads grade. Those gradings saw the half-imported module as torch
    and asked it for `torch.Tensor`: a right answer came back could_not_grade ("partially initialized
    module 'torch'"). Every line must be accepted."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "grading"))
    from test_codestar import write_codestar

    problems = tmp_path / "problems"
    problems.mkdir()
    reads_torch = "import torch\n\ndef triple(x):\n    return int(torch.tensor(x) * 3)\n"
    codestar = write_codestar(problems, reference_code=reads_torch)
    with (tmp_path / "manifest.jsonl").open("w") as manifest:
        manifest.write(json.dumps({"id": "codestar", "source": "def triple(x):\n    return 3 * x\n",
                                   "problem": str(codestar)}) + "\n")
        for i in range(60):
            manifest.write(json.dumps({"id": f"adam{i}", "source": RIGHT, "problem": "adam-optimizer-memory-bytes"})
                           + "\n")
    out = tmp_path / "r.jsonl"
    done = kata("--problems", str(problems), "grade", "--manifest", str(tmp_path / "manifest.jsonl"),
                "--out", str(out), "--jobs", "3")
    reasons = {row["id"]: row.get("reason") for row in lines(out) if row["verdict"] != "accepted"}
    assert not reasons and done.returncode == 0, (reasons, done.stderr)
