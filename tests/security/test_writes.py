"""Writing where it must not: results, the history store, a problem's files, another submission. The
only folder a worker may write is its own private one, gone with it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from infrakata.core.batch.results_file import verified
from infrakata.core.batch.submissions import collect
from infrakata.core.catalog.loading import Catalog
from infrakata.core.progress import store

from .conftest import FIXTURES, attempt, solution


def writing(paths: str, mode: str, text: str) -> str:
    """An attack body that writes `text` to each of `paths` (a tuple, as Python source), printing for each
    "wrote PATH" or "refused" and the error's type."""
    return f"""
        for path in {paths}:
            try:
                open(path, {mode!r}).write({text!r})
                print('wrote', path)
            except OSError as error:
                print('refused', type(error).__name__)
    """


def test_the_history_store_and_the_catalogue_cannot_be_written(runner, probe, tmp_path):
    database = store.user_store()
    database.parent.mkdir(parents=True, exist_ok=True)
    database.touch()
    reference = probe.folder / "reference.py"
    before = reference.read_bytes()
    paths = f"({str(database)!r}, {str(reference)!r}, {str(tmp_path / 'planted.py')!r})"
    report, message, output = attempt(runner, probe, writing(paths, "a", "forged"))
    assert report.verdict == "accepted", message
    # Not there at all (the view), or there and refused (Landlock alone).
    assert set(output.splitlines()) <= {"refused PermissionError", "refused FileNotFoundError"}, output
    assert reference.read_bytes() == before and not (tmp_path / "planted.py").exists()


def test_the_private_folder_is_writable_and_gone_after_the_run(runner, probe):
    report, message, output = attempt(runner, probe, """
        path = os.path.join(os.environ['TMPDIR'], 'scratch')
        open(path, 'w').write('x' * 1000)
        print(path, os.path.getsize(path))
    """)
    assert report.verdict == "accepted", message
    path = output.split()[0]
    assert output.split()[1] == "1000" and not Path(path).exists()


def test_what_a_worker_leaves_in_its_view_is_not_there_for_the_next(runner, probe):
    """As root every worker's view is a copy of one template, its private folder at the same path in each:
    what one writes must be gone for the next, and the view itself is read-only."""
    paths = ("(os.path.join(os.environ['TMPDIR'], 'left'), '/left', "
             "os.path.join(os.path.dirname(os.environ['TMPDIR']), 'left'))")
    report, message, output = attempt(runner, probe, writing(paths, "w", "for the next submission"))
    assert report.verdict == "accepted", message
    written, *refused = output.splitlines()[:3]  # each case's call prints the same three lines
    assert written.startswith("wrote ") and set(refused) <= {"refused PermissionError", "refused OSError"}, output
    report, message, output = attempt(runner, probe, """
        print(os.path.exists(os.path.join(os.environ['TMPDIR'], 'left')), os.listdir(os.environ['TMPDIR']))
    """)
    assert report.verdict == "accepted", message
    assert output.split()[0] == "False", output


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/dev/shm").is_dir(), reason="the templates are root's")
def test_a_zygote_removes_its_folder_without_following_its_views_into_the_machine(tmp_path):
    """The CUDA workers' view binds /dev/shm writable. The zygote's views' templates are mounted in its own
    folder: removing it must not remove the machine's files through them."""
    from infrakata.core.sandbox.confine import Confinement

    keep = Path("/dev/shm") / f"infrakata-test-{os.getpid()}"
    keep.write_text("the machine's")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    try:
        pid = os.fork()
        if pid == 0:  # a mount namespace of its own, as a zygote's
            try:
                confinement = Confinement.prepare(runtime)
                code = 0 if True in confinement.templates else 3
                confinement.remove_runtime()
            finally:
                os._exit(locals().get("code", 1))
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert keep.read_text() == "the machine's"
        assert not runtime.exists()
    finally:
        keep.unlink(missing_ok=True)


def _kata(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_a_submission_cannot_forge_results_or_overwrite_a_later_one(tmp_path):
    """Before: it appended an "accepted" line to --out (ranked first) and rewrote the next submission."""
    submissions = tmp_path / "subs"
    submissions.mkdir()
    out = tmp_path / "results.jsonl"
    later = submissions / "b_honest.py"
    later.write_text("# kata: sandbox-probe\n" + solution(""))
    forged = json.dumps({"id": "forger", "problem": "sandbox-probe", "verdict": "accepted", "passed": 9, "total": 9})
    (submissions / "a_forger.py").write_text("# kata: sandbox-probe\n" + solution(f"""
        for target, text in (({str(out)!r}, {forged!r} + '\\n'), ({str(later)!r}, 'def scale(x, f):\\n  return 0\\n')):
            try:
                open(target, 'a' if target.endswith('jsonl') else 'w').write(text)
            except OSError:
                pass
    """))
    done = _kata("grade", str(submissions), "--out", str(out), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["verdict"] for r in rows] == ["accepted", "accepted"]
    assert all(r["id"] != "forger" for r in rows)
    assert "return 0" not in later.read_text()


def test_resume_and_the_leaderboard_trust_only_the_graders_lines(tmp_path):
    """A line appended by anyone but the grader (here, by hand) is graded again, and never ranked."""
    file = tmp_path / "honest.py"
    file.write_text("# kata: sandbox-probe\n" + solution(""))
    out = tmp_path / "results.jsonl"
    assert _kata("grade", str(file), "--out", str(out), cwd=tmp_path).returncode == 0
    line = json.loads(out.read_text())
    forged = {**line, "id": "forger", "time_ms": 0.0}
    with out.open("a") as results:
        results.write(json.dumps(forged) + "\n")
        results.write(json.dumps({**line, "verdict": "wrong_answer"}) + "\n")  # a signed line, changed
    rows, unsigned = verified((json.loads(x) for x in out.read_text().splitlines()), _key())
    assert [r["id"] for r in rows] == [str(file)] and unsigned == 2
    board = _kata("leaderboard", str(out), "--json", cwd=tmp_path)
    ranked = json.loads(board.stdout)["sandbox-probe"]
    assert [e["id"] for e in ranked] == [str(file)] and "2 line(s) left out" in board.stderr
    resumed = _kata("grade", str(file), "--out", str(out), "--resume", cwd=tmp_path)
    assert "2 line(s)" in resumed.stderr and "graded again" in resumed.stderr


def _key() -> bytes:
    from infrakata.core.batch.results_file import results_key

    return results_key()


def test_a_symbolic_link_to_a_reference_is_not_a_submission(tmp_path):
    submissions = tmp_path / "subs"
    submissions.mkdir()
    (submissions / "scale.py").symlink_to(FIXTURES / "sandbox-probe" / "reference.py")
    inside = submissions / "mine.py"
    inside.write_text("# kata: sandbox-probe\n" + solution(""))
    (submissions / "alias.py").symlink_to(inside)
    found = {Path(s.id).name: s for s in collect([submissions])}
    assert "outside the submissions' folder" in found["scale.py"].error
    assert found["alias.py"].error is None and found["alias.py"].source == inside.read_text()


def test_a_fifo_submission_is_refused_at_once(tmp_path):
    fifo = tmp_path / "scale.py"
    os.mkfifo(fifo)
    (submission,) = collect([fifo])
    assert "not a regular file" in submission.error
    done = _kata("run", str(fifo), cwd=tmp_path)
    assert done.returncode == 2 and "not a regular file" in done.stderr


@pytest.fixture()
def copied_problem(tmp_path):
    folder = tmp_path / "problems" / "sandbox-probe"
    shutil.copytree(FIXTURES / "sandbox-probe", folder)
    return folder


def test_a_problem_cannot_be_rewritten_by_a_solution(runner, copied_problem):
    problem = Catalog.load([copied_problem.parent], include_bundled=False).problems["sandbox-probe"]
    reference = copied_problem / "reference.py"
    before = reference.read_text()
    report = runner.run(problem, solution(f"open({str(reference)!r}, 'w').write('def scale(x, f):\\n  return 0\\n')"),
                        "/tmp/attack.py")
    message = report.cases[0].message
    assert report.verdict == "runtime_error" and ("PermissionError" in message or "FileNotFoundError" in message)
    assert reference.read_text() == before
