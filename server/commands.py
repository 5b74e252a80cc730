"""`workspace/executeCommand`: kata.run, kata.benchmark, kata.showProblem, kata.startKata,
kata.listProblems, kata.cancel (arguments in docs/PROTOCOL.md); the learner's kata.hint,
kata.solution and kata.next are in learning.py.

Everything runs on the server, so a client needs no code of its own: code lenses carry these
commands. Runs report `$/progress` when the client supports it and are cancellable from the
progress UI, with `kata.cancel`, or by a newer save.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import attrs
import cattrs
from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import Problem
from infrakata.core.catalog.statement import rendered
from infrakata.core.grading.pipeline import CannotGrade
from infrakata.core.grading.report import report_to_dict
from infrakata.core.grading.results import GradingError
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.uris import from_fs_path, to_fs_path

from . import convert
from .scheduler import Run, RunCancelled
from .server import BENCHMARK_NOTIFICATION, KataServer  # pygls reads handlers' type hints at run time

RUN, BENCHMARK, SHOW_PROBLEM, START_KATA, LIST_PROBLEMS, CANCEL = (
    "kata.run", "kata.benchmark", "kata.showProblem", "kata.startKata", "kata.listProblems", "kata.cancel")


@attrs.frozen
class DocumentArguments:
    """`kata.run`, `kata.benchmark`, `kata.cancel`: `[uri]`."""

    uri: str = attrs.field(validator=attrs.validators.instance_of(str))
    """The solution file, as a URI (open in the editor or not)."""


@attrs.frozen
class ShowProblemArguments:
    """`kata.showProblem`: `[uri or slug]`."""

    target: str = attrs.field(validator=attrs.validators.instance_of(str))
    """A solution file's URI (its problem is shown) or a problem slug."""


@attrs.frozen
class StartKataArguments:
    """`kata.startKata`: `[slug, folderUri?]`."""

    slug: str = attrs.field(validator=attrs.validators.instance_of(str))
    """The problem to start."""
    folder: str | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(str)))
    """Where to write the starter (a folder URI); the workspace root when absent."""


A = TypeVar("A")
_converter = cattrs.Converter()


def parse(command: str, cls: type[A], arguments: tuple[Any, ...]) -> A:
    """Positional arguments (as in PROTOCOL.md), or a single object with the field names."""
    fields = attrs.fields(cast("type[attrs.AttrsInstance]", cls))
    names = [f.name if f.default is attrs.NOTHING else f"{f.name}?" for f in fields]
    if len(arguments) == 1 and isinstance(arguments[0], dict):
        values = arguments[0]
    else:
        required = sum(f.default is attrs.NOTHING for f in fields)
        if not required <= len(arguments) <= len(fields):
            raise JsonRpcInvalidParams(f"{command} takes [{', '.join(names)}]; got {list(arguments)!r}")
        values = dict(zip((f.name for f in fields), arguments, strict=False))
    try:
        return _converter.structure(values, cls)
    except Exception as error:  # noqa: BLE001 - cattrs wraps validator errors in groups
        raise JsonRpcInvalidParams(f"{command} takes [{', '.join(names)}]; got {list(arguments)!r} ({error})") from None


class Progress:
    """Work-done progress for one command: begin, report, end (always, in `finally`).

    Server-initiated (`window/workDoneProgress/create`) when the client supports it, cancellable
    from the client's UI; a no-op otherwise.
    """

    def __init__(self, ls: KataServer, title: str, on_cancel: Callable[[], Any]):
        self.ls, self.title, self.on_cancel = ls, title, on_cancel
        self.token: str | None = None
        self.end_message = ""

    async def __aenter__(self) -> Progress:
        if not self.ls.supports("window.work_done_progress"):
            return self
        token = f"kata-{uuid.uuid4()}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception:  # noqa: BLE001 - a client that refuses gets no progress, the run goes on
            return self
        self.token = token
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(self.title, cancellable=True))
        # pygls cancels this future on window/workDoneProgress/cancel.
        self.ls.work_done_progress.tokens[token].add_done_callback(
            lambda future: future.cancelled() and self.on_cancel())
        return self

    def report(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(message=message))

    async def __aexit__(self, *exc: object) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=self.end_message or None))
            self.ls.work_done_progress.tokens.pop(self.token, None)


async def _outcome(ls: KataServer, key: str, task: asyncio.Task[Any]) -> Any:
    try:
        return await ls.scheduler.result(key, task)
    except RunCancelled as error:
        raise JsonRpcRequestCancelled(str(error)) from None


def _solution(ls: KataServer, command: str, uri: str) -> tuple[Problem, str]:
    """The problem and the current text of a solution document, or a clear error."""
    try:
        source = ls.document(uri).source
    except OSError as error:
        raise JsonRpcInvalidParams(f"{command}: cannot read {uri}: {error}") from None
    try:
        return ls.match(uri, source), source
    except CannotGrade as error:
        raise JsonRpcInvalidParams(f"{command}: {error}") from None


def _statement_uri(problem: Problem) -> str | None:
    """The statement as a file an editor can open; a codestar problem's is written out once."""
    path = problem.statement_path
    if path is None or path.suffix != ".md":
        path = Path(tempfile.gettempdir()) / "infrakata-statements" / f"{problem.slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(problem.statement, encoding="utf-8")
    uri: str | None = from_fs_path(str(path))
    return uri


async def _show(ls: KataServer, uri: str | None) -> bool:
    """Ask the client to open `uri`: -> whether it was asked (a client without window/showDocument,
    Neovim 0.7 say, opens the `uri` of the command's result itself)."""
    if uri is not None and ls.supports("window.show_document.support"):
        await ls.window_show_document_async(types.ShowDocumentParams(uri, take_focus=True))
        return True
    return False


async def open_starter(ls: KataServer, problem: Problem, folder: Path) -> dict[str, Any]:
    """Write the starter into `folder` unless a file is already there (an attempt is never
    overwritten), and open it."""
    from infrakata.core.progress.learning import starter_file_name, write_starter

    target = folder / starter_file_name(problem)
    if not target.exists():
        write_starter(problem, folder)
    uri = from_fs_path(str(target))
    return {"uri": uri, "shown": await _show(ls, uri)}


def register(server: KataServer) -> None:
    @server.command(RUN)
    async def run(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        uri = parse(RUN, DocumentArguments, arguments).uri
        problem, source = _solution(ls, RUN, uri)
        version = ls.document(uri).version  # None for a file read from disk
        async with Progress(ls, f"kata: grading {Path(to_fs_path(uri) or uri).name}",
                            lambda: ls.scheduler.cancel(uri)) as progress:
            report = await _outcome(ls, uri, ls.grade(uri, source, version, progress=progress.report))
            progress.end_message = convert.result_summary(report) if report is not None else ""
        if report is None:
            raise JsonRpcInvalidParams(f"{RUN}: {uri} could not be graded against {problem.slug}; see the messages")
        return report_to_dict(report)

    @server.command(BENCHMARK)
    async def benchmark(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        from infrakata.core import bench
        from infrakata.core.bench.benchmark import bench_to_dict

        uri = parse(BENCHMARK, DocumentArguments, arguments).uri
        problem, source = _solution(ls, BENCHMARK, uri)
        if not problem.benchmarked:
            raise JsonRpcInvalidParams(f"{BENCHMARK}: {problem.slug} has no benchmark: "
                                       f"{kind_of(problem).without_benchmark(problem)}")
        key = f"{uri}#benchmark"
        path = Path(to_fs_path(uri) or uri)

        async def job(run: Run) -> dict[str, Any]:
            result = await run.call(lambda: bench.run(problem, source, path, ls.workers(), cancel=run.token,
                                                      workspace=ls.root))
            return bench_to_dict(result)

        async with Progress(ls, f"kata: benchmarking {path.name}", lambda: ls.scheduler.cancel(key)) as progress:
            progress.report(f"{problem.slug}: correctness gate, then timing")
            try:
                result: dict[str, Any] = await _outcome(ls, key, ls.scheduler.submit(key, job))
            except GradingError as error:
                ls.show(f"kata: cannot benchmark {path.name}: {error}", types.MessageType.Error)
                raise
            progress.end_message = convert.benchmark_figure(result)
        ls.state(uri).benchmark = result
        ls.protocol.notify(BENCHMARK_NOTIFICATION, {"uri": uri, "result": result})
        ls.refresh_lenses()
        # The headline too, for a client that shows neither progress nor the lens at once (Neovim 0.7).
        return {**result, "summary": f"{problem.slug}: {convert.benchmark_figure(result)}"}

    @server.command(SHOW_PROBLEM)
    async def show_problem(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        target = parse(SHOW_PROBLEM, ShowProblemArguments, arguments).target
        if "://" in target:
            problem, _ = _solution(ls, SHOW_PROBLEM, target)
        else:
            try:
                problem = ls.catalog.get(target)
            except LookupError as error:
                raise JsonRpcInvalidParams(f"{SHOW_PROBLEM}: {error}") from None
        uri = _statement_uri(problem)
        shown = await _show(ls, uri)
        return {"slug": problem.slug, "title": problem.title, "markdown": rendered(problem.statement), "uri": uri,
                "shown": shown}

    @server.command(START_KATA)
    async def start_kata(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        args = parse(START_KATA, StartKataArguments, arguments)
        try:
            problem = ls.catalog.get(args.slug)
        except LookupError as error:
            raise JsonRpcInvalidParams(f"{START_KATA}: {error}") from None
        folder = Path(to_fs_path(args.folder) or args.folder) if args.folder else ls.root
        if folder is None:
            raise JsonRpcInvalidParams(f"{START_KATA}: no folder given and no workspace open; pass a folder URI")
        return await open_starter(ls, problem, folder)

    @server.command(LIST_PROBLEMS)
    def list_problems(ls: KataServer, *arguments: Any) -> list[dict[str, Any]]:
        return [p.summary() for p in ls.catalog.problems.values()]

    @server.command(CANCEL)
    def cancel(ls: KataServer, *arguments: Any) -> None:
        uri = parse(CANCEL, DocumentArguments, arguments).uri
        ls.scheduler.cancel(uri)
        ls.scheduler.cancel(f"{uri}#benchmark")
