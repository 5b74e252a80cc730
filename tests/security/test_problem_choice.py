"""Choosing the problem: what is graded cannot bring the problem it is graded against (a planted codestar
JSON whose test_code would run in the grader), nor make matching block on a FIFO."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from infrakata.core.batch.grader import BatchGrader
from infrakata.core.batch.submissions import Submission
from infrakata.core.catalog.loading import Catalog
from infrakata.core.config import Settings
from infrakata.core.errors import CannotGrade
from infrakata.core.grading.pipeline import Grading

from .conftest import FIXTURES, solution


def _planted(folder: Path, marker: Path) -> Path:
    """A codestar problem taking a catalogue slug, whose test_code would write `marker` in the grader."""
    problem = folder / "planted.json"
    problem.write_text(json.dumps({
        "slug": "adam-optimizer-memory-bytes", "title": "t", "entry_point": "adam_memory_bytes",
        "reference_code": "def adam_memory_bytes(n):\n    return 0\n",
        "test_code": f"open({str(marker)!r}, 'w').write('ran in the grader')\n"
                     "cases_results.append({'case_id': 1, 'passed': True})\n"}))
    return problem


def test_a_header_cannot_name_a_planted_problem(tmp_path):
    marker = tmp_path / "pwned"
    _planted(tmp_path, marker)
    attack = tmp_path / "attack.py"
    attack.write_text("# kata: planted.json\ndef adam_memory_bytes(n):\n    return 0\n")
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "run", str(attack)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and "is not a problem of the catalogue" in done.stderr, done.stderr
    assert not marker.exists()


def test_a_manifest_cannot_name_a_planted_problem(tmp_path):
    marker = tmp_path / "pwned"
    planted = _planted(tmp_path, marker)
    grader = BatchGrader(Catalog.load())
    result = grader.grade(Submission("s", source="def adam_memory_bytes(n):\n    return 0\n", problem=str(planted)))
    assert result["verdict"] == "could_not_grade" and "not a problem of the catalogue" in result["reason"]
    assert not marker.exists()


def test_a_configured_problem_folder_may_be_named_by_path(tmp_path):
    """What the workspace configures is trusted: a header may name a problem there by its path."""
    catalog = Catalog.load([FIXTURES], include_bundled=False)
    grading = Grading(catalog, Settings(), None)
    source = f"# kata: {FIXTURES / 'sandbox-probe'}\n" + solution("")
    assert grading.problem_for(tmp_path / "x.py", source).slug == "sandbox-probe"


def test_a_fifo_named_in_a_header_does_not_block(tmp_path):
    fifo = tmp_path / "problem.json"
    os.mkfifo(fifo)
    grading = Grading(Catalog.load(), Settings(), None)
    started = time.monotonic()
    with pytest.raises(CannotGrade):
        grading.problem_for(tmp_path / "x.py", "# kata: problem.json\n")
    assert time.monotonic() - started < 5
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "run", str(tmp_path / "x.py"), "--problem",
                           str(fifo)], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          input="")
    assert done.returncode == 2 and "not a regular file" in done.stderr or "no such file" in done.stderr


def test_trusted_processes_import_nothing_from_the_working_folder(tmp_path):
    """A numpy.py (or torch.py) where `kata run` is started is imported neither by `kata` nor by the
    zygote it starts (before: `python -m` put the working folder first on the zygote's sys.path)."""
    marker = tmp_path / "imported"
    for name in ("numpy", "torch", "triton"):
        (tmp_path / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write('{name} ')\n")
    (tmp_path / "scale.py").write_text("# kata: sandbox-probe\n" + solution(""))
    kata = Path(sys.executable).with_name("kata")
    done = subprocess.run([str(kata), "--problems", str(FIXTURES), "run", "scale.py"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), marker.read_text()
