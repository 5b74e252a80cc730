"""`textDocument/hover` on the entry point's `def` line: the statement, limits, tolerances, the
last result per case, and the solution (editorial and reference) once the kata is accepted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from infrakata.core import learning
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
        where = convert.entry_range(ls.document(uri).source, problem, ls.workspace.position_codec)
        if params.position.line != where.start.line:
            return None
        state = ls.state(uri)
        from .learning import workspace_of

        found = learning.solution(problem, workspace_of(ls, uri))
        solution = found.markdown() if found.unlocked else f"*{found.locked_message()}*"
        document = ls.client_capabilities.text_document
        formats = document.hover if document is not None else None
        markdown = formats is None or not formats.content_format or \
            types.MarkupKind.Markdown in formats.content_format
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
                value=f"{convert.hover_markdown(problem, state.report, state.graded_version)}\n\n---\n\n{solution}"),
            range=where,
        )
