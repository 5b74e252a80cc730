"""An outside problem set in miniature (tests/fixtures/outside-set): references and `cases.py` that load the
set's shared helpers by path, outputs written in place, unsigned integer tensors, challenge-style signatures.
Each submission (the reference's logic as a learner writes it, a copy one element off, the starter) is graded
through the real `kata grade` and held to the verdict its `# expect:` header states: a speed-up guess, or any
other change, that makes such a set ungradable fails here."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import KATA, REPO
from infrakata.core.catalog.kinds.native import expected_verdict

SET = REPO / "tests" / "fixtures" / "outside-set"


def test_every_submission_of_the_outside_set_gets_its_verdict() -> None:
    submissions = sorted((SET / "submissions").glob("*.py"))
    done = subprocess.run([str(KATA), "--problems", str(SET / "challenges"), "grade", str(SET / "submissions")],
                          capture_output=True, text=True, timeout=600, check=False)
    rows = {Path(row["file"]).name: row
            for row in (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))}
    assert sorted(rows) == [path.name for path in submissions], done.stdout + done.stderr
    got = {name: row["verdict"] for name, row in rows.items()}
    assert got == {path.name: expected_verdict(path) for path in submissions}, \
        {name: (row.get("reason"), [c["message"] for c in row["cases"] if c["status"] != "passed"][:1])
         for name, row in rows.items()}
    assert done.returncode == 1  # graded, and not all accepted: nothing could not be graded
