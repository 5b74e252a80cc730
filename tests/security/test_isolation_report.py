"""kata doctor says which layers hold, and isolation = "strict" refuses to grade without all of them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from infrakata.core.errors import SandboxUnavailable
from infrakata.core.sandbox.confine import LAYERS
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import Layer

from .conftest import FIXTURES, solution


def _doctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "infrakata.core.cli", "doctor", *args], capture_output=True,
                          text=True, timeout=120)


def test_doctor_names_every_layer_as_the_probe_found_it():
    done = _doctor("--json")
    report = json.loads(done.stdout)
    assert [layer["name"] for layer in report["layers"]] == list(LAYERS)
    assert done.returncode == (0 if report["complete"] else 1)
    for layer in report["layers"]:
        assert layer["detail"] and (layer["active"] or layer["fix"])
    text = _doctor().stdout
    assert all(name in text for name in LAYERS) and ("every layer holds" in text or "missing:" in text)


def test_this_machine_has_every_layer(pool):
    """The development machine and CI (Linux 6.x, root, Landlock ABI >= 6, libseccomp): all layers hold.
    Where this fails, `kata doctor` says which is missing and why."""
    missing = [layer for layer in pool.isolation_layers if not layer.active]
    if missing and not sys.platform.startswith("linux"):
        pytest.skip("the sandbox's layers are Linux's")
    assert not missing, missing


def test_strict_isolation_refuses_to_grade_without_a_layer(tmp_path):
    pool = WorkerPool()
    try:
        pool.wait_ready()
        pool.isolation = "strict"
        pool.check_isolation()  # every layer holds here
        pool.isolation_layers = (*pool.isolation_layers[:-1], Layer("seccomp", False, "libseccomp is missing"))
        with pytest.raises(SandboxUnavailable, match='strict.*seccomp \\(libseccomp is missing\\)'):
            pool.check_isolation()
    finally:
        pool.close()
    attack = tmp_path / "scale.py"
    attack.write_text("# kata: sandbox-probe\n" + solution(""))
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--isolation", "strict", "--problems",
                           str(FIXTURES), "run", str(attack)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr  # strict, and every layer holds: graded
