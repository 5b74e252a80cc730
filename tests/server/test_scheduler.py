"""server/scheduler.py on its own: one grading run per document, a newer one replacing the one in flight.

Real asyncio, real threads and the real CancelToken. The "worker" a job blocks on is a
threading.Event that the token's kill sets, as it would SIGKILL a sandboxed worker; reaping it
takes a moment, so a run that started too early would be seen overlapping the one it replaced.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
from infrakata.server import scheduler as scheduler_module
from infrakata.server.scheduler import Run, RunCancelled, Scheduler

DOC = "file:///workspace/scale.py"
OTHER = "file:///workspace/softmax.py"
WAIT_S = 5.0  # bounds every wait below: reached only when the behaviour under test is broken
REAP_S = 0.2  # how long a killed "worker" takes to be reaped


class Worker:
    """What CancelToken kills: kill() is all it needs."""

    def __init__(self) -> None:
        self.killed = threading.Event()

    def kill(self) -> None:
        self.killed.set()


class Job:
    """A grading job: its thread blocks on a worker until the run's token kills it (or, with
    `block=False`, returns at once; with `fail`, raises). Every step goes to the shared `events`."""

    def __init__(self, name: str, events: list[tuple[str, str]], block: bool = True,
                 fail: Exception | None = None, ignore_token: bool = False) -> None:
        self.name, self.events, self.block, self.fail, self.ignore_token = name, events, block, fail, ignore_token
        self.run: Run | None = None
        self.started = threading.Event()  # the thread is blocked on its worker
        self.release = threading.Event()  # lets a job that ignores its token return

    async def __call__(self, run: Run) -> str:
        self.run = run
        self.events.append(("job", self.name))
        return await run.call(self.work)

    def work(self) -> str:
        assert self.run is not None
        self.events.append(("thread", self.name))
        if self.fail is not None:
            raise self.fail
        if self.block:
            worker = Worker()
            if not self.ignore_token:
                self.run.token._attach(worker)
            try:
                self.started.set()
                if self.ignore_token:
                    self.release.wait(WAIT_S)
                elif worker.killed.wait(WAIT_S):
                    self.events.append(("killed", self.name))
                    time.sleep(REAP_S)
            finally:
                self.run.token._detach(worker)
        self.events.append(("returned", self.name))
        return f"{self.name} done"

    async def wait_started(self) -> None:
        assert await asyncio.to_thread(self.started.wait, WAIT_S), f"{self.name} never reached its worker"


def _run_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("kata-run")}


@pytest.fixture
async def scheduler():
    """A scheduler closed at the end, which must leave none of its threads running."""
    before = _run_threads()
    scheduler = Scheduler()
    yield scheduler
    scheduler.close()
    for thread in _run_threads() - before:
        thread.join(WAIT_S)
        assert not thread.is_alive(), f"{thread.name} still running after close()"


async def finished(task: asyncio.Task) -> asyncio.Task:
    await asyncio.wait_for(asyncio.wait({task}), WAIT_S)
    return task


async def test_a_newer_run_kills_the_older_and_starts_only_after_its_thread_returned(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    old, new = Job("old", events), Job("new", events, block=False)
    old_task = scheduler.submit(DOC, old)
    await old.wait_started()
    new_task = scheduler.submit(DOC, new)

    assert await asyncio.wait_for(new_task, WAIT_S) == "new done"
    assert old.run.token.cancelled and not new.run.token.cancelled
    assert (await finished(old_task)).cancelled()
    assert events == [("job", "old"), ("thread", "old"), ("killed", "old"), ("returned", "old"),
                      ("job", "new"), ("thread", "new"), ("returned", "new")]


async def test_each_replacement_waits_for_every_run_it_replaced(scheduler: Scheduler):
    # Three saves in a row: the second never starts; the third waits for the first's thread.
    events: list[tuple[str, str]] = []
    first, second, third = Job("first", events), Job("second", events), Job("third", events, block=False)
    first_task = scheduler.submit(DOC, first)
    await first.wait_started()
    second_task = scheduler.submit(DOC, second)
    third_task = scheduler.submit(DOC, third)

    assert await asyncio.wait_for(third_task, WAIT_S) == "third done"
    assert (await finished(first_task)).cancelled() and (await finished(second_task)).cancelled()
    assert second.run is None  # never started
    assert events == [("job", "first"), ("thread", "first"), ("killed", "first"), ("returned", "first"),
                      ("job", "third"), ("thread", "third"), ("returned", "third")]


@pytest.mark.parametrize("keys", [(DOC, OTHER), (DOC, f"{DOC}#benchmark")])
async def test_runs_for_different_keys_proceed_concurrently(scheduler: Scheduler, keys: tuple[str, str]):
    both_in_flight = threading.Barrier(2, timeout=WAIT_S)  # broken unless both threads run at once

    runs: list[Run] = []

    async def job(run: Run) -> int:
        runs.append(run)
        return await run.call(both_in_flight.wait)

    tasks = [scheduler.submit(key, job) for key in keys]
    assert sorted(await asyncio.wait_for(asyncio.gather(*tasks), WAIT_S)) == [0, 1]
    assert not any(run.token.cancelled for run in runs)


async def test_a_debounced_run_replaced_before_its_delay_never_starts(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    typed, saved = Job("typed", events, block=False), Job("saved", events, block=False)
    typed_task = scheduler.submit(DOC, typed, delay_s=WAIT_S * 2)
    await asyncio.sleep(0)  # the delayed run is waiting on its delay
    saved_task = scheduler.submit(DOC, saved)

    # The replacement does not wait out the replaced run's delay.
    assert await asyncio.wait_for(saved_task, WAIT_S) == "saved done"
    assert (await finished(typed_task)).cancelled()
    assert typed.run is None
    assert events == [("job", "saved"), ("thread", "saved"), ("returned", "saved")]


async def test_a_debounced_run_starts_after_its_delay(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    loop = asyncio.get_running_loop()
    submitted = loop.time()
    started: list[float] = []

    async def job(run: Run) -> str:
        started.append(loop.time())
        return await Job("typed", events, block=False)(run)

    assert await asyncio.wait_for(scheduler.submit(DOC, job, delay_s=0.2), WAIT_S) == "typed done"
    assert started[0] - submitted >= 0.2


async def test_cancel_kills_the_run_in_flight(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    job = Job("running", events)
    task = scheduler.submit(DOC, job)
    await job.wait_started()

    assert scheduler.cancel(OTHER) is False  # nothing in flight there
    assert scheduler.cancel(DOC) is True
    assert job.run.token.cancelled
    assert (await finished(task)).cancelled()
    await asyncio.wait_for(job.run.finished(), WAIT_S)
    assert events[-2:] == [("killed", "running"), ("returned", "running")]
    assert scheduler.cancel(DOC) is False  # already gone


async def test_cancel_of_a_run_that_has_not_reached_its_worker_kills_the_worker_when_it_does(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    on_thread, gate = threading.Event(), threading.Event()
    job = Job("late", events)

    def fork_then_work() -> str:  # the worker is still being forked when the cancel comes
        on_thread.set()
        gate.wait(WAIT_S)
        return job.work()

    async def slow_to_start(run: Run) -> str:
        job.run = run
        return await run.call(fork_then_work)

    task = scheduler.submit(DOC, slow_to_start)
    assert await asyncio.to_thread(on_thread.wait, WAIT_S)
    assert scheduler.cancel(DOC)
    gate.set()  # the worker is attached after the kill: the token kills it at once
    assert (await finished(task)).cancelled()
    await asyncio.wait_for(job.run.finished(), WAIT_S)
    assert ("killed", "late") in events


async def test_an_exception_in_a_job_reaches_whoever_awaits_it_and_the_document_carries_on(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    task = scheduler.submit(DOC, Job("broken", events, fail=ValueError("the reference failed on case 'zero'")))
    with pytest.raises(ValueError, match="the reference failed on case 'zero'"):
        await asyncio.wait_for(scheduler.result(DOC, task), WAIT_S)
    with pytest.raises(ValueError):
        await task
    # A failure in the job itself (not its thread) surfaces too.

    async def raises(run: Run) -> None:
        raise LookupError("no problem matches this file")

    with pytest.raises(LookupError, match="no problem matches"):
        await asyncio.wait_for(scheduler.result(DOC, scheduler.submit(DOC, raises)), WAIT_S)
    assert await asyncio.wait_for(scheduler.result(DOC, scheduler.submit(DOC, Job("next", events, block=False))),
                                  WAIT_S) == "next done"


async def test_a_caller_waiting_on_a_run_cancelled_elsewhere_hears_so_once_its_worker_is_gone(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    job = Job("waited on", events)
    task = scheduler.submit(DOC, job)
    caller = asyncio.ensure_future(scheduler.result(DOC, task))
    await job.wait_started()
    scheduler.cancel(DOC)  # kata.cancel, the progress' cancel button, or a newer save

    with pytest.raises(RunCancelled):
        await asyncio.wait_for(caller, WAIT_S)
    assert events[-1] == ("returned", "waited on")


async def test_cancelling_the_caller_kills_its_run_but_not_a_newer_one(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    job = Job("command", events)
    task = scheduler.submit(DOC, job)
    caller = asyncio.ensure_future(scheduler.result(DOC, task))
    await job.wait_started()
    caller.cancel()  # $/cancelRequest on a kata.run in progress
    await finished(caller)
    assert job.run.token.cancelled
    assert (await finished(task)).cancelled()

    # A caller of the old run going away (what result() does when cancelled) spares the newer run.
    newer = Job("newer", events)
    newer_task = scheduler.submit(DOC, newer)
    await newer.wait_started()
    assert scheduler.cancel(DOC, task) is False
    assert not newer.run.token.cancelled and not newer_task.done()


async def test_a_replaced_run_that_never_stops_does_not_block_the_document_forever(
        scheduler: Scheduler, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    monkeypatch.setattr(scheduler_module, "REPLACED_RUN_GRACE_S", 0.2)
    events: list[tuple[str, str]] = []
    stuck, new = Job("stuck", events, ignore_token=True), Job("new", events, block=False)
    scheduler.submit(DOC, stuck)
    await stuck.wait_started()
    with caplog.at_level(logging.WARNING, logger=scheduler_module.__name__):
        assert await asyncio.wait_for(scheduler.submit(DOC, new), WAIT_S) == "new done"
    assert ("returned", "stuck") not in events  # the new run went ahead of it
    assert "did not stop within 0.2 s" in caplog.text
    stuck.release.set()


async def test_close_kills_every_run_and_leaves_no_thread_running():
    before = _run_threads()
    scheduler = Scheduler()
    events: list[tuple[str, str]] = []
    jobs = {key: Job(key, events) for key in (DOC, OTHER, f"{DOC}#benchmark")}
    tasks = [scheduler.submit(key, job) for key, job in jobs.items()]
    for job in jobs.values():
        await job.wait_started()

    scheduler.close()
    assert all(job.run.token.cancelled for job in jobs.values())
    for task in tasks:
        assert (await finished(task)).cancelled()
    for job in jobs.values():
        await asyncio.wait_for(job.run.finished(), WAIT_S)
    threads = _run_threads() - before
    for thread in threads:
        thread.join(WAIT_S)
    assert not [t.name for t in threads if t.is_alive()]
    assert sorted(name for step, name in events if step == "killed") == sorted(jobs)


async def test_a_run_submitted_after_cancel_still_waits_for_the_cancelled_runs_thread(scheduler: Scheduler):
    events: list[tuple[str, str]] = []
    old, new = Job("cancelled", events), Job("next", events, block=False)
    scheduler.submit(DOC, old)
    await old.wait_started()
    scheduler.cancel(DOC)  # kata.cancel, a closed document, the progress' cancel button
    assert await asyncio.wait_for(scheduler.submit(DOC, new), WAIT_S) == "next done"
    await asyncio.wait_for(old.run.finished(), WAIT_S)
    assert events.index(("returned", "cancelled")) < events.index(("job", "next"))
