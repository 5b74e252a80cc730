"""The language server under test: a real `python -m infrakata.server` over stdio, driven by a
pytest-lsp client that records what the server publishes, so tests wait for events, not time.

The client is VS Code by default, as the extension's languageclient declares itself: it pulls diagnostics. What it
pulls is recorded as if it had been published (`KataClient.published`), so a test reads a document's diagnostics
the same way from a client that pulls and from one that is pushed them (Neovim 0.7, a bare client)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytest_lsp
from infrakata.core.sandbox.protocol import SPARE_NAME
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_PROBLEMS = FIXTURES / "problems"
SEEDS = Path(__file__).resolve().parents[2] / "../shared/seeds"
T = TypeVar("T")

CORRECT = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor\n"
WRONG = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor + 1\n"
# Case 1 (2 * 3) takes the first return and passes; cases 2 and 3 take the second, which adds 1. (The CLI and
# Neovim tests read the same file.)
TWO_RETURNS = (FIXTURES / "solutions" / "two_returns.py").read_text()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers",
                            "kata(options=, files=, capabilities=, client_name=): how the `client` fixture's server "
                            "starts")
    # Protocol misuse by the server (e.g. a request the client did not declare support for) fails the test.
    config.addinivalue_line("filterwarnings", "error::pytest_lsp.LspSpecificationWarning")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _killed_or_gone(pid: int) -> bool:
    """Exited (a zombie, or gone), or with a SIGKILL pending: it runs no more of the solution."""
    try:
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
    except OSError:
        return True
    pending = int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)
    return status["State"][0] in "ZX" or bool(pending & (1 << (9 - 1)))


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class ProgressRefused(JsonRpcInternalError):
    """The client's answer to window/workDoneProgress/create where a test has it refuse."""


class KataClient(LanguageClient):
    """Records diagnostics (with their versions), kata/result, lens refreshes and progress."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.results: list[dict[str, Any]] = []
        self.benchmarks: list[dict[str, Any]] = []
        self.lens_refreshes = 0
        self.inlay_hint_refreshes = 0
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.message_answer: str | None = None  # the action title a request is answered with ("*": the first)
        self.refuse_progress = False  # answer window/workDoneProgress/create with an error
        self.refused_progress = 0
        self.root = Path()
        self.server_capabilities: types.ServerCapabilities | None = None
        self.pushed = 0  # publishDiagnostics received
        self.result_ids: dict[str, str] = {}  # each document's result id, as pulled
        self.pull_errors: list[BaseException | None] = []
        self._news = asyncio.Event()
        self._pulling = asyncio.Lock()
        self._pulls: set[asyncio.Task[None]] = set()

    def report_server_error(self, error: Exception, source: Any) -> None:
        if not isinstance(error, ProgressRefused):  # a refusal is the test's, not a failure
            super().report_server_error(error, source)

    def solution_workers(self) -> list[int]:
        """Solution processes still running: the live children of the server's zygotes (the torch-free one too,
        once a run needed it), but for the workers they keep started ahead of need (named kata-spare until they
        are given a run)."""
        zygotes = [pid for pid in _children(self._server.pid)
                   if b"infrakata.core.sandbox.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert zygotes
        return [pid for zygote in zygotes for pid in _children(zygote)
                if not _killed_or_gone(pid) and _name(pid) != SPARE_NAME.decode()]

    def news(self) -> None:
        self._news.set()

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 60.0) -> T:
        """Until `predicate()` is truthy; re-checked on every notification from the server."""

        deadline = asyncio.get_running_loop().time() + timeout
        while not (value := predicate()):
            self._news.clear()
            await asyncio.wait_for(self._news.wait(), max(0.0, deadline - asyncio.get_running_loop().time()))
        return value

    def record(self, params: types.PublishDiagnosticsParams) -> None:
        self.diagnostics[params.uri] = params.diagnostics
        self.published.setdefault(params.uri, []).append(params)
        self.news()

    def pull_later(self) -> None:
        """On `workspace/diagnostic/refresh`, as VS Code's workspace pull: every document's new diagnostics,
        recorded as if published (with the version they are of). One pull at a time, in order."""
        task = asyncio.ensure_future(self.pull_workspace())
        self._pulls.add(task)
        task.add_done_callback(self._pulled)

    def _pulled(self, task: asyncio.Task[None]) -> None:
        self._pulls.discard(task)
        if not task.cancelled() and task.exception() is not None:  # the server exited meanwhile, or a test failed
            self.pull_errors.append(task.exception())

    async def pull_workspace(self) -> None:
        async with self._pulling:
            report = await self.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
                previous_result_ids=[types.PreviousResultId(uri, value) for uri, value in self.result_ids.items()]))
            for item in report.items:
                if isinstance(item, types.WorkspaceFullDocumentDiagnosticReport):
                    self.record(types.PublishDiagnosticsParams(item.uri, item.items, item.version))
                if item.result_id is not None:
                    self.result_ids[item.uri] = item.result_id

    async def pull(self, uri: str, previous: str | None = None) -> types.DocumentDiagnosticReport:
        """`textDocument/diagnostic`, as VS Code pulls an open document's."""
        return await self.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            types.TextDocumentIdentifier(uri), identifier="kata", previous_result_id=previous))

    async def diagnostics_for(self, uri: str, version: int | None, after: int = 0) -> list[types.Diagnostic]:
        """The diagnostics published (or pulled) for `version` of `uri` (waiting for them), among the
        publications for `uri` from the `after`-th on."""
        params = await self.wait_for(lambda: next(
            (p for p in reversed(self.published.get(uri, [])[after:]) if p.version == version), None))
        return list(params.diagnostics)

    async def result_for(self, uri: str, version: int | None) -> dict[str, Any]:
        return await self.wait_for(lambda: next(
            (r for r in reversed(self.results) if r["uri"] == uri and r["version"] == version), None))

    # -- document helpers --------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))

    def change(self, uri: str, text: str, version: int) -> None:
        self.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)]))

    def save(self, uri: str) -> None:
        self.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))

    def edit_and_save(self, uri: str, text: str, version: int) -> None:
        self.change(uri, text, version)
        self.save(uri)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments)))

    async def run_in_flight(self, uri: str) -> tuple[asyncio.Future, str]:
        """Start `kata.run` on `uri`; return once its run has reached a worker: (the request, its progress token)."""
        title = f"kata: grading {uri.rpartition('/')[2]}"
        request = asyncio.ensure_future(self.command("kata.run", uri))
        # The progress reports once, right before the run goes to the worker.
        token = await self.wait_for(lambda: next((token for token, reports in self.progress_reports.items()
                                                  if len(reports) == 2 and reports[0].title == title), None))
        return request, token

    async def inlay_hints(self, uri: str) -> list[types.InlayHint]:
        """The hints over the whole document."""
        return await self.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(0, 0), types.Position(10_000, 0)))) or []

    async def lenses(self, uri: str) -> list[types.CodeLens]:
        return await self.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri))) or []


def _publish(client: KataClient, params: types.PublishDiagnosticsParams) -> None:
    client.pushed += 1
    client.record(params)


def _diagnostic_refresh(client: KataClient, params: None) -> None:
    client.diagnostic_refresh_count += 1
    client.pull_later()


def _create_progress(client: KataClient, params: types.WorkDoneProgressCreateParams) -> None:
    if client.refuse_progress:
        client.refused_progress += 1
        raise ProgressRefused(f"no progress here ({params.token})")
    DEFAULT_CLIENT_FEATURES[types.WINDOW_WORK_DONE_PROGRESS_CREATE](client, params)


def _result(client: KataClient, params: Any) -> None:
    client.results.append(_plain(params))
    client.news()


def _benchmark(client: KataClient, params: Any) -> None:
    client.benchmarks.append(_plain(params))
    client.news()


def _lens_refresh(client: KataClient, params: None) -> None:
    client.lens_refreshes += 1
    client.news()


def _log_message(client: KataClient, params: types.LogMessageParams) -> None:
    DEFAULT_CLIENT_FEATURES[types.WINDOW_LOG_MESSAGE](client, params)
    client.news()


def _inlay_hint_refresh(client: KataClient, params: None) -> None:
    client.inlay_hint_refreshes += 1
    client.news()


def _show_message(client: KataClient, params: types.ShowMessageParams) -> None:
    client.messages.append(params)
    client.news()


def _show_message_request(client: KataClient, params: types.ShowMessageRequestParams):
    client.message_requests.append(params)
    client.news()
    return next((a for a in params.actions or [] if client.message_answer in (a.title, "*")), None)


def _progress(client: KataClient, params: types.ProgressParams) -> None:
    DEFAULT_CLIENT_FEATURES[types.PROGRESS](client, params)
    client.news()


def _plain(value: Any) -> Any:
    """pygls hands custom notifications' params over as objects; tests compare plain JSON."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return [_plain(v) for v in value]
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    return value


def make_client() -> KataClient:
    client = KataClient(converter_factory=default_converter)
    register_lsp_features(client, {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _publish,
        types.WORKSPACE_DIAGNOSTIC_REFRESH: _diagnostic_refresh,
        types.WINDOW_WORK_DONE_PROGRESS_CREATE: _create_progress,
        types.WINDOW_SHOW_MESSAGE: _show_message,
        types.WINDOW_LOG_MESSAGE: _log_message,
        types.WINDOW_SHOW_MESSAGE_REQUEST: _show_message_request,
        types.PROGRESS: _progress,
        types.WORKSPACE_CODE_LENS_REFRESH: _lens_refresh,
        types.WORKSPACE_INLAY_HINT_REFRESH: _inlay_hint_refresh,
        "kata/result": _result,
        "kata/benchmarkResult": _benchmark,
    })
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "infrakata.server"],
    client_factory=make_client,
    server_env={**os.environ, "PYTHONUNBUFFERED": "1"},
)


DEFAULT_OPTIONS = {"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False}


def vs_code() -> types.ClientCapabilities:
    """VS Code's capabilities as the extension's client declares them: pytest-lsp's recording (VS Code 1.65,
    before LSP 3.17) and what vscode-languageclient 8 and later add to it, pull diagnostics."""
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None and capabilities.workspace is not None
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_information=True, tag_support=types.ClientDiagnosticsTagOptions(
            value_set=[types.DiagnosticTag.Unnecessary, types.DiagnosticTag.Deprecated]),
        code_description_support=True, data_support=True)
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return capabilities


async def initialize(client: KataClient, root: Path, options: Any = DEFAULT_OPTIONS,
                     capabilities: types.ClientCapabilities | None = None,
                     client_name: str = "Visual Studio Code") -> None:
    """As the client named (with VS Code's capabilities unless `capabilities` are given)."""
    client.root = root
    result = await client.initialize_session(types.InitializeParams(
        client_info=types.ClientInfo(client_name),
        capabilities=capabilities or vs_code(),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"infrakata": options},
    ))
    client.server_capabilities = result.capabilities


@pytest_lsp.fixture(config=SERVER, scope="session")
async def shared(lsp_client: KataClient, tmp_path_factory: pytest.TempPathFactory):
    """One server for every test that needs no set-up of its own (each uses its own solution file;
    their modules run in the session's event loop: `pytest.mark.asyncio(loop_scope="session")`)."""
    await initialize(lsp_client, tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: KataClient, request: pytest.FixtureRequest, tmp_path: Path):
    """A server of the test's own, set up by its `kata` mark: `options` (the `infrakata` section,
    replacing the defaults), `files` (written into the workspace first), `capabilities`."""
    mark = request.node.get_closest_marker("kata")
    setup = mark.kwargs if mark else {}
    for name, text in setup.get("files", {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    await initialize(lsp_client, tmp_path, setup.get("options", DEFAULT_OPTIONS), setup.get("capabilities"),
                     setup.get("client_name", "Visual Studio Code"))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def uri(request: pytest.FixtureRequest, shared: KataClient) -> str:
    """A fresh solution file URI in the shared workspace, named after the test."""
    name = f"{request.node.module.__name__.rpartition('.')[2]}_{request.node.name}"
    return (shared.root / f"{name.replace('[', '_').replace(']', '')}.py").as_uri()
