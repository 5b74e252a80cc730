"""Diagnostics to the editor: pulled where the client can pull, pushed where it cannot; never both.

The server hands each document's diagnostics on (`KataServer.on_diagnostics`, after the rule that they never go
back to an older version); this module keeps the latest per document, with a result id that changes with them.
A client whose capabilities have `textDocument.diagnostic` and `workspace.diagnostics.refreshSupport` (VS Code's
languageclient) is offered pull (`diagnosticProvider`) and pulls: `textDocument/diagnostic` for an open document,
`workspace/diagnostic` for the rest (a file graded from disk, a closed one), answered `unchanged` where the result
id it sends is still the latest. A grading ends after the pull a save makes, so the server then sends
`workspace/diagnostic/refresh` and the client pulls again. A workspace pull that would find nothing new stays open
until something changes, as the protocol intends: VS Code asks again as soon as one is answered. Any other client
(Neovim 0.7, which has no pull; Neovim 0.10, which pulls but cannot be told to pull again) is offered no pull and
gets `textDocument/publishDiagnostics`, as before; a pull it makes anyway is answered with the same diagnostics.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .server import KataServer

log = logging.getLogger(__name__)
IDENTIFIER = "kata"  # the diagnostics' source, and the pull provider's identifier

# A pull answer, by kind.
DocumentReport = types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport
WorkspaceItem = types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport


@dataclass(frozen=True)
class Report:
    """A document's latest diagnostics."""

    result_id: str
    version: int | None
    diagnostics: list[types.Diagnostic]


class Diagnostics:
    """Each document's latest diagnostics, pushed or kept for the client's pulls."""

    def __init__(self, ls: KataServer) -> None:
        self.ls = ls
        self.pull = False  # decided at initialize, from the client's capabilities
        self.reports: dict[str, Report] = {}
        # Result ids unique to this server: a restarted server never answers `unchanged` to its predecessor's id.
        self._session = uuid.uuid4().hex[:8]
        self._ids = itertools.count(1)
        self._refresh_pending = False
        self._changed = asyncio.Event()  # set (and replaced) at each change: what an open workspace pull waits for

    def initialize(self, capabilities: types.ServerCapabilities) -> None:
        """Pull is offered only to a client that pulls; a pull from any other is answered all the same."""
        self.pull = self.ls.pulls_diagnostics()
        if not self.pull:
            capabilities.diagnostic_provider = None

    def changed(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
        self.reports[uri] = Report(f"{self._session}-{next(self._ids)}", version, list(diagnostics))
        self._changed.set()
        self._changed = asyncio.Event()
        if not self.pull:
            self.ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics, version))
        elif not self._refresh_pending:  # the documents graded at once are pulled again once
            self._refresh_pending = True
            asyncio.get_running_loop().call_soon(self._refresh)

    def _refresh(self) -> None:
        self._refresh_pending = False
        self._changed = asyncio.Event()  # set (and replaced) at each change: what an open workspace pull waits for
        self.ls.workspace_diagnostic_refresh(None).add_done_callback(_refreshed)

    def document(self, params: types.DocumentDiagnosticParams) -> DocumentReport:
        """`textDocument/diagnostic`: the document's latest diagnostics (none yet: an empty report, until the
        refresh that follows its grading)."""
        report = self.reports.get(params.text_document.uri)
        if report is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if params.previous_result_id == report.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=report.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=report.diagnostics, result_id=report.result_id)

    async def workspace(self, params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
        """`workspace/diagnostic`: every document's latest diagnostics (VS Code keeps a document's own pull over
        these while it is open), `unchanged` for those whose result id the client sent; answered once one is new
        (until then the request waits, and the client may cancel it)."""
        previous = {item.uri: item.value for item in params.previous_result_ids}
        while all(previous.get(uri) == report.result_id for uri, report in self.reports.items()):
            await self._changed.wait()
        items: list[WorkspaceItem] = []
        for uri, report in self.reports.items():
            if previous.get(uri) == report.result_id:
                items.append(types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=report.version, result_id=report.result_id))
            else:
                items.append(types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=report.version, items=report.diagnostics, result_id=report.result_id))
        return types.WorkspaceDiagnosticReport(items=items)


def _refreshed(future: Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:  # its next pull gets the latest all the same
        log.warning("workspace/diagnostic/refresh failed: %s", future.exception())


def register(server: KataServer) -> None:
    diagnostics = Diagnostics(server)

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier=IDENTIFIER, inter_file_dependencies=False, workspace_diagnostics=True))
    def document_diagnostic(params: types.DocumentDiagnosticParams) -> DocumentReport:
        return diagnostics.document(params)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
        return await diagnostics.workspace(params)

    server.on_initialize.append(diagnostics.initialize)
    server.on_diagnostics.append(diagnostics.changed)
