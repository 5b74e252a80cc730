"""`textDocument/hover`: on a line the inline values annotate, the whole values of that case (a table
for small tensors; server/inlay_hints.py); on the entry point's `def` line, also the statement, limits,
tolerances, the last result per case, and the solution (editorial and reference) once the kata is
accepted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from infrakata.core.progress import learning
from lsprotocol import types

from . import convert

if TYPE_CHECKING:
    from .server import KataServer


def register(server: KataServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KataServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        problem = ls.problem_of(uri)
        if problem is None:
            return None
        source = ls.document(uri).source
        where = convert.entry_range(source, problem, ls.workspace.position_codec)
        document = ls.client_capabilities.text_document
        formats = document.hover if document is not None else None
        markdown = formats is None or not formats.content_format or \
            types.MarkupKind.Markdown in formats.content_format
        shown = ls.shown_case(uri)
        values = None if shown is None else convert.values_markdown(shown[0], params.position.line + 1, markdown)
        parts = [values] if values else []
        if params.position.line == where.start.line:
            state = ls.state(uri)
            found = learning.solution(problem, ls.workspace_of(uri))
            solution = found.markdown() if found.unlocked else f"*{found.locked_message()}*"
            parts += [convert.hover_markdown(problem, state.report, state.graded_version), solution]
        elif values:
            where = convert.Text(source, ls.workspace.position_codec).line_range(params.position.line + 1)
        if not parts:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
                                         value="\n\n---\n\n".join(parts)),
            range=where,
        )
