"""watchdog -> debounced file events: every change becomes one path on one callback."""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

IGNORED_PARTS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".kata", ".mypy_cache", ".pytest_cache"}


class Debouncer:
    """Calls `action(key)` once `delay_s` after the last `poke(key)` for that key."""

    def __init__(self, delay_s: float, action: Callable[[str], None]):
        self.delay_s, self.action = delay_s, action
        self._timers: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()

    def poke(self, key: str) -> None:
        with self._lock:
            old = self._timers.pop(key, None)
            if old is not None:
                old.cancel()
            timer = threading.Timer(self.delay_s, self._fire, args=(key,))
            timer.daemon = True
            self._timers[key] = timer
            timer.start()

    def _fire(self, key: str) -> None:
        with self._lock:
            self._timers.pop(key, None)
        self.action(key)

    def cancel(self) -> None:
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()


class _Handler(FileSystemEventHandler):
    def __init__(self, patterns: tuple[str, ...], debouncer: Debouncer):
        self.patterns, self.debouncer = patterns, debouncer

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in ("modified", "created", "moved", "closed"):
            return
        path = getattr(event, "dest_path", "") or event.src_path
        path = path.decode() if isinstance(path, bytes) else path
        parts = Path(path).parts
        if IGNORED_PARTS.intersection(parts) or not any(fnmatch.fnmatch(parts[-1], p) for p in self.patterns):
            return
        self.debouncer.poke(path)


def watch_files(root: Path, patterns: Iterable[str], callback: Callable[[Path], None],
                debounce_s: float = 0.15) -> Callable[[], None]:
    """Watch `root` recursively; returns a function that stops watching."""
    debouncer = Debouncer(debounce_s, lambda key: callback(Path(key)))
    observer = Observer()
    observer.schedule(_Handler(tuple(patterns), debouncer), str(root), recursive=True)
    observer.daemon = True
    observer.start()

    def stop() -> None:
        debouncer.cancel()
        observer.stop()
        observer.join(timeout=5)

    return stop
