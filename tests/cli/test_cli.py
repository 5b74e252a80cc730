"""The `kata` binary as a user runs it: exit codes, the JSON contract, the catalogue commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KATA = Path(sys.executable).with_name("kata")
REPO = Path(__file__).resolve().parents[2]

REPORT_KEYS = {"problem", "file", "verdict", "passed", "total", "time_ms", "findings", "cases"}
CASE_KEYS = {"id", "name", "status", "time_ms", "message", "line", "max_abs_diff", "max_rel_diff", "mismatched",
             "elements", "worst_index", "expected", "actual"}
FINDING_KEYS = {"line", "column", "end_line", "end_column", "severity", "code", "message"}


def kata(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(KATA), *args], capture_output=True, text=True, cwd=cwd, timeout=240)


def run_json(path: Path, *extra: str) -> tuple[int, dict]:
    done = kata("run", str(path), "--json", *extra)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_codestar_seed_grades_reference_accepted_and_wrong_rejected(seeds, tmp_path):
    problem = seeds / "codestar-adam-optimizer-memory-bytes.json"
    spec = json.loads(problem.read_text(encoding="utf-8"))
    reference = tmp_path / "reference.py"
    reference.write_text(spec["reference_code"], encoding="utf-8")
    code, report = run_json(reference, "--problem", str(problem))
    assert code == 0 and report["verdict"] == "accepted" and report["passed"] == report["total"] == 4

    wrong = tmp_path / "wrong.py"
    wrong.write_text("def adam_memory_bytes(num_params: int) -> int:\n    return num_params * 8\n")
    code, report = run_json(wrong, "--problem", str(problem))
    assert code == 1 and report["verdict"] == "wrong_answer"
    assert set(report) >= REPORT_KEYS
    assert [c["id"] for c in report["cases"]] == [1, 2, 3, 4]
    first = report["cases"][0]
    assert set(first) >= CASE_KEYS
    assert first["status"] == "failed" and first["line"] == 2  # the return that gave the wrong answer
    assert first["name"] == "7B 模型 Adam 优化器显存"
    assert first["message"].startswith("out: expected 84000000000, got 56000000000")


def test_second_seed_with_a_runtime_error(seeds, tmp_path):
    problem = seeds / "codestar-activation-checkpointing-sqrt-memory.json"
    solution = tmp_path / "ckpt.py"
    solution.write_text("import math\n\ndef checkpointed_activation_memory_mb(num_layers, checkpoint_interval,\n"
                        "        layer_act_mb, boundary_input_mb):\n"
                        "    segments = num_layers // (checkpoint_interval - 1)\n"
                        "    return float(segments * boundary_input_mb + checkpoint_interval * layer_act_mb)\n")
    code, report = run_json(solution, "--problem", str(problem))
    assert code == 1
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id[2]["status"] == "error" and by_id[2]["line"] == 5  # K=1 divides by zero on line 5
    assert "ZeroDivisionError" in by_id[2]["message"]
    assert report["verdict"] == "wrong_answer"  # case 1 fails first: 36 // 5 != ceil(36 / 6)


def test_syntax_error_is_located_and_nothing_runs(tmp_path):
    solution = tmp_path / "edit_distance.py"
    solution.write_text("def edit_distance(a, b):\n    return len(a) +\n")
    code, report = run_json(solution)
    assert code == 1 and report["verdict"] == "syntax_error"
    finding = report["findings"][0]
    assert set(finding) == FINDING_KEYS
    assert finding["line"] == 2 and finding["code"] == "syntax-error" and finding["severity"] == "error"
    assert all(c["status"] == "skipped" for c in report["cases"])


def test_cannot_grade_exits_2_with_the_fix_in_the_message(tmp_path):
    done = kata("run", str(tmp_path / "missing.py"))
    assert done.returncode == 2 and "no such file" in done.stderr
    stray = tmp_path / "notes.py"
    stray.write_text("x = 1\n")
    done = kata("run", str(stray))
    assert done.returncode == 2 and "# kata: <slug>" in done.stderr
    done = kata("run", str(stray), "--problem", "no-such-problem")
    assert done.returncode == 2 and "no problem 'no-such-problem'" in done.stderr


def test_start_writes_the_starter_with_its_header_and_run_matches_it(tmp_path):
    done = kata("start", "zero-memory-ledger", str(tmp_path))
    assert done.returncode == 0, done.stderr
    written = tmp_path / "zero_memory_ledger.py"
    assert written.read_text().startswith("# kata: zero-memory-ledger\n")
    code, report = run_json(written)
    assert code == 1 and report["problem"] == "zero-memory-ledger" and report["verdict"] == "runtime_error"
    assert kata("start", "zero-memory-ledger", str(tmp_path)).returncode == 2  # never overwrites


def test_list_and_show(tmp_path):
    done = kata("list", "--json")
    listed = {p["slug"]: p for p in json.loads(done.stdout)}
    assert {"adam-optimizer-memory-bytes", "gradient-accumulation", "online-softmax"} <= set(listed)
    shown = kata("show", "online-softmax")
    assert shown.returncode == 0 and "online_softmax" in shown.stdout


def test_broken_problems_are_named_with_file_field_and_line_and_others_still_load(tmp_path):
    (tmp_path / "bad-toml").mkdir()
    (tmp_path / "bad-toml" / "problem.toml").write_text('slug = "bad-toml"\ntitle = \n')
    (tmp_path / "bad-field").mkdir()
    (tmp_path / "bad-field" / "problem.toml").write_text(
        'slug = "bad-field"\ntitle = "t"\nentry_point = "f"\ntime_limit = "fast"\n')
    (tmp_path / "bad-field" / "reference.py").write_text("def f():\n    return 1\n")
    (tmp_path / "broken.json").write_text('{"slug": "x",\n  "title": }\n')
    done = kata("--problems", str(tmp_path), "list", "--json")
    assert done.returncode == 0
    assert "adam-optimizer-memory-bytes" in {p["slug"] for p in json.loads(done.stdout)}
    errors = done.stderr.replace("\n", " ")
    assert f"{tmp_path / 'bad-toml' / 'problem.toml'}:2:" in errors and "invalid TOML" in errors
    assert f"{tmp_path / 'bad-field' / 'problem.toml'}:4: field 'time_limit'" in errors
    assert f"{tmp_path / 'broken.json'}:2:" in errors and "invalid JSON" in errors


def test_serve_speaks_lsp_on_stdio():
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
    server = subprocess.Popen([str(KATA), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()
        length = int(server.stdout.readline().split(b":")[1])
        while server.stdout.readline() not in (b"\r\n", b""):
            pass
        answer = json.loads(server.stdout.read(length))
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "infrakata"
    finally:
        server.kill()
        server.wait(10)


def test_a_reference_runs_its_torch_in_one_thread_unless_the_user_says_otherwise(tmp_path):
    # References run beside the batch's other gradings; torch's pool of a thread per core only spins
    # there (5 to 20 times the CPU of a small training step on a busy machine).
    folder = tmp_path / "problems" / "reference-threads"
    folder.mkdir(parents=True)
    (folder / "problem.toml").write_text('slug = "reference-threads"\ntitle = "t"\nentry_point = "threads"\n'
                                         "[[cases]]\nargs = []\n")
    (folder / "reference.py").write_text("import torch\n\ndef threads():\n    return torch.get_num_threads()\n")
    one = tmp_path / "one.py"
    one.write_text("# kata: reference-threads\ndef threads():\n    return 1\n")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    users = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"], text=True,
                           capture_output=True, env={**env, "OMP_NUM_THREADS": "2"}, check=True,
                           timeout=120).stdout.strip()
    for setting in (None, "2"):
        done = subprocess.run([str(KATA), "--problems", str(folder.parent), "run", str(one), "--json"],
                              capture_output=True, text=True, timeout=240,
                              env=env if setting is None else {**env, "OMP_NUM_THREADS": setting})
        report = json.loads(done.stdout)
        if setting is None:
            assert (done.returncode, report["verdict"]) == (0, "accepted"), report
        elif users != "1":  # torch takes no more threads than cores
            assert report["verdict"] == "wrong_answer" and report["cases"][0]["expected"] == users, report
