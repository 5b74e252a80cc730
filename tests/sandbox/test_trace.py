"""What a worker records of a call (core/sandbox/trace.py) in real worker processes: the line that
returned the output, the line that last wrote a graded argument, the arguments' and locals' values,
all capped; nothing in a harness call (the benchmark's timed region); what the grader accepts of a
recording. The sys.monitoring backend runs under a Python 3.12+ where one is installed."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from infrakata.core.catalog.loading import load_problem
from infrakata.core.limits import Limits
from infrakata.core.sandbox.protocol import ProtocolError, Reply, SolutionSpec, reply_from_wire, reply_to_wire
from infrakata.core.sandbox.trace import MAX_LINE_EVENTS, Recording
from infrakata.core.values import DETAIL_CHARS, LABEL_CHARS, InlineValue

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def calls(pool, source: str, *arguments: tuple, watch: tuple = (), trace: str = "values", entry: str = "f"):
    """Each argument tuple's call result, in one worker (`watch`: the arguments whose writes to follow)."""
    limits = Limits(time_s=20.0, memory_mb=512).worker(calls=len(arguments), cuda=False)
    with pool.open(SolutionSpec(source, "/tmp/solution.py", entry, limits), 20.0) as worker:
        assert worker.load_error is None, worker.load_error
        return [worker.call(args, {}, timeout=20.0, trace=trace, watch=watch) for args in arguments]


def by_name(recording: Recording) -> dict[str, InlineValue]:
    return {value.name: value for value in recording.values}


TWO_RETURNS = """\
def helper(x):
    return x + 100

def f(x):
    if x > 0:
        return helper(x)
    y = -x
    return y
"""


def test_the_line_that_returned_is_the_entry_points_return(pool):
    positive, negative = calls(pool, TWO_RETURNS, (1,), (-2,))
    assert (positive.value, positive.recording.line) == (101, 6)  # not the helper's return (line 2)
    assert (negative.value, negative.recording.line) == (2, 8)


def test_a_recursive_entry_point_is_followed_in_its_outermost_call(pool):
    source = "def f(n):\n    if n == 0:\n        return 0\n    return 1 + f(n - 1)\n"
    [result] = calls(pool, source, (3,))
    assert (result.value, result.recording.line) == (3, 4)


WRITES = """\
import torch

def bump(t):
    t.add_(1)

def f(items, t, model, untouched):
    items.sort()
    bump(t)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.ones(1, 2)).sum().backward()
    optimizer.step()
    items.append(0)
    return None
"""


def test_the_line_that_last_wrote_a_graded_argument(pool):
    model = torch.nn.Linear(2, 1)
    [result] = calls(pool, WRITES, ([3, 1, 2], torch.zeros(2), model, torch.zeros(1)), watch=(0, 1, 2, 3))
    writes = dict(result.recording.writes)
    # The list's last change was the append; the tensor changed in the helper; the model at step().
    assert writes == {0: 12, 1: 4, 2: 11}


def test_writes_past_the_line_budget_are_not_attributed(pool):
    source = (f"def f(items):\n    items.append(1)\n    for i in range({MAX_LINE_EVENTS}):\n        pass\n"
              f"    items.append(2)\n    after = len(items)\n    return after\n")
    [result] = calls(pool, source, ([],), watch=(0,))
    assert result.value == 2
    assert result.recording.writes == ()  # the last write was not seen: no line is blamed
    assert result.recording.line == 7  # where the call ended is still known
    # Assignments past the budget are not seen either.
    assert "i" in by_name(result.recording) and "after" not in by_name(result.recording)


ASSIGNMENTS = """\
def helper(v):
    inner = v * 2
    return inner

def f(
    x,
    scale=2,
):
    total = 0
    for i in range(3):
        total += i
    a, (b, c) = x, (scale,
                    helper(x))
    rows = [0] * 3
    rows[1] = 5
    return total
"""


def test_arguments_at_their_parameters_and_locals_at_their_last_assignment(pool):
    [result] = calls(pool, ASSIGNMENTS, (1.5,))
    values = by_name(result.recording)
    assert [(v.kind, v.name, v.line, v.label) for v in result.recording.values] == [
        ("argument", "x", 6, "1.5"),
        ("argument", "scale", 7, "2"),
        ("local", "i", 10, "2"),  # the `for` header binds it
        ("local", "total", 11, "3"),  # `total += i`, its last assignment
        ("local", "a", 13, "1.5"),  # a statement over two lines: its last line
        ("local", "b", 13, "2"),
        ("local", "c", 13, "3.0"),
        ("local", "rows", 15, "[0, 5, 0]"),  # written into by `rows[1] = 5`
    ]
    assert "inner" not in values  # the helper's locals are its own
    assert values["rows"].detail == "list of 3 items\n  [0] 0\n  [1] 5\n  [2] 0"


def test_tensors_show_shape_dtype_and_first_elements_and_a_table_on_hover(pool):
    source = "import torch\ndef f(x):\n    y = x.T.contiguous() * 2\n    return y\n"
    [result] = calls(pool, source, (torch.arange(12, dtype=torch.float32).reshape(3, 4),))
    x, y = by_name(result.recording)["x"], by_name(result.recording)["y"]
    assert x.label == "f32[3, 4] [0.0, 1.0, 2.0, 3.0, …]"
    assert y.label == "f32[4, 3] [0.0, 8.0, 16.0, 2.0, …]"
    assert y.detail == ("tensor of shape (4, 3), dtype float32, on cpu\n"
                        "min 0.0, max 22.0, mean 11.0\n"
                        "       0    1    2\n"
                        "[0]  0.0  8.0 16.0\n"
                        "[1]  2.0 10.0 18.0\n"
                        "[2]  4.0 12.0 20.0\n"
                        "[3]  6.0 14.0 22.0")


def test_values_are_capped_in_size_and_never_run_the_solutions_own_repr(pool):
    source = """\
import torch

class Stubborn:
    def __repr__(self):
        while True:
            pass

def f(n):
    big = torch.zeros(4000, 4000)
    many = list(range(n))
    text = "x" * n
    odd = Stubborn()
    huge = 7 ** 100000
    return 1
"""
    [result] = calls(pool, source, (1_000_000,))
    assert result.status == "ok", result.error
    values = by_name(result.recording)
    assert values["odd"].label == "<Stubborn object>"
    assert values["huge"].label == "<int of 280736 bits>"
    assert values["big"].label == "f32[4000, 4000] [0.0, 0.0, 0.0, 0.0, …]"
    assert values["many"].label.endswith("… (1000000 items)]")
    for value in result.recording.values:
        assert len(value.label) <= LABEL_CHARS and len(value.detail) <= DETAIL_CHARS


def test_the_lines_level_records_no_values_and_off_records_nothing(pool):
    lines, off = calls(pool, TWO_RETURNS, (1,), trace="lines")[0], calls(pool, TWO_RETURNS, (1,), trace="off")[0]
    assert lines.recording == Recording(6, (), ())
    assert off.recording is None


def test_nothing_is_recorded_in_a_harness_call(pool):
    """A harness call is the benchmark's timed region (core/bench/timing.py): no tracing runs there."""
    source = """\
import sys

def f(*args):
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return sys.gettrace() is not None
    return any(monitoring.get_local_events(tool, f.__code__) for tool in range(6)
               if monitoring.get_tool(tool) == "infrakata")
"""
    limits = Limits(time_s=20.0, memory_mb=512).worker(calls=2, cuda=False)
    # A harness is a function of a module the worker imports before the solution (SolutionSpec.preload).
    with pool.open(SolutionSpec(source, "/tmp/solution.py", "f", limits, preload=("functools",)), 20.0) as worker:
        called = worker.call((), {}, timeout=20.0, trace="values")
        harnessed = worker.harness("functools:reduce", [1, 2], timeout=20.0)  # reduce(f, [1, 2]): f(1, 2)
    assert called.value is True  # the proof that the entry point is watched in a call
    assert harnessed.status == "ok" and harnessed.value is False and harnessed.recording is None


def test_a_solution_that_forges_its_recording_gets_an_error_not_a_slow_editor(pool):
    source = """\
from infrakata.core.sandbox import trace

def forged(self):
    return trace.Recording(3, (), tuple(trace.InlineValue(1, "local", "x", "y" * 10**6, "") for _ in range(10)))

trace.Recorder.finish = forged

def f():
    return 1
"""
    [result] = calls(pool, source, ())
    assert result.status == "crashed" and result.error.type == "ProtocolError"  # the worker is stopped
    assert "recording: not a string of at most 1048576 characters" in result.error.message


def _wire(recording: dict) -> dict:
    return {**reply_to_wire(Reply("ok", 1)), "recording": json.dumps(recording)}


def _value(**changes) -> dict:
    return {"line": 2, "kind": "local", "name": "x", "label": "1", "detail": "1", **changes}


@pytest.mark.parametrize("recording, problem", [
    ({"line": 0, "writes": (), "values": ()}, "line is not a line number"),
    ({"line": True, "writes": (), "values": ()}, "line is not a line number"),
    ({"line": 2, "writes": (), "values": (), "extra": 1}, "not a recording"),
    ({"line": 2, "writes": ((0, 2),) * 65, "values": ()}, "malformed writes"),
    ({"line": 2, "writes": ((-1, 2),), "values": ()}, "malformed argument key"),
    ({"line": 2, "writes": (), "values": (_value(),) * 49}, "malformed values"),
    ({"line": 2, "writes": (), "values": (_value(kind="output"),)}, "unknown value kind"),
    ({"line": 2, "writes": (), "values": (_value(name="a b"),)}, "not a Python name"),
    ({"line": 2, "writes": (), "values": (_value(detail="d" * 4001),)}, "detail is not a string"),
    ({"line": 2, "writes": (), "values": ({"line": 2},)}, "malformed value"),
    ({"line": 2, "writes": (), "values": (_value(detail="d" * (1 << 20)),)}, "not a string of at most"),
])
def test_the_grader_refuses_a_recording_out_of_bounds(recording, problem):
    with pytest.raises(ProtocolError, match=problem):
        reply_from_wire(_wire(recording))


@pytest.mark.parametrize("wire, problem", [
    ({"line": 2}, "not a string"),  # a recording comes as JSON text, nothing else
    ("[" * 100_000, "not JSON"),
    ("{'line': 2}", "not JSON"),
])
def test_the_grader_refuses_a_recording_that_is_not_json_text(wire, problem):
    with pytest.raises(ProtocolError, match=problem):
        reply_from_wire({**reply_to_wire(Reply("ok", 1)), "recording": wire})


def test_the_grader_cleans_what_an_editor_would_show():
    reply = reply_from_wire(_wire({"line": 2, "writes": [["items", 3]], "values": [
        _value(label="a\nb\x1b[31m\u202ered", detail="row 1\nrow\u200b 2\x00")]}))
    assert reply.recording.writes == (("items", 3),)
    [value] = reply.recording.values
    # Control characters and bidirectional overrides escaped as the protocol escapes every worker's text.
    assert (value.label, value.detail) == ("a b\\x1b[31m\\u202ered", "row 1\nrow\u200b 2\\x00")


def _newer_pythons() -> list[str]:
    found = [shutil.which(f"python3.{minor}") for minor in range(12, 20)]
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    return [p for p in found if p and "/shims/" not in p]  # a pyenv shim may name a version it will not run


PROBE_SOURCE = """\
def helper(items):
    items.reverse()
    return len(items)

def f(items, scale):
    size = helper(items)
    if size > 2:
        return size * scale
    doubled = size * 2
    return doubled
"""


@pytest.mark.skipif(not _newer_pythons(), reason="no Python 3.12 or later here: sys.monitoring is not there")
def test_the_sys_monitoring_backend_records_what_settrace_does(tmp_path: Path):
    """Python 3.12+ records through sys.monitoring, on the solution's code objects alone; the same
    calls recorded through settrace (in that Python and this one) give the same recording."""
    (tmp_path / "infrakata").mkdir()
    (tmp_path / "infrakata" / "core").symlink_to(REPO / "core")
    request = json.dumps({"source": PROBE_SOURCE, "entry_point": "f",
                          "calls": [[[[1, 2, 3], 10], [0]], [[[1], 10], [0]]]})
    python = _newer_pythons()[0]
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def probe(interpreter: str, backend: str) -> dict:
        done = subprocess.run([interpreter, str(HERE / "trace_probe.py"), backend], input=request, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    monitored = probe(python, "monitoring")
    assert monitored["backend"] == "_Monitoring"
    first, second = monitored["recordings"]
    assert (first["returned"], first["line"], first["writes"]) == (30, 8, [[0, 2]])
    assert (second["returned"], second["line"]) == (2, 10)
    assert [(v["kind"], v["name"], v["line"], v["label"]) for v in second["values"]] == [
        ("argument", "items", 5, "[1]"), ("argument", "scale", 5, "10"),
        ("local", "size", 6, "1"), ("local", "doubled", 9, "2")]
    assert probe(python, "settrace")["recordings"] == monitored["recordings"]
    assert probe(sys.executable, "settrace")["recordings"] == monitored["recordings"]


def test_a_decorated_entry_point_is_recorded_in_its_own_frame(pool):
    source = ("import torch\n\n@torch.no_grad()\ndef f(x):\n    y = x * 2\n    return y\n")
    [result] = calls(pool, source, (3,))
    assert result.recording.line == 6  # not torch's wrapper
    assert [(v.name, v.line) for v in result.recording.values] == [("x", 4), ("y", 5)]


def test_a_hidden_cases_values_never_show_what_it_expects(runner, tmp_path):
    """A problem's hidden case keeps its expected values out of every output: its inline values show
    the solution's own arguments and locals, not the wrong output beside the expected one."""
    folder = tmp_path / "sandbox-probe"
    shutil.copytree(HERE.parent / "fixtures" / "problems" / "sandbox-probe", folder)
    cases = folder / "cases.py"
    cases.write_text(cases.read_text().replace('{"name": "small", "args"', '{"name": "small", "hidden": True, "args"'))
    source = "def scale(x, factor):\n    doubled = x * factor\n    return doubled + 0.125\n"
    report = runner.run(load_problem(folder), source, tmp_path / "scale.py", values=True)
    small = report.cases[0]
    assert small.hidden and small.status == "failed" and small.line == 3
    assert [(v.kind, v.name) for v in small.values] == [("argument", "x"), ("argument", "factor"),
                                                        ("local", "doubled")]
