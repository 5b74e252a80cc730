"""`kata grade --ray` on a local Ray cluster (`ray.init(num_cpus=2)`): the same lines as the local mode,
and an actor killed mid-run (SIGKILL, as the OOM killer would) whose submissions are retried on
another actor, or written as `crashed` with the reason once the retries are spent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is the optional extra infrakata[ray] (scripts/setup --dev installs it)")

from infrakata.core.batch.grader import BatchGrader, GradeOptions  # noqa: E402
from infrakata.core.batch.on_ray import RayGrading  # noqa: E402
from infrakata.core.batch.submissions import Submission  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ADAM = REPO / "problems" / "adam-optimizer-memory-bytes"
RIGHT = (ADAM / "reference.py").read_text()
WRONG = (ADAM / "wrong" / "gibibytes.py").read_text()
SLOW_RIGHT = "import time\n\n" + RIGHT.replace("    return", "    time.sleep(0.03)\n    return")
KATA = Path(sys.executable).with_name("kata")


@pytest.fixture(scope="module")
def cluster():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def grade_on_ray(submissions, kill_after=None, **options):
    """Grade on two actors; with `kill_after`, SIGKILL the first actor once that many lines are in."""
    grading = RayGrading(GradeOptions(ray=True, jobs=2, **options))
    results: list[dict] = []
    grading.start()
    victim = grading.pids[0]

    def on_result(result: dict) -> None:
        results.append(result)
        if kill_after is not None and len(results) == kill_after:
            os.kill(victim, signal.SIGKILL)

    try:
        grading.run(submissions, on_result)
    finally:
        grading.close()
    return grading, results


def test_ray_writes_the_lines_the_local_mode_writes(cluster, pool, catalog, tmp_path):
    (tmp_path / "adam_optimizer_memory_bytes.py").write_text(RIGHT)
    submissions = [Submission("file", file=str(tmp_path / "adam_optimizer_memory_bytes.py")),
                   Submission("wrong", source=WRONG, problem="adam-optimizer-memory-bytes"),
                   Submission("missing", file=str(tmp_path / "missing.py")),
                   Submission("unknown", source=RIGHT, problem="no-such-problem")]
    _, on_ray = grade_on_ray(submissions)
    local = [BatchGrader(catalog, pool=pool).grade(s) for s in submissions]
    by_id = {r["id"]: r for r in on_ray}
    assert len(on_ray) == len(by_id) == 4
    for expected in local:
        got = by_id[expected["id"]]
        assert set(got) == set(expected)
        assert (got["verdict"], got["passed"], got["total"], got.get("reason")) == \
            (expected["verdict"], expected["passed"], expected["total"], expected.get("reason"))
        assert [c["message"] for c in got["cases"]] == [c["message"] for c in expected["cases"]]


def test_a_killed_actors_submissions_are_retried_and_each_written_once(cluster):
    submissions = [Submission(f"s{i}", source=SLOW_RIGHT, problem="adam-optimizer-memory-bytes") for i in range(16)]
    grading, results = grade_on_ray(submissions, kill_after=3, max_retries=2)
    ids = [r["id"] for r in results]
    assert sorted(ids) == sorted(s.id for s in submissions)  # nothing lost, nothing twice
    assert all(r["verdict"] == "accepted" for r in results), [r.get("reason") for r in results]
    assert grading.deaths == 1 and grading.retried >= 1


def test_past_the_retry_limit_a_submission_is_crashed_with_the_reason(cluster):
    submissions = [Submission(f"s{i}", source=SLOW_RIGHT, problem="adam-optimizer-memory-bytes") for i in range(12)]
    grading, results = grade_on_ray(submissions, kill_after=3, max_retries=0)
    assert sorted(r["id"] for r in results) == sorted(s.id for s in submissions)
    crashed = [r for r in results if r["verdict"] == "crashed"]
    assert 1 <= len(crashed) <= 2  # what the killed actor had in flight
    assert all("its grading actor died 1 time" in r["reason"] for r in crashed)
    assert all(r["verdict"] == "accepted" for r in results if r not in crashed)
    assert grading.deaths == 1 and grading.retried == 0


def test_kata_grade_ray_on_the_command_line(tmp_path):
    (tmp_path / "adam_optimizer_memory_bytes.py").write_text(RIGHT)
    (tmp_path / "bob.py").write_text("# kata: adam-optimizer-memory-bytes\n" + WRONG)
    out = tmp_path / "r.jsonl"
    done = subprocess.run([str(KATA), "grade", str(tmp_path), "--ray", "--jobs", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, "RAY_AUTH_MODE": "disabled"})
    assert done.returncode == 1, done.stderr
    verdicts = {Path(json.loads(line)["id"]).name: json.loads(line)["verdict"] for line in out.read_text().splitlines()}
    assert verdicts == {"adam_optimizer_memory_bytes.py": "accepted", "bob.py": "wrong_answer"}
    assert "ray: 1 grading actor" in done.stderr
