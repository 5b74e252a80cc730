"""Lookup tables: a solution that answers each case from a table copied out of a report (every public
case shows what it expects once it fails) meets a fresh case, drawn anew at every grading and never
shown, and is not accepted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import FRESH_CASE_NAME

KATA = Path(sys.executable).with_name("kata")


def _report(path: Path) -> dict:
    done = subprocess.run([str(KATA), "run", str(path), "--json"], capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout)


def test_a_table_copied_from_a_report_is_not_accepted(runner, catalog, tmp_path):
    """Before: every expected value of adam-optimizer-memory-bytes shows in a failing report, so a table
    of them passed every case of the next grading."""
    problem = catalog.problems["adam-optimizer-memory-bytes"]
    wrong = tmp_path / "adam_optimizer_memory_bytes.py"
    wrong.write_text("def adam_memory_bytes(num_params):\n    return -1\n")
    shown = _report(wrong)["cases"]
    inputs = runner.case_inputs(problem)
    table = {case.args[0]: int(row["expected"]) for case, row in zip(inputs, shown, strict=False)
             if row["expected"] is not None}
    assert len(table) == len(inputs), "a report should show every public case's expected value"
    wrong.write_text(f"TABLE = {table!r}\n\ndef adam_memory_bytes(num_params):\n    return TABLE.get(num_params, 0)\n")
    report = _report(wrong)
    assert report["verdict"] == "wrong_answer"
    failed = [row for row in report["cases"] if row["status"] != "passed"]
    assert [row["name"] for row in failed] == [FRESH_CASE_NAME]


def test_the_fresh_case_shows_nothing_and_changes_at_every_grading(runner, catalog, tmp_path):
    problem = catalog.problems["lora-forward"]
    first, second = runner.fresh_case(problem), runner.fresh_case(problem)
    assert first.hidden and [a.shape for a in first.args[:4]] != [a.shape for a in second.args[:4]] or \
        not all(a.equal(b) for a, b in zip(first.args[:4], second.args[:4], strict=True))
    wrong = tmp_path / "lora_forward.py"
    wrong.write_text("def lora_forward(x, W, A, B, scale):\n    return x @ W.T\n")
    done = subprocess.run([str(KATA), "run", str(wrong), "--json", "--values"], capture_output=True, text=True,
                          timeout=120)
    fresh = json.loads(done.stdout)["cases"][-1]
    assert fresh["name"] == FRESH_CASE_NAME and fresh["status"] == "failed" and fresh["hidden"]
    assert (fresh["expected"], fresh["actual"], fresh["max_abs_diff"], fresh["worst_index"], fresh["values"]) == \
        (None, None, None, None, [])



def test_every_kata_of_the_catalogue_makes_a_fresh_case(catalog):
    lacking = [slug for slug, problem in catalog.problems.items()
               if problem.kind == "native" and not kind_of(problem).has_fresh_cases(problem)]
    assert not lacking, f"no fresh(seed) in cases.py: {lacking}"
