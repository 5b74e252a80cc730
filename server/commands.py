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
from pathlib import Path
from typing import Any

import attrs
from infrakata.core.catalog.kinds import no_benchmark, summary
from infrakata.core.catalog.problem import Problem
from infrakata.core.catalog.statement import rendered
from infrakata.core.errors import GradingError
from infrakata.core.grading.report import report_to_dict
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.uris import from_fs_path, to_fs_path

from . import convert
from .arguments import BENCHMARK, CANCEL, LIST_PROBLEMS, RUN, SHOW_PROBLEM, START_KATA, parse
from .scheduler import Run, RunCancelled
from .server import BENCHMARK_NOTIFICATION, KataServer  # pygls reads handlers' type hints at run time
from .work_done import Progress


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


async def _outcome(ls: KataServer, key: str, task: asyncio.Task[Any]) -> Any:
    try:
        return await ls.scheduler.result(key, task)
    except RunCancelled as error:
        raise JsonRpcRequestCancelled(str(error)) from None


def _statement_uri(problem: Problem) -> str | None:
    """The statement as a file an editor can open; a codestar problem's is written out once."""
    path = problem.statement_path
    if path is None or path.suffix != ".md":
        path = Path(tempfile.gettempdir()) / "infrakata-statements" / f"{problem.slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(problem.statement, encoding="utf-8")
    uri: str | None = from_fs_path(str(path))
    return uri


def register(server: KataServer) -> None:
    @server.command(RUN)
    async def run(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        uri = parse(RUN, DocumentArguments, arguments).uri
        problem, source = ls.solution(RUN, uri)
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
        problem, source = ls.solution(BENCHMARK, uri)
        if (why := no_benchmark(problem)) is not None:
            raise JsonRpcInvalidParams(f"{BENCHMARK}: {why}")
        key = f"{uri}#benchmark"
        path = Path(to_fs_path(uri) or uri)

        async def job(run: Run) -> dict[str, Any]:
            result = await run.call(lambda: bench.measure(problem, source, path, ls.workers(), cancel=run.token,
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
            problem, _ = ls.solution(SHOW_PROBLEM, target)
        else:
            try:
                problem = ls.catalog.get(target)
            except LookupError as error:
                raise JsonRpcInvalidParams(f"{SHOW_PROBLEM}: {error}") from None
        uri = _statement_uri(problem)
        shown = await ls.show_document(uri)
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
        return await ls.open_starter(problem, folder)

    @server.command(LIST_PROBLEMS)
    def list_problems(ls: KataServer, *arguments: Any) -> list[dict[str, Any]]:
        return [summary(p) for p in ls.catalog.problems.values()]

    @server.command(CANCEL)
    def cancel(ls: KataServer, *arguments: Any) -> None:
        uri = parse(CANCEL, DocumentArguments, arguments).uri
        ls.scheduler.cancel(uri)
        ls.scheduler.cancel(f"{uri}#benchmark")
