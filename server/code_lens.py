"""`textDocument/codeLens`: run (titled with the last result) and, for problems with a benchmark,
the CUDA throughput benchmark (titled with the last figure), over the entry point."""

from __future__ import annotations

from typing import TYPE_CHECKING

from infrakata.core.catalog.kinds import benchmarked
from lsprotocol import types

from . import convert

if TYPE_CHECKING:
    from .server import KataServer


def register(server: KataServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: KataServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        uri = params.text_document.uri
        problem = ls.problem_of(uri)
        if problem is None:
            return None
        state = ls.state(uri)
        where = convert.entry_range(ls.document(uri).source, problem, ls.workspace.position_codec)

        def lens(title: str, command: str) -> types.CodeLens:
            return types.CodeLens(where, types.Command(title=title, command=command, arguments=[uri]))

        lenses = [lens(convert.run_lens_title(state.report), "kata.run")]
        if benchmarked(problem):
            lenses.append(lens(convert.benchmark_lens_title(state.benchmark), "kata.benchmark"))
        lenses.append(lens("kata: statement", "kata.showProblem"))
        return lenses
