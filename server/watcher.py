"""Files changed outside the editor (another editor, `git checkout`, a script): graded too.

watchdog events arrive on their own thread and are handed to the event loop. An editor save
also produces an event: it is skipped when the file holds exactly what was last submitted for
grading. A file open in the editor with different unsaved text is left to the editor (its buffer
is what the learner sees). A `kata.toml` or `pyproject.toml` change reloads the settings.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from infrakata.core.errors import CannotGrade
from infrakata.core.grading.pipeline import read_solution
from infrakata.core.watch import watch_files

if TYPE_CHECKING:
    from infrakata.core.config import Settings

    from .server import KataServer

log = logging.getLogger(__name__)
SETTINGS_FILES = ("kata.toml", "pyproject.toml")
DEBOUNCE_S = 0.05


class Watching:
    """The workspace watched while `watchFiles` is on (and only then)."""

    def __init__(self, ls: KataServer) -> None:
        self.ls = ls
        self._stop: Callable[[], None] | None = None
        self._watched: Path | None = None

    def follow(self, before: Settings) -> None:
        wanted = self.ls.root if self.ls.settings.watch_files else None
        if wanted == self._watched:
            return
        self.stop()
        if wanted is not None:
            self._stop = start_watching(self.ls, wanted)
        self._watched = wanted

    def stop(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None
        self._watched = None


def register(server: KataServer) -> None:
    watching = Watching(server)
    server.on_settings.append(watching.follow)
    server.on_close.append(watching.stop)


def start_watching(ls: KataServer, root: Path) -> Callable[[], None]:
    """Called on the event loop; watching has begun when it returns."""
    loop = asyncio.get_running_loop()

    def changed(path: Path) -> None:  # on watchdog's thread
        loop.call_soon_threadsafe(on_change, ls, Path(path))

    return watch_files(root, ["*.py", *SETTINGS_FILES], changed, DEBOUNCE_S)


def on_change(ls: KataServer, path: Path) -> None:
    if path.name in SETTINGS_FILES:
        ls.configure(None)
        return
    try:
        source = read_solution(path)  # never blocks the loop: a FIFO is refused, not waited on
    except CannotGrade:
        return  # deleted, not text, not a regular file: nothing to grade
    uri = ls.uri_of(path)
    state = ls.documents.get(uri)
    if state is not None and source == state.submitted:
        return
    version = None
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        if document.source != source:
            return
        version = document.version
    try:
        ls.match(uri, source)
    except CannotGrade:
        return  # not every Python file in a workspace is a solution
    log.info("%s changed on disk: grading", path)
    ls.grade(uri, source, version)
