"""Rough edges a new user met in the terminal: each test failed before its fix."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

KATA = Path(sys.executable).with_name("kata")
FIXTURES = Path(__file__).resolve().parents[1] / "server" / "fixtures" / "problems"
CORRECT = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor\n"
ENV = {**os.environ, "COLUMNS": "200"}


def kata(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(KATA), *args], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=240,
                          check=False)


def test_text_in_square_brackets_is_printed_as_written(tmp_path):
    stray = tmp_path / "notes.py"
    stray.write_text("x = 1\n")
    done = kata("run", str(stray))
    assert done.returncode == 2 and "map it in kata.toml under [files]" in done.stderr

    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    done = kata("--problems", str(FIXTURES), "bench", str(tmp_path / "fixture_scale.py"))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and f"no [benchmark] table in {FIXTURES / 'fixture-scale' / 'problem.toml'}" in said

    caseless = tmp_path / "extra" / "no-cases"
    caseless.mkdir(parents=True)
    (caseless / "problem.toml").write_text('slug = "no-cases"\ntitle = "t"\nentry_point = "f"\n')
    (caseless / "reference.py").write_text("def f():\n    return 1\n")
    done = kata("--problems", str(tmp_path / "extra"), "list")
    assert "add [[cases]] tables or a cases() in cases.py" in re.sub(r"\s+", " ", done.stderr)


def test_watch_on_a_missing_folder_says_so_and_exits_2(tmp_path):
    done = kata("watch", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "nowhere: no such folder" in done.stderr and "Traceback" not in done.stderr


def test_watch_on_a_file_watches_only_that_file_and_says_so(tmp_path):
    mine = tmp_path / "fixture_scale.py"
    other = tmp_path / "other.py"
    mine.write_text(CORRECT)
    other.write_text(CORRECT)
    watcher = subprocess.Popen([str(KATA), "--problems", str(FIXTURES), "watch", str(mine)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=ENV)
    try:
        first = watcher.stdout.readline()
        assert f"watching fixture_scale.py in {tmp_path}" in first
        other.write_text(CORRECT + "\n")  # another solution in the same folder: not graded
        time.sleep(0.5)  # let the watcher see (and skip) it before the watched file changes
        mine.write_text(CORRECT + "\n")
        seen = []
        while not any("accepted" in line for line in seen):
            line = watcher.stdout.readline()
            assert line, "".join(seen)
            seen.append(line)
        assert any("fixture_scale.py" in line for line in seen)
        assert not any("other.py" in line for line in seen)
    finally:
        watcher.kill()
        watcher.wait(10)


def test_run_on_a_missing_file_answers_at_once():
    # Counted in CPU time, which a busy machine does not stretch: a started pool (torch imported, the
    # zygote forked and reaped) costs seconds of it, the answer alone a fraction of one.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = kata("run", "nope.py")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert done.returncode == 2 and "nope.py: no such file" in done.stderr
    assert cpu < 1.0, f"{cpu:.1f} s of CPU: the worker pool started before the file was checked"


def test_the_header_shows_the_wall_time_the_user_waited(tmp_path):
    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    started = time.perf_counter()
    done = kata("--problems", str(FIXTURES), "run", str(tmp_path / "fixture_scale.py"))
    elapsed_ms = (time.perf_counter() - started) * 1e3
    match = re.search(r"\((\d+) ms wall, (\d+) ms grading\)", done.stdout)
    assert done.returncode == 0 and match, done.stdout
    wall, grading = int(match.group(1)), int(match.group(2))
    assert grading <= wall <= elapsed_ms and wall >= 0.5 * elapsed_ms


def test_an_untouched_starter_prints_its_traceback_once(tmp_path):
    assert kata("start", "zero-memory-ledger", str(tmp_path)).returncode == 0
    done = kata("run", str(tmp_path / "zero_memory_ledger.py"))
    assert done.returncode == 1
    total = int(re.search(r"0/(\d+) cases passed", done.stdout).group(1))
    assert len(re.findall(r'File ".*zero_memory_ledger.py", line \d+', done.stdout)) == 1  # one traceback
    assert done.stdout.count("same error as case 1") == total - 1


def test_a_usage_error_exits_2_and_names_what_would_do():
    done = kata("list", "--area", "nope")
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "no area 'nope'; --area takes one of: Warm-up, Memory" in said
    assert "Traceback" not in done.stderr
    done = kata("grade", "x.py", "--jobs", "0")
    assert done.returncode == 2 and "--jobs is at least 1" in done.stderr


def test_each_command_declares_what_main_does_for_it():
    from infrakata.core.cli.commands import COMMANDS, build_parser
    from infrakata.core.errors import EXIT_CANNOT_GRADE, KataError, UsageError

    assert issubclass(UsageError, KataError) and UsageError.exit_code == EXIT_CANNOT_GRADE
    names = [command.name for command in COMMANDS]
    assert len(set(names)) == len(names)
    parser = build_parser()
    for command in COMMANDS:
        assert not command.one_shot or command.needs_pool, f"{command.name}: one_shot is about a started pool"
        if command.reads_file:  # the argument it names is one the command takes
            args = parser.parse_args([command.name, "solution.py"])
            assert getattr(args, command.reads_file) == "solution.py"
