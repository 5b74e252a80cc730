"""Work-done progress for a long request (a command's grading, a benchmark): `window/workDoneProgress/create`,
then begin, report and end, where the client supports it; a client that refuses the token gets none, and the
work goes on."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from .server import KataServer


class Progress:
    """Work-done progress for one command: begin, report, end (always, in `finally`).

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
