"""One grading run per document: a newer run replaces the one in flight.

pygls only cancels requests that have not started, and cancelling an asyncio task does not stop
the thread it waits on. So replacing a run fires its CancelToken, which kills the worker process
the runner is blocked on, and the new run starts once the old thread has returned: at most one
worker per document, and none left behind (the runner reaps its worker before returning).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from infrakata.core.sandbox.pool import CancelToken

log = logging.getLogger(__name__)
T = TypeVar("T")
# How long a new run waits for the thread of the one it replaced. Killing and reaping a worker takes
# milliseconds, but a kill can land while the runner still waits for its fork; the runner's own
# waits are bounded, and this bounds them again, so that a document never stops being graded.
REPLACED_RUN_GRACE_S = 30.0


class Run:
    """What a job gets: its cancel token, and `call` to block on core in a thread."""

    def __init__(self, executor: ThreadPoolExecutor, after: Run | None = None) -> None:
        self.token = CancelToken()
        self.after = after  # the run this one replaced
        self._executor = executor
        self._idle = asyncio.Event()
        self._idle.set()

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """fn(*args, **kwargs) on a thread. If the run is cancelled meanwhile, the thread goes on
        until the token has killed its worker, and the next run for the document waits for it."""
        loop = asyncio.get_running_loop()
        self._idle.clear()
        future = self._executor.submit(functools.partial(fn, *args, **kwargs))
        future.add_done_callback(lambda _: self._set_idle(loop))
        return await asyncio.wrap_future(future)

    def _set_idle(self, loop: asyncio.AbstractEventLoop) -> None:  # on the worker thread
        try:
            loop.call_soon_threadsafe(self._idle.set)
        except RuntimeError:  # the server has stopped: nobody waits any more
            pass

    async def finished(self) -> None:
        """Wait until neither this run nor any run it replaced has a thread working."""
        try:
            await asyncio.wait_for(self._idle.wait(), REPLACED_RUN_GRACE_S)
        except asyncio.TimeoutError:
            log.warning("a cancelled run did not stop within %s s; starting the next one anyway", REPLACED_RUN_GRACE_S)
        if self.after is not None:
            await self.after.finished()
            self.after = None


class RunCancelled(Exception):
    """The run was replaced by a newer one, or cancelled; its worker is gone."""


class Scheduler:
    """Keyed runs (a document URI, or a URI plus `#benchmark`): at most one per key."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[asyncio.Task[Any], Run]] = {}
        self._run_of: weakref.WeakKeyDictionary[asyncio.Task[Any], Run] = weakref.WeakKeyDictionary()
        # The last run started per key, cancelled or not, for as long as its thread may still work:
        # the next run for the key waits for it even when a cancel already took it out of _runs.
        self._last: weakref.WeakValueDictionary[str, Run] = weakref.WeakValueDictionary()
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="kata-run")

    def submit(self, key: str, job: Callable[[Run], Awaitable[T]], delay_s: float = 0.0) -> asyncio.Task[Any]:
        """Cancel the run in flight for `key`, then `job(run)` after `delay_s` (a debounce)."""
        self.cancel(key)
        run = Run(self._executor, after=self._last.get(key))
        self._last[key] = run
        task = asyncio.get_running_loop().create_task(self._run(key, job, run, delay_s), name=f"kata {key}")
        self._runs[key] = (task, run)
        self._run_of[task] = run
        return task

    async def result(self, key: str, task: asyncio.Task[Any]) -> T:
        """The result of a submitted run, for a caller that waits on it (a command).

        A run cancelled by someone else raises RunCancelled once its worker is gone; cancelling the
        caller cancels the run.
        """
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            self.cancel(key, task)
            raise
        if task.cancelled():
            await self._run_of[task].finished()
            raise RunCancelled(f"{key}: the run was cancelled (a newer save, kata.cancel, or the progress' cancel)")
        result: T = task.result()
        return result

    def cancel(self, key: str, task: asyncio.Task[Any] | None = None) -> bool:
        """Kill the run in flight for `key` (only if it is `task`, when given); True if there was one."""
        current = self._runs.get(key)
        if current is None or task is not None and current[0] is not task:
            return False
        del self._runs[key]
        log.debug("cancelling the run for %s", key)
        current[1].token.cancel()
        current[0].cancel()
        return True

    def cancel_all(self) -> None:
        for key in list(self._runs):
            self.cancel(key)

    def close(self) -> None:
        self.cancel_all()
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _run(self, key: str, job: Callable[[Run], Awaitable[T]], run: Run, delay_s: float) -> T:
        try:
            if run.after is not None:
                await run.after.finished()
                run.after = None
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            return await job(run)
        finally:
            current = self._runs.get(key)
            if current is not None and current[1] is run:
                del self._runs[key]
