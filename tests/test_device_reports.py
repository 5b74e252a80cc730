"""Every report names the device that graded it: `kata run` (its JSON and its text), `kata grade`'s lines and the
API's results; the editor's `kata/result` carries the same report (tests/server/test_inline_values.py). A kernel
problem where there is no CUDA is graded on the CPU through the Triton interpreter, and says so."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import torch
from conftest import KATA, REPO
from test_submissions_apart import KERNEL

from infrakata import Grader

PROBLEMS = REPO / "tests" / "fixtures" / "problems"
KERNEL_DEVICE = r"cuda:\d+ \(.+\)" if torch.cuda.is_available() else re.escape("cpu (Triton interpreter)")


def kata(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KATA), "--problems", str(PROBLEMS), *args], capture_output=True, text=True,
                          timeout=240, check=False)


@pytest.fixture
def kernel_solution(tmp_path: Path) -> Path:
    path = tmp_path / "double.py"
    path.write_text("# kata: triton-double\n" + KERNEL, encoding="utf-8")
    return path


def test_kata_run_names_the_device_in_its_json_and_beside_the_times(kernel_solution: Path) -> None:
    data = json.loads(kata("run", str(kernel_solution), "--json").stdout)
    assert data["verdict"] == "accepted" and re.fullmatch(KERNEL_DEVICE, data["device"])
    text = kata("run", str(kernel_solution)).stdout
    assert re.search(rf"ms grading, on {KERNEL_DEVICE}\)", " ".join(text.split())), text
    scalar = json.loads(kata("run", str(REPO / "examples" / "gradient_accumulation.py"), "--json").stdout)
    assert scalar["device"] == "cpu"


def test_kata_grade_and_the_api_name_the_device(kernel_solution: Path) -> None:
    done = kata("grade", str(kernel_solution))
    [row] = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert re.fullmatch(KERNEL_DEVICE, row["device"]), row
    with Grader(problems=PROBLEMS) as grader:
        result = grader.grade(kernel_solution)
    assert result.accepted and re.fullmatch(KERNEL_DEVICE, result.device)
    assert result.to_json()["device"] == result.device
