"""The infrakata language server: state, and the grading pipeline every trigger goes through.

Triggers (didOpen, didSave, debounced didChange, a file changed on disk, the `kata.run` command)
all call `KataServer.grade`, which runs core's matcher and runner on a thread, one run per
document (scheduler.py), and hands the result on (convert.py builds the diagnostics). The LSP
features live in their own modules and are registered by `create_server` (server/app.py); they
meet only through the server: its methods, and its events (`on_initialize`, `on_settings`,
`on_grading`, `on_diagnostics`, `on_accepted`, `on_close`: lists of callbacks a feature appends to
in its `register`). This module imports no feature.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Generator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings, find_workspace, load_settings
from infrakata.core.errors import CannotGrade
from infrakata.core.grading.pipeline import Grading
from infrakata.core.grading.report import report_to_dict
from infrakata.core.grading.results import CaseResult, RunReport
from infrakata.core.progress import store
from infrakata.core.sandbox.pool import WorkerPool
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from . import convert
from .scheduler import Run, Scheduler

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner
    from infrakata.core.sandbox.doctor import Diagnosis

log = logging.getLogger(__name__)

SECTION = "infrakata"  # the settings' section, in initializationOptions and the client's configuration
RESULT_NOTIFICATION = "kata/result"
# Clients (their `clientInfo.name`) whose message requests leave the editor usable while they wait.
NON_BLOCKING_PROMPTS = ("Visual Studio Code", "Visual Studio Code - Insiders", "code-server", "VSCodium")
BENCHMARK_NOTIFICATION = "kata/benchmarkResult"


def initialization_settings(options: Any) -> dict[str, Any]:
    """initializationOptions: `{"infrakata": {...}}`, or the section's keys at the top level."""
    if not isinstance(options, dict):
        return {}
    section = options.get(SECTION, options)
    return section if isinstance(section, dict) else {}


class KataProtocol(LanguageServerProtocol):
    """pygls's protocol, firing the server's `on_initialize` with the capabilities the server is about to offer,
    once pygls has built them from the features registered and the client's are known: a feature may withdraw an
    offer that only some clients get (pull diagnostics)."""

    _server: KataServer

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        for listener in self._server.on_initialize:
            listener(result.capabilities)
        return result


@dataclass
class DocumentState:
    """What the server remembers about one solution file."""

    problem: Problem | None = None
    report: RunReport | None = None
    graded_version: int | None = None
    published_version: int | None = None  # diagnostics never go back below this
    submitted: str | None = None  # the content of the last run started: a watchdog echo of it is skipped
    graded_source: str | None = None  # the text `report` is of: inline values show only on that text
    benchmark: dict[str, Any] | None = None


class KataServer(LanguageServer):
    """The language server: its settings, catalogue and warm pool, each open document's state, and
    one grading at a time per document (the features in server/ call core through it)."""

    def __init__(self) -> None:
        from infrakata.server import __version__

        super().__init__("infrakata", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=KataProtocol)
        self.settings = Settings()
        self.catalog = Catalog({}, [])
        self.root: Path | None = None
        self.overrides: dict[str, Any] = {}
        self.pool: WorkerPool | None = None
        self._runner: Runner | None = None
        self._workers_lock = threading.Lock()
        self.scheduler = Scheduler()
        # The server's events: what features subscribe to in their `register` (and the only way they hear of
        # each other's doings). Each is a list of callbacks, called on the event loop in the order appended.
        # At `initialize`: the client's capabilities are known (`supports`), with the server's about to be offered
        # (a feature may withdraw its own).
        self.on_initialize: list[Callable[[types.ServerCapabilities], None]] = []
        # The settings were (re)read (at initialize, on a configuration change, kata.toml changed): with the ones
        # before.
        self.on_settings: list[Callable[[Settings], None]] = []
        # A grading starts running (its problem matched): with its document, its problem, the task whose result is
        # the RunReport (None: not graded; cancelled: replaced by a newer run or cancelled), and whether its caller
        # reports its progress itself (a command does).
        self.on_grading: list[Callable[[str, Problem, asyncio.Task[Any], bool], None]] = []
        # A document's diagnostics, of a version no older than any before (DocumentState.published_version):
        # with its URI, that version (None: a file graded from disk) and the diagnostics.
        self.on_diagnostics: list[Callable[[str, int | None, list[types.Diagnostic]], None]] = []
        # Called once a save is accepted (and recorded): with its file, its problem and its workspace.
        self.on_accepted: list[Callable[[Path, Problem, Path | None], None]] = []
        # The server stops (shutdown, or the connection closed).
        self.on_close: list[Callable[[], None]] = []
        self.documents: dict[str, DocumentState] = {}
        self._problem_paths: tuple[str, ...] | None = None
        self._shown: set[str] = set()
        self._background: set[asyncio.Task[Any]] = set()
        self._results_lock = asyncio.Lock()
        self.offered_next: set[str] = set()  # problems whose acceptance already offered the next kata
        self.client_name = ""  # the client's own (InitializeParams.clientInfo)


    def configure(self, overrides: Mapping[str, Any] | None) -> None:
        """(Re)read kata.toml under editor overrides (None: keep them); bad values: a message, and
        the defaults. When the problems or the file mapping change, open documents are regraded."""
        if overrides is not None:
            self.overrides = dict(overrides)
        before = self.settings
        self.settings, warnings = load_settings(self.root, self.overrides)
        for warning in warnings:
            self.show(f"kata: {warning}", types.MessageType.Warning)
        paths = tuple(str(p) for p in self.settings.problem_paths)
        if paths != self._problem_paths:
            self._problem_paths = paths
            self.catalog = Catalog.load(extra_paths=self.settings.problem_paths)
            self._report_catalog_errors()
        if (paths, self.settings.file_map) != (tuple(str(p) for p in before.problem_paths), before.file_map):
            for state in self.documents.values():
                state.problem = None
            for uri in list(self.workspace.text_documents):
                self.grade(uri)
        elif self.settings.inline_values != before.inline_values:
            # Turned off: the hints go. Turned on: the open documents are graded again to record them.
            self.refresh_inlay_hints()
            if self.settings.inline_values:
                for uri in list(self.workspace.text_documents):
                    self.grade(uri)
        for listener in self.on_settings:
            listener(before)

    def _report_catalog_errors(self) -> None:
        errors = self.catalog.errors
        for error in errors:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"kata: {error}"))
        if errors:
            more = f" (and {len(errors) - 1} more in the log)" if len(errors) > 1 else ""
            self.show(f"kata: a problem could not be loaded: {errors[0]}{more}", types.MessageType.Warning)
        for note in self.catalog.renaming_notes():
            self.show(f"kata: {note}", types.MessageType.Info)


    def show(self, message: str, kind: types.MessageType = types.MessageType.Info, once: bool = False) -> None:
        """window/showMessage (and the log); `once` keeps a repeated failure from nagging on every save."""
        log.info("%s", message)
        if once:
            if message in self._shown:
                return
            self._shown.add(message)
        self.window_show_message(types.ShowMessageParams(kind, message))

    def background(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine on the loop; its failure is a message, never a lost exception."""
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())
            self.show(f"kata: {task.exception()}", types.MessageType.Error)

    def supports(self, capability: str) -> bool:
        return bool(get_capability(self.client_capabilities, capability, False))

    def pulls_diagnostics(self) -> bool:
        """Whether the client pulls diagnostics (`textDocument/diagnostic`) rather than being sent them: only where
        it can also be told to pull again (`workspace/diagnostic/refresh`), since a grading ends after the pull that
        a save makes. Such a client is never sent `publishDiagnostics` (server/diagnostics.py)."""
        return self.supports("text_document.diagnostic") and self.supports("workspace.diagnostics.refresh_support")

    def related_information(self) -> bool:
        """Whether the client shows a diagnostic's relatedInformation, where it gets its diagnostics."""
        if self.pulls_diagnostics():
            return self.supports("text_document.diagnostic.related_information")
        return self.supports("text_document.publish_diagnostics.related_information")

    def prompts_without_blocking(self) -> bool:
        """Whether the client shows `window/showMessageRequest` without blocking its editor. No capability says
        so: VS Code's (and its builds') prompts wait aside; Neovim's (0.7 and later) takes over the editor until
        answered, and other clients may too, so they get a plain message."""
        return self.supports("window.show_message") and self.client_name in NON_BLOCKING_PROMPTS


    def start_workers(self) -> None:
        """Import the engine (torch) and warm the zygote; at initialize this runs on a thread of its
        own, so that the server answers at once and the first save is already fast."""
        with self._workers_lock:
            if self._runner is None:
                from infrakata.core.grading.runner import Runner

                self.pool = WorkerPool.shared()
                self.pool.start()
                self._runner = Runner(self.pool, fresh_ahead=True)

    def warm_up(self, loop: asyncio.AbstractEventLoop) -> None:
        """At initialize, on a thread of its own: the workers started, then (once the zygote has probed
        the sandbox) its layers in the log, and a warning naming any that is missing, on `loop`."""
        from infrakata.core.sandbox.doctor import diagnose

        self.start_workers()
        try:
            diagnosis = diagnose(self.workers())
        except Exception as error:  # noqa: BLE001 - the first grading will say what is wrong
            log.warning("the worker pool did not start: %s", error)
            return
        try:
            loop.call_soon_threadsafe(self.report_sandbox, diagnosis)
        except RuntimeError:  # the server stopped meanwhile
            pass

    def report_sandbox(self, diagnosis: Diagnosis) -> None:
        from infrakata.core.sandbox.doctor import format_diagnosis, warning_line

        self.window_log_message(types.LogMessageParams(types.MessageType.Info, f"kata: {format_diagnosis(diagnosis)}"))
        line = warning_line(diagnosis.layers)
        if line is not None:
            self.show(f"kata: {line}", types.MessageType.Warning, once=True)
        if diagnosis.gpu_problem is not None:  # every kernel kata would be refused: said before the first save
            self.show(f"kata: {diagnosis.gpu_problem}", types.MessageType.Warning, once=True)

    @property
    def runner(self) -> Runner:
        self.start_workers()
        assert self._runner is not None and self.pool is not None
        self.pool.isolation = self.settings.isolation  # the settings' as of now (they may change)
        return self._runner

    def workers(self) -> WorkerPool:
        self.start_workers()
        assert self.pool is not None
        return self.pool

    def state(self, uri: str) -> DocumentState:
        return self.documents.setdefault(uri, DocumentState())

    def document(self, uri: str) -> TextDocument:
        return self.workspace.get_text_document(uri)

    def grading(self, runner: Runner | None = None) -> Grading:
        """Core's grading path under the current settings (a runner where something is to be run)."""
        return Grading(self.catalog, self.settings, self.root, runner)

    def match(self, uri: str, source: str) -> Problem:
        """The problem this document solves; raises CannotGrade with how to name one."""
        problem = self.grading().problem_for(Path(to_fs_path(uri) or uri), source)
        self.state(uri).problem = problem
        return problem

    def workspace_of(self, uri: str | None) -> Path | None:
        """The workspace whose progress store applies to `uri` (None: the per-user store), as `kata` finds it."""
        if uri and "://" in uri:
            return find_workspace(Path(to_fs_path(uri) or uri).parent)
        return find_workspace(self.root) if self.root is not None else None

    def solution(self, command: str, uri: str) -> tuple[Problem, str]:
        """A command's solution document: its problem and current text, or InvalidParams saying why not."""
        try:
            source = self.document(uri).source
        except OSError as error:
            raise JsonRpcInvalidParams(f"{command}: cannot read {uri}: {error}") from None
        try:
            return self.match(uri, source), source
        except CannotGrade as error:
            raise JsonRpcInvalidParams(f"{command}: {error}") from None

    async def show_document(self, uri: str | None) -> bool:
        """Ask the client to open `uri`: -> whether it was asked (a client without window/showDocument,
        Neovim 0.7 say, opens the `uri` of the command's result itself)."""
        if uri is not None and self.supports("window.show_document.support"):
            await self.window_show_document_async(types.ShowDocumentParams(uri, take_focus=True))
            return True
        return False

    async def open_starter(self, problem: Problem, folder: Path) -> dict[str, Any]:
        """Write the starter into `folder` unless a file is already there (an attempt is never
        overwritten), and open it."""
        from infrakata.core.progress.learning import starter_file_name, write_starter

        target = folder / starter_file_name(problem)
        if not target.exists():
            write_starter(problem, folder)
        uri = from_fs_path(str(target))
        return {"uri": uri, "shown": await self.show_document(uri)}

    def shown_case(self, uri: str) -> tuple[CaseResult, int | None] | None:
        """The case whose values `uri` shows (inlay hints, hover), and the entry point's line: the last grading's
        first failing case with values, while the setting is on and the document holds the text that was graded."""
        state = self.state(uri)
        if not self.settings.inline_values or state.report is None or state.graded_source is None:
            return None
        if uri not in self.workspace.text_documents or self.document(uri).source != state.graded_source:
            return None
        case = next((c for c in state.report.cases if c.values), None)
        return None if case is None else (case, state.report.entry_line)

    def problem_of(self, uri: str) -> Problem | None:
        """The problem of an open document for lenses and hover, without reporting a mismatch."""
        state = self.state(uri)
        if state.problem is None:
            try:
                self.match(uri, self.document(uri).source)
            except (CannotGrade, OSError):
                return None
        return state.problem

    def grade(self, uri: str, source: str | None = None, version: int | None = None,
              delay_s: float = 0.0, progress: Callable[[str], None] | None = None) -> asyncio.Task[Any]:
        """Start grading `uri` (its editor text unless `source` is given), replacing any run in flight.

        The task's result is the RunReport, or None when there was nothing to grade.
        """
        if source is None:
            document = self.document(uri)
            source, version = document.source, document.version
        self.state(uri).submitted = source

        async def job(run: Run) -> RunReport | None:
            return await self._grade(uri, source, version, run, progress)

        return self.scheduler.submit(uri, job, delay_s)

    async def _grade(self, uri: str, source: str, version: int | None, run: Run,
                     progress: Callable[[str], None] | None) -> RunReport | None:
        try:  # off the event loop: whatever a header names, the server keeps answering
            problem = await asyncio.to_thread(self.match, uri, source)
        except CannotGrade as error:
            self.publish(uri, version, [convert.unmatched_diagnostic(str(error), source)])
            return None
        task = asyncio.current_task()
        assert task is not None  # the scheduler's, whose result is this one's
        for listener in self.on_grading:
            listener(uri, problem, task, progress is not None)
        if progress is not None:
            progress(f"{problem.slug}: grading in a sandboxed worker")
        path = Path(to_fs_path(uri) or uri)
        try:
            # On the run's thread: the first grading may wait for start_workers to finish.
            report = await run.call(lambda: self.grading(self.runner).run(
                problem, source, path, cancel=run.token, values=self.settings.inline_values))
        except Exception as error:  # a broken problem or a dead pool: say so, keep serving
            log.exception("grading %s failed", uri)
            message = f"kata: could not grade {path.name} against {problem.slug}: {error}"
            self.show(message, types.MessageType.Error, once=True)
            self.publish(uri, version, [types.Diagnostic(
                range=convert.entry_range(source, problem, self.workspace.position_codec),
                message=message, severity=types.DiagnosticSeverity.Warning, code="not-graded",
                source=convert.SOURCE)])
            return None
        if report.cancelled:
            return None
        state = self.state(uri)
        if not self.publish(uri, version, convert.diagnostics(
                report, problem, source, uri, self.workspace.position_codec, related=self.related_information())):
            return report
        state.report, state.graded_version, state.graded_source = report, version, source
        self.refresh_inlay_hints()
        if report.verdict == "crashed":
            self.show(f"kata: the worker grading {path.name} crashed; see the diagnostics", types.MessageType.Warning,
                      once=True)
        self.refresh_lenses()
        # Not part of the run: a newer save must not cancel the record of this one.
        self.background(self._after_result(uri, version, path, problem, report))
        return report

    async def _after_result(self, uri: str, version: int | None, path: Path, problem: Problem,
                            report: RunReport) -> None:
        """Once the diagnostics are out: the attempt recorded where `kata run` records it (the
        workspace's store, else the learner's own), then `kata/result` (so a client that reacts to it
        finds the attempt recorded: the solution unlocked, the progress counted), then the way on.
        One at a time, in the order the runs finished."""
        async with self._results_lock:
            # Only a first acceptance offers the way on: reopening a solved kata grades it again, and says no more.
            before = await asyncio.to_thread(store.progress, find_workspace(path.parent), report.problem)
            solved_before = bool(before and before["accepted"])
            warning = await asyncio.to_thread(Grading.record, path, report)
            if warning:
                self.show(f"kata: {warning}", types.MessageType.Warning, once=True)
            self.protocol.notify(RESULT_NOTIFICATION, {"uri": uri, "version": version,
                                                       "report": report_to_dict(report)})
            if report.accepted and not solved_before:
                for listener in self.on_accepted:
                    listener(path, problem, find_workspace(path.parent))

    def publish(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> bool:
        """Hand a document's diagnostics to `on_diagnostics` (server/diagnostics.py pushes them or keeps them for
        the client's pull), unless a newer version of the document has already had its own."""
        state = self.state(uri)
        if version is not None and state.published_version is not None and version < state.published_version:
            log.debug("dropping diagnostics of %s version %s (published: %s)", uri, version, state.published_version)
            return False
        if version is not None:
            state.published_version = version
        for listener in self.on_diagnostics:
            listener(uri, version, diagnostics)
        return True

    def refresh_lenses(self) -> None:
        if self.supports("workspace.code_lens.refresh_support"):
            self.workspace_code_lens_refresh(None)

    def refresh_inlay_hints(self) -> None:
        """The inline values changed (a grading, the setting): clients that can ask again, do."""
        if self.supports("workspace.inlay_hint.refresh_support"):
            self.workspace_inlay_hint_refresh(None)

    def uri_of(self, path: Path) -> str:
        """The URI the editor uses for `path` if it has the file open, else a file URI."""
        resolved = path.resolve()
        for uri, document in self.workspace.text_documents.items():
            if document.path and Path(document.path).resolve() == resolved:
                return str(uri)
        return from_fs_path(str(resolved)) or resolved.as_uri()

    def close(self) -> None:
        """Stop everything this server started: runs, what features started (the watcher), the worker pool."""
        self.scheduler.close()
        for listener in self.on_close:
            listener()
        if self._runner is not None:
            self._runner.close()
        if self.pool is not None:
            self.pool.close()

