"""Work-done progress for long work (a command's grading, a benchmark, a grading on save that takes more than a
moment): `window/workDoneProgress/create`, then begin, report and end, where the client supports it; a client
that refuses the token gets none, and the work goes on."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from . import convert

if TYPE_CHECKING:
    from infrakata.core.catalog.problem import Problem

    from .server import KataServer

# A grading that ends within this shows no progress (most do: the result is the news); a longer one does.
GRADING_PROGRESS_AFTER_S = 0.5


class Progress:
    """Work-done progress for one command, or one grading: begin, report, end (always, in `finally`).

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


def follow_grading(ls: KataServer, uri: str, problem: Problem, task: asyncio.Task[Any], reported: bool) -> None:
    """`KataServer.on_grading`: a grading nobody reports (a save, an open, a file changed on disk, new settings)
    shows progress once it has run for GRADING_PROGRESS_AFTER_S, cancellable, until it ends."""
    if not reported and ls.supports("window.work_done_progress"):
        ls.background(_grading_progress(ls, uri, problem, task))


async def _grading_progress(ls: KataServer, uri: str, problem: Problem, task: asyncio.Task[Any]) -> None:
    done, _ = await asyncio.wait({task}, timeout=GRADING_PROGRESS_AFTER_S)
    if done:
        return
    name = Path(to_fs_path(uri) or uri).name
    async with Progress(ls, f"kata: {name}", lambda: ls.scheduler.cancel(uri, task)) as progress:
        progress.report(f"{problem.slug}: grading in a sandboxed worker")
        await asyncio.wait({task})
        if task.cancelled():
            progress.end_message = "cancelled"
        elif task.exception() is None and task.result() is not None:
            progress.end_message = convert.result_summary(task.result())
