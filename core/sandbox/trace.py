"""Recording a call of the solution, in its worker: its returning line, its writes and (asked for) its values.

The worker (child.py) records each `call` request, never a `harness` one, watching only the solution's
own code objects (sys.monitoring from Python 3.12, sys.settrace before), everything capped;
core/sandbox/recording.py checks the recording again on the grader's side. What is recorded, when
events stop, and the caps: docs/GRADING.md (Recording a call).
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import time
import types
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from infrakata.core import pysource
from infrakata.core.sandbox.recording import MAX_LINE, MAX_WRITES, ArgKey, Recording, TraceLevel
from infrakata.core.torch_stand_in import loaded_torch
from infrakata.core.values import MAX_VALUES, NAME_CHARS, InlineValue, detail, label

MAX_LINE_EVENTS = 20_000  # per call; then nothing more is seen (the finished frame still gives its line)
FORMAT_BUDGET_S = 0.05  # per call, for formatting values
WATCHED_TENSORS = 256  # per argument: beyond this, its writes are not followed
WATCHED_ITEMS = 256  # a list's or dict's items


# -- the solution, as recording needs it ----------------------------------------------------------

@dataclass
class _Solution:
    """Computed once per worker: the solution's code objects, its entry point's code, and the entry
    point's parameters and assignments by line (from the source's syntax tree, parsed when first wanted:
    values are recorded for a failing case only)."""

    codes: list[types.CodeType]
    code_ids: frozenset[int]
    entry_code: types.CodeType | None
    source: str
    entry_point: str

    @functools.cached_property
    def _entry_definition(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        return None if self.entry_code is None else _definition(self.source, self.entry_point, self.entry_code)

    @functools.cached_property
    def parameter_lines(self) -> dict[str, int]:
        definition = self._entry_definition
        return {} if definition is None else _parameter_lines(definition)

    @functools.cached_property
    def assignments(self) -> dict[int, tuple[int, tuple[str, ...]]]:
        """A line of an assignment statement -> (that statement's last line, the names it binds)."""
        definition = self._entry_definition
        return {} if definition is None else _assignments(definition)


_solution: _Solution | None = None


def loaded(source: str, module_code: types.CodeType, entry: Any, entry_point: str) -> None:
    """The solution module has been compiled and run: remember what recording needs."""
    global _solution
    codes: list[types.CodeType] = []
    pending = [module_code]
    while pending:
        code = pending.pop()
        codes.append(code)
        pending += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    code_ids = frozenset(map(id, codes))
    try:  # the function under decorators (torch.no_grad(), functools.wraps, lru_cache)
        unwrapped = inspect.unwrap(entry)
    except ValueError:  # a cycle of __wrapped__
        unwrapped = entry
    entry_code = next((code for code in (getattr(f, "__code__", None) for f in (unwrapped, entry))
                       if id(code) in code_ids), None)
    _solution = _Solution(codes, code_ids, entry_code, source, entry_point)


def _definition(source: str, name: str, code: types.CodeType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name == name]
    # co_firstlineno is the first decorator's line, where there is one.
    return next((node for node in reversed(found)
                 if (node.decorator_list[0].lineno if node.decorator_list else node.lineno) == code.co_firstlineno),
                found[-1] if found else None)


def _parameter_lines(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    arguments = definition.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg: a.lineno for a in every}


def _bound_names(target: ast.expr) -> list[str]:
    """The names an assignment target binds or writes into (`x`, `a, b`, `acc[i]`, `state.m`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        return _bound_names(target.value)
    return []


def _assignments(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, tuple[int, tuple[str, ...]]]:
    """Every line of each assignment in the function's own scope (not in nested functions or
    classes) -> the statement's last line and the names it binds. For a `for` or `with`, the header."""
    table: dict[int, tuple[int, tuple[str, ...]]] = {}

    def add(first: int, last: int, names: list[str]) -> None:
        for line in range(first, last + 1):
            end, known = table.get(line, (last, ()))
            table[line] = (max(end, last), tuple(dict.fromkeys((*known, *names))))

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            last = node.end_lineno or node.lineno
            if isinstance(node, ast.Assign):
                add(node.lineno, last, [n for t in node.targets for n in _bound_names(t)])
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
                add(node.lineno, last, _bound_names(node.target))
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                add(node.lineno, node.iter.end_lineno or node.lineno, _bound_names(node.target))
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                targets = [n for item in node.items if item.optional_vars is not None
                           for n in _bound_names(item.optional_vars)]
                if targets:
                    add(node.lineno, node.items[-1].context_expr.end_lineno or node.lineno, targets)
            for block in ("body", "orelse", "finalbody"):
                visit(getattr(node, block, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                visit(handler.body)
            for case in getattr(node, "cases", []) or []:
                visit(case.body)

    visit(definition.body)
    return table


# -- watching graded arguments ---------------------------------------------------------------------

def _parts(value: Any, torch: Any, found: tuple[list[Any], list[Any]], depth: int = 0) -> bool:
    """The tensors in `value` and the lists and dicts holding them (a batch is a list of tuples of
    tensors): -> False where there are more than a fingerprint follows."""
    tensors, containers = found
    if len(tensors) > WATCHED_TENSORS or len(containers) > WATCHED_TENSORS:
        return False
    if torch is not None and isinstance(value, torch.Tensor):
        tensors.append(value)
    elif torch is not None and isinstance(value, torch.nn.Module):
        tensors += islice(value.state_dict(keep_vars=True).values(), WATCHED_TENSORS + 1)
    elif isinstance(value, (list, tuple, dict)) and depth < 4:
        if len(value) > WATCHED_ITEMS:
            return False
        if not isinstance(value, tuple):
            containers.append(value)
        return all(_parts(item, torch, found, depth + 1) for item in (value.values() if isinstance(value, dict)
                                                                      else value))
    return len(tensors) <= WATCHED_TENSORS


def _fingerprint(value: Any) -> Callable[[], Hashable] | None:
    """A cheap function whose result changes when `value` is written in place; None where no such
    change can be seen."""
    torch = loaded_torch()
    if torch is not None and isinstance(value, torch.optim.Optimizer):
        # Its state is made at the first step: the count of its entries shows that write too.
        state = value.state
        return lambda: (len(state), tuple(t._version for entry in islice(state.values(), WATCHED_TENSORS)
                                          for t in entry.values() if isinstance(t, torch.Tensor)))
    tensors: list[Any] = []
    containers: list[Any] = []
    if not _parts(value, torch, (tensors, containers)) or not (tensors or containers):
        return None
    # The tensors' versions, and which items each list or dict holds in which order.
    return lambda: (tuple(t._version for t in tensors),
                    tuple(tuple(map(id, c.values() if isinstance(c, dict) else c)) for c in containers))


# -- recording a call ------------------------------------------------------------------------------

class Recorder:
    """One call's recording. The backends (below) report the solution's frames only: `started` for
    each frame, then for as long as something is still to be seen, `line_event` and `returned`.
    After the call, `finish` reads the entry point's finished frame, which keeps its last line and
    its locals: where nothing else is to be seen, no event follows the entry point's start."""

    def __init__(self, solution: _Solution, level: TraceLevel, watched: list[tuple[ArgKey, Any]]):
        self.solution = solution
        self.with_values = level == "values"
        self.entry: types.FrameType | None = None
        self.line: int | None = None
        self.lines_left = MAX_LINE_EVENTS
        self.current_line: int | None = None  # the solution's line running now, in whatever frame
        self.watched: list[tuple[ArgKey, Callable[[], Hashable], Hashable]] = []
        for key, value in watched:
            function = _fingerprint(value)
            if function is not None:
                self.watched.append((key, function, function()))
        self.writes: dict[ArgKey, int] = {}
        self.assigned: dict[str, int] = {}  # local -> the last line of its last assignment
        self.values: list[InlineValue] = []
        self.format_deadline = 0.0

    @property
    def seeing(self) -> bool:
        """Whether events are still wanted: writes to follow or assignments to see, within the budget."""
        return self.lines_left > 0 and (bool(self.watched) or self.with_values)

    def wants(self, frame: types.FrameType) -> bool:
        """Whether this frame's lines are wanted: every frame's to see writes, else the entry point's."""
        return bool(self.watched) or frame is self.entry

    def _check_writes(self) -> None:
        for index, (key, function, before) in enumerate(self.watched):
            now = function()
            if now != before:
                self.watched[index] = (key, function, now)
                if self.current_line is not None and self.lines_left > 0:
                    self.writes[key] = self.current_line
                else:  # written where lines were no longer seen: the last write is unknown
                    self.writes.pop(key, None)

    def started(self, frame: types.FrameType) -> None:
        self._check_writes()
        if self.entry is None and self.solution.entry_code in (None, frame.f_code):
            self.entry = frame
            if self.with_values:
                self.format_deadline = time.perf_counter() + FORMAT_BUDGET_S
                self._arguments(frame)

    def line_event(self, frame: types.FrameType, line: int) -> bool:
        """-> whether events are still wanted."""
        self.lines_left -= 1
        if self.lines_left < 0:
            return False
        self._check_writes()
        self.current_line = line
        if frame is self.entry:
            assignment = self.solution.assignments.get(line)
            if assignment is not None:
                last, names = assignment
                for name in names:
                    self.assigned[name] = last
        return True

    def returned(self, frame: types.FrameType) -> None:
        self._check_writes()
        if frame is self.entry:
            self.line = frame.f_lineno  # a generator's last yield, as the call left it

    def finish(self) -> Recording:
        """The call is over: the last writes, the line the entry point's frame ended on (its return,
        or where it raised) and its locals as it ended."""
        self.lines_left = min(self.lines_left, 0)  # a change seen only now was not seen where it was made
        self._check_writes()
        entry, self.entry = self.entry, None
        if entry is not None:
            if self.line is None:
                self.line = entry.f_lineno
            if self.with_values:
                self.format_deadline = time.perf_counter() + FORMAT_BUDGET_S
                self._locals(entry)
        lines_ok = self.line is not None and 1 <= self.line <= MAX_LINE
        return Recording(self.line if lines_ok else None,
                         tuple((k, line) for k, line in self.writes.items() if 1 <= line <= MAX_LINE)[:MAX_WRITES],
                         tuple(v for v in self.values if 1 <= v.line <= MAX_LINE))

    def _add(self, line: int, kind: Literal["argument", "local"], name: str, value: Any) -> bool:
        if len(self.values) >= MAX_VALUES or time.perf_counter() > self.format_deadline:
            return False
        self.values.append(InlineValue(line, kind, name[:NAME_CHARS], label(value), detail(value)))
        return True

    def _arguments(self, frame: types.FrameType) -> None:
        code = frame.f_code
        count = (code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)
                 + bool(code.co_flags & inspect.CO_VARKEYWORDS))
        found = frame.f_locals
        for name in code.co_varnames[:count]:
            if name in found and not self._add(self.solution.parameter_lines.get(name, code.co_firstlineno),
                                               "argument", name, found[name]):
                return

    def _locals(self, frame: types.FrameType) -> None:
        found = frame.f_locals
        for name, line in sorted(self.assigned.items(), key=lambda item: item[1]):
            if name in found and not self._add(line, "local", name, found[name]):
                return


class _Settrace:
    """Before Python 3.12: a global trace function that takes the solution's frames only, and goes
    as soon as nothing more is to be seen (tracing slows every instruction of every frame)."""

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self.code_ids = recorder.solution.code_ids

    def start(self) -> None:
        sys.settrace(self._frame)

    def stop(self) -> None:
        sys.settrace(None)

    def _frame(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if id(frame.f_code) not in self.code_ids:
            return None
        recorder = self.recorder
        try:
            recorder.started(frame)
            if not recorder.seeing:
                sys.settrace(None)
                return None
            if not recorder.wants(frame):
                return None
        except Exception:  # noqa: BLE001 - recording must never change what the solution does
            sys.settrace(None)
            return None
        return self._event

    def _event(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        recorder = self.recorder
        try:
            if event == "line":
                if not recorder.line_event(frame, frame.f_lineno):
                    sys.settrace(None)
                    return None
            elif event == "return":
                recorder.returned(frame)
        except Exception:  # noqa: BLE001
            sys.settrace(None)
            return None
        return self._event


class _Monitoring:
    """Python 3.12 and later: events set on the solution's code objects alone, and removed as soon
    as nothing more is to be seen."""

    _tool: int | None = None

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self.monitoring: Any = getattr(sys, "monitoring")  # noqa: B009 - absent before 3.12
        self.events = self.monitoring.events

    @classmethod
    def available(cls) -> bool:
        if not hasattr(sys, "monitoring"):
            return False
        if cls._tool is None:
            monitoring: Any = getattr(sys, "monitoring")  # noqa: B009
            for tool in (3, 4, 0, 1, 2, 5):  # the unassigned ids first
                if monitoring.get_tool(tool) is None:
                    monitoring.use_tool_id(tool, "infrakata")
                    cls._tool = tool
                    break
        return cls._tool is not None

    def start(self) -> None:
        events = self.events
        for event, callback in ((events.PY_START, self._start), (events.LINE, self._line),
                                (events.PY_RETURN, self._return), (events.PY_YIELD, self._return)):
            self.monitoring.register_callback(self._tool, event, callback)
        self._set(lambda code: events.PY_START)

    def _set(self, events_of: Callable[[types.CodeType], int]) -> None:
        for code in self.recorder.solution.codes:
            self.monitoring.set_local_events(self._tool, code, events_of(code))

    def stop(self) -> None:
        self._set(lambda code: 0)

    def _watch(self) -> None:
        """Once the entry point started: what is still to be seen, where."""
        recorder, events = self.recorder, self.events
        if not recorder.seeing:
            return self.stop()
        every = events.PY_START | events.PY_RETURN | events.PY_YIELD | events.LINE
        entry = recorder.entry.f_code if recorder.entry is not None else None
        self._set(lambda code: every if recorder.watched or code is entry else 0)

    def _start(self, code: types.CodeType, offset: int) -> Any:
        recorder = self.recorder
        try:
            had_entry = recorder.entry is not None
            recorder.started(sys._getframe(1))
            if not had_entry and recorder.entry is not None:
                self._watch()
        except Exception:  # noqa: BLE001
            self.stop()
        return None

    def _line(self, code: types.CodeType, line: int) -> Any:
        try:
            if not self.recorder.line_event(sys._getframe(1), line):
                self.stop()
        except Exception:  # noqa: BLE001
            self.stop()
        return None

    def _return(self, code: types.CodeType, offset: int, value: Any) -> Any:
        try:
            self.recorder.returned(sys._getframe(1))
        except Exception:  # noqa: BLE001
            self.stop()
        return None


Backend = _Settrace | _Monitoring


def start(level: TraceLevel, args: tuple[Any, ...], kwargs: dict[str, Any], watch: tuple[ArgKey, ...],
          backend: str = "") -> tuple[Recorder, Backend] | None:
    """Begin recording a call of the loaded solution (None: nothing to record); `watch`: the arguments
    whose last write to record. `backend`: "settrace" or "monitoring" to choose one (tests); by
    default sys.monitoring where it exists."""
    if level == "off" or _solution is None:
        return None
    try:
        watched = [(key, kwargs[key] if isinstance(key, str) else args[key]) for key in watch
                   if (key in kwargs if isinstance(key, str) else 0 <= key < len(args))]
        recorder = Recorder(_solution, level, watched)
        use_monitoring = backend == "monitoring" or (not backend and _Monitoring.available())
        tracer: Backend = _Monitoring(recorder) if use_monitoring and _Monitoring.available() else _Settrace(recorder)
        tracer.start()
    except Exception:  # noqa: BLE001 - a call is made whether or not it can be recorded
        return None
    return recorder, tracer


def stop(started: tuple[Recorder, Backend] | None) -> Recording | None:
    if started is None:
        return None
    recorder, tracer = started
    try:
        tracer.stop()
        return recorder.finish()
    except Exception:  # noqa: BLE001
        return None
