"""`textDocument/inlayHint`: the values of the last grading's first failing case beside the code (the
case at the entry point's `def`, its arguments at their parameters, the entry point's locals at their
last assignment, the wrong output beside the expected one at the line that returned it), shown while
the document holds the text that was graded: an edit clears them until the next grading.

The server sends `workspace/inlayHint/refresh` after each grading (KataServer.grade) and when the
`inlineValues` setting changes; with it off there are none. The hover shows the whole values
(server/hover.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from . import convert

if TYPE_CHECKING:
    from .server import KataServer


def register(server: KataServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    def inlay_hints(ls: KataServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        uri = params.text_document.uri
        shown = ls.shown_case(uri)
        if shown is None:
            return []
        case, entry_line = shown
        return convert.inlay_hints(case, entry_line, ls.document(uri).source, ls.workspace.position_codec,
                                   params.range)
