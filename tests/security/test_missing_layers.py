"""A machine without a layer: what the other layers still keep out of reach, and what `kata doctor` and
the warning line say is exposed. The machine is made to lack a layer by tests/layers_off.py, which
answers the system calls the layer is made with as a kernel or container without it would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import FIXTURES, REPO, solution

LAYERS_OFF = REPO / "tests" / "layers_off.py"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox's layers are Linux's")

# Each prints "<what>: <first bytes>" or "<what>: refused <error>".
READ = """
    for what, path in TARGETS:
        try:
            with open(path, 'rb') as target:
                print(what + ':', target.read(24))
        except OSError as error:
            print(what + ':', 'refused', type(error).__name__)
"""


def _kata(off: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(LAYERS_OFF), off, "--", sys.executable, "-m", "infrakata.core.cli",
                           "--problems", str(FIXTURES), *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, **(env or {})})


def _doctor(off: str, cwd: Path) -> dict:
    done = _kata(off, "doctor", "--json", cwd=cwd)
    return {layer["name"]: layer for layer in json.loads(done.stdout)["layers"]}


def _attack(off: str, tmp_path: Path, targets: list[tuple[str, Path]]) -> tuple[subprocess.CompletedProcess[str],
                                                                             dict[str, str]]:
    attack = tmp_path / "scale.py"
    named = [(what, str(path)) for what, path in targets]
    attack.write_text("# kata: sandbox-probe\n" + solution(READ, prelude=f"TARGETS = {named!r}"))
    done = _kata(off, "run", str(attack), "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    found = dict(line.split(": ", 1) for line in report.get("output", "").splitlines() if ": " in line)
    return done, found


def test_without_landlock_the_view_keeps_every_file_out_of_reach(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.py").write_text("my own solution\n")
    os.chmod(workspace / "notes.py", 0o644)
    other = tmp_path / "submissions" / "bob.py"
    other.parent.mkdir()
    other.write_text("bob's answer\n")
    done, found = _attack("landlock", tmp_path, [("workspace", workspace / "notes.py"), ("submission", other),
                                                 ("answer", FIXTURES / "sandbox-probe" / "reference.py")])
    assert found == dict.fromkeys(("workspace", "submission", "answer"), "refused FileNotFoundError"), done.stdout
    layers = _doctor("landlock", tmp_path)
    assert not layers["landlock"]["active"] and layers["view"]["active"]
    assert layers["landlock"]["exposes"] == [] and layers["landlock"]["fix"]
    assert "nothing more is in reach" in done.stderr  # the warning line says what is exposed: nothing


def test_without_namespaces_proc_shows_the_worker_its_own_entry_only(tmp_path):
    """Before: without a PID namespace a worker read the grader's and its siblings' command lines."""
    grader_like = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "--secret-token"])
    try:
        done, found = _attack("namespaces", tmp_path, [("other", Path(f"/proc/{grader_like.pid}/cmdline")),
                                                       ("own", Path("/proc/self/status"))])
    finally:
        grader_like.kill()
        grader_like.wait(10)
    assert found["other"] == "refused PermissionError" and found["own"].startswith("b'Name:"), done.stdout
    layers = _doctor("namespaces", tmp_path)
    assert not layers["namespaces"]["active"] and layers["landlock"]["active"]
    assert "of /proc, its own entry only" in layers["landlock"]["detail"]


@pytest.mark.skipif(os.geteuid() != 0, reason="a worker has a uid of its own only where the grader is root")
def test_with_neither_the_graders_own_files_are_unreadable_and_the_rest_is_said(request):
    """Without the view and Landlock only file modes stand in the way: the grader's results and store are
    its user's alone (they were 0644), and what any user may read is said to be exposed."""
    tmp_path = Path(tempfile.mkdtemp(dir="/tmp", prefix="kata-no-layers-"))  # above it, folders all may enter
    os.chmod(tmp_path, 0o755)
    request.addfinalizer(lambda: shutil.rmtree(tmp_path, ignore_errors=True))
    data = tmp_path / "data"
    right = tmp_path / "sub" / "scale.py"
    right.parent.mkdir()
    right.write_text("# kata: sandbox-probe\n" + solution(""))
    results = tmp_path / "results.jsonl"
    assert _kata("namespaces,landlock", "grade", str(right.parent), "--out", str(results), cwd=tmp_path,
                 env={"XDG_DATA_HOME": str(data)}).returncode == 0
    _kata("namespaces,landlock", "run", str(right), cwd=tmp_path, env={"XDG_DATA_HOME": str(data)})
    store = data / "infrakata" / "history.sqlite"
    assert (results.stat().st_mode & 0o777, store.stat().st_mode & 0o777) == (0o600, 0o600)
    public = tmp_path / "public.txt"
    public.write_text("anyone may read this\n")
    done, found = _attack("namespaces,landlock", tmp_path, [("results", results), ("store", store),
                                                            ("public", public)])
    assert found["results"] == found["store"] == "refused PermissionError", done.stdout
    assert found["public"].startswith("b'anyone"), done.stdout
    assert "read every file that any user may read here" in done.stderr
    layers = _doctor("namespaces,landlock", tmp_path)
    assert any(what.startswith("see the machine's other processes") for what in layers["namespaces"]["exposes"])
    strict = _kata("namespaces,landlock", "--isolation", "strict", "run", str(right), cwd=tmp_path)
    assert strict.returncode == 2 and "isolation is \"strict\" and the sandbox lacks" in strict.stderr
