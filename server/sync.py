"""Document sync: `textDocument/didOpen`, `didChange`, `didSave`, `didClose` -> grading runs.

didOpen grades once, didSave grades the saved text; didChange grades only with `gradeOn =
"type"`, after `debounceMs` of quiet (each keystroke replaces the pending run, and kills one in
flight). With `gradeOn = "save"` an edit leaves the run in flight alone: its result is the only
one coming until the next save.

A grading that runs for more than a moment shows work-done progress (work_done.py, on the server's `on_grading`):
these, and any other no command reports (a file changed on disk, a regrade on new settings); a command's grading
reports its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .work_done import follow_grading

if TYPE_CHECKING:
    from .server import KataServer


def _python(ls: KataServer, uri: str) -> bool:
    """Only Python documents are solutions (a client may send us others)."""
    document = ls.document(uri)
    return document.language_id == "python" or uri.endswith(".py")


def register(server: KataServer) -> None:
    server.on_grading.append(lambda uri, problem, task, reported: follow_grading(server, uri, problem, task, reported))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KataServer, params: types.DidOpenTextDocumentParams) -> None:
        if _python(ls, params.text_document.uri):
            # A reopened document may count its versions from 1 again.
            ls.state(params.text_document.uri).published_version = None
            ls.grade(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KataServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.settings.grade_on == "type" and _python(ls, params.text_document.uri):
            ls.grade(params.text_document.uri, delay_s=ls.settings.debounce_ms / 1000)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: KataServer, params: types.DidSaveTextDocumentParams) -> None:
        if _python(ls, params.text_document.uri):
            ls.grade(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KataServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.scheduler.cancel(params.text_document.uri)
