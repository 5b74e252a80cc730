"""`kata grade --ray [ADDRESS]`: the same batch graded by Ray actors, each keeping a warm worker pool.

Imported only with --ray; Ray is the optional extra `infrakata[ray]`.

- This process (the driver) reads each submission and matches its problem, as the local mode does, and
  sends the actor the source and the problem (its slug, or the path of a problem outside the bundled
  catalogue): the actors need infrakata and the problem files, not the submissions' files.
- A CPU actor (`num_cpus=1`) holds a core.batch.grader.BatchGrader (a Runner over its own zygote) and grades one
  submission at a time; the driver keeps two in flight per actor so none waits for the next.
- With --bench on a cluster with GPUs, kernel problems go to `num_gpus=1` actors, one per GPU, which
  grade and then benchmark one submission at a time: one GPU benchmark at a time per GPU.
- An actor that dies (killed, out of memory, its node lost) has each of its submissions in flight
  retried on another actor, up to `max_retries` times, and then written as `crashed` with the reason;
  a dead actor is replaced while replacements last. Each id gets exactly one line, written by the
  driver when its result arrives: nothing is lost, nothing is written twice.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrakata.core.batch.grader import BatchGrader, GradeOptions, could_not_grade, crashed
from infrakata.core.batch.rows import ResultRow
from infrakata.core.batch.submissions import Submission
from infrakata.core.catalog.kinds import benchmarked
from infrakata.core.catalog.loading import Catalog
from infrakata.core.config import find_workspace, load_settings
from infrakata.core.errors import CannotGrade

try:
    import ray
    from ray.exceptions import RayActorError, RayError
except ImportError as error:  # pragma: no cover - the extra is not installed
    raise ImportError("`kata grade --ray` needs Ray: install infrakata with its `ray` extra (pip install "
                      "'.[ray]' in a checkout, or scripts/setup --dev)") \
        from error

IN_FLIGHT_PER_ACTOR = 2


@ray.remote(max_restarts=0, max_task_retries=0)
class GraderActor:
    """A warm grader on a Ray node: its own zygote, its Runner's reference cache."""

    def __init__(self, problem_paths: Sequence[str], bench: bool, isolation: str):
        from infrakata.core.sandbox.pool import WorkerPool

        os.environ.setdefault("OMP_NUM_THREADS", "1")
        self.grader = BatchGrader(Catalog.load(problem_paths), bench=bench, pool=WorkerPool.shared())
        self.grader.pool.isolation = isolation
        self.grader.pool.wait_ready()

    def pid(self) -> int:
        return os.getpid()

    def grade(self, submission: dict[str, Any]) -> ResultRow:
        return self.grader.grade(Submission.from_dict(submission))


@dataclass
class _Slot:
    handle: Any
    gpu: bool
    in_flight: int = 0
    dead: bool = False


@dataclass
class _Task:
    submission: Submission  # with its source and problem resolved
    gpu: bool
    attempts: int = 0
    deaths: list[str] = field(default_factory=list)


class RayGrading:
    """Actors over a Ray cluster (a local one when no address is given), and the loop that feeds them."""

    def __init__(self, options: GradeOptions, catalog: Catalog | None = None, workspace: Path | None = None,
                 err: Any = None):
        self.options, self.err = options, err
        self.workspace = workspace if workspace is not None else find_workspace(Path("."))
        settings, _ = load_settings(self.workspace)
        self.problem_paths = [str(Path(str(p)).resolve()) for p in (*settings.problem_paths, *options.problem_paths)]
        self.catalog = catalog or Catalog.load(self.problem_paths)
        # Reads and matches on the driver; never opens its pool.
        self.resolver = BatchGrader(self.catalog, settings, self.workspace, pool=_NoPool())
        self.slots: list[_Slot] = []
        self.deaths = 0
        self.retried = 0
        self._started_ray = False

    # -- the cluster ------------------------------------------------------------------------------

    def start(self) -> None:
        if not ray.is_initialized():
            address = self.options.ray_address or None
            kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
            if address is None:
                kwargs["include_dashboard"] = False
            ray.init(address=address, **kwargs)
            self._started_ray = True
        resources = ray.cluster_resources()
        cpus = self.options.jobs or max(1, int(resources.get("CPU", 1)))
        gpus = int(resources.get("GPU", 0)) if self.options.bench else 0
        self.slots = [self._new_slot(False) for _ in range(cpus)] + [self._new_slot(True) for _ in range(gpus)]
        self.pids = ray.get([slot.handle.pid.remote() for slot in self.slots])  # every actor warm
        if self.err is not None:
            self.err.print(f"ray: {cpus} grading actor{'s' * (cpus != 1)}"
                           + (f" and {gpus} GPU benchmark actor{'s' * (gpus != 1)}" if gpus else ""))

    def _new_slot(self, gpu: bool) -> _Slot:
        options = {"num_gpus": 1, "num_cpus": 1} if gpu else {"num_cpus": 1}
        actor = GraderActor.options(**options)  # type: ignore[attr-defined]  # ray.remote adds it
        return _Slot(actor.remote(self.problem_paths, self.options.bench, self.options.isolation), gpu)

    def close(self) -> None:
        for slot in self.slots:
            try:
                ray.kill(slot.handle)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.slots = []
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False

    # -- the loop ---------------------------------------------------------------------------------

    def _prepare(self, submission: Submission) -> _Task | ResultRow:
        """Read and match here: a task for an actor, or the could_not_grade line."""
        try:
            source, problem = self.resolver.resolve(submission)
        except CannotGrade as error:
            return could_not_grade(submission, str(error))
        in_catalog = self.catalog.problems.get(problem.slug)
        ref = problem.slug if in_catalog is not None and in_catalog.source_path == problem.source_path \
            else str(problem.source_path)
        gpu = self.options.bench and benchmarked(problem) and any(s.gpu for s in self.slots)
        return _Task(Submission(id=submission.id, file=submission.file, source=source, problem=ref), gpu)

    def run(self, submissions: Sequence[Submission], on_result: Callable[[ResultRow], None]) -> int:
        """Grade every submission; `on_result` gets exactly one line per submission. -> how many
        submissions were retried after their actor died."""
        feed = iter(submissions)
        retry: deque[_Task] = deque()
        running: dict[Any, tuple[_Task, _Slot]] = {}
        replacements_left = len(self.slots) * (self.options.max_retries + 1)
        retried_ids: set[str] = set()
        exhausted = False

        def next_task(gpu: bool) -> _Task | None:
            nonlocal exhausted
            for index, task in enumerate(retry):
                if task.gpu == gpu:
                    del retry[index]
                    return task
            while not exhausted:
                submission = next(feed, None)
                if submission is None:
                    exhausted = True
                    break
                prepared = self._prepare(submission)
                if isinstance(prepared, dict):
                    on_result(prepared)
                    continue
                if prepared.gpu == gpu:
                    return prepared
                retry.append(prepared)  # waits for an actor of its kind
            return None

        while True:
            for slot in self.slots:
                while not slot.dead and slot.in_flight < IN_FLIGHT_PER_ACTOR:
                    task = next_task(slot.gpu)
                    if task is None:
                        break
                    ref = slot.handle.grade.remote(task.submission.to_dict())
                    running[ref] = (task, slot)
                    slot.in_flight += 1
            if not running:
                # Everything is done, or what is left has no live actor of its kind to run on.
                left = list(retry)
                for submission in feed:
                    prepared = self._prepare(submission)
                    if isinstance(prepared, dict):
                        on_result(prepared)
                    else:
                        left.append(prepared)
                for task in left:
                    on_result(crashed(task.submission, "no grading actor left to run it"
                                      + (f" (its actor died: {'; '.join(task.deaths)})" if task.deaths else ""),
                                      task.submission.problem))
                break
            ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
            for ref in ready:
                task, slot = running.pop(ref)
                slot.in_flight -= 1
                try:
                    result = ray.get(ref)
                except RayActorError as error:
                    reason = _death_reason(error)
                    if not slot.dead:
                        slot.dead = True
                        self.deaths += 1
                        if replacements_left > 0:
                            replacements_left -= 1
                            self.slots.append(self._new_slot(slot.gpu))
                    task.attempts += 1
                    task.deaths.append(reason)
                    if task.attempts > self.options.max_retries:
                        on_result(crashed(task.submission, f"its grading actor died {task.attempts} time"
                                          f"{'s' if task.attempts > 1 else ''}: {'; '.join(task.deaths)}",
                                          task.submission.problem))
                    else:
                        retried_ids.add(task.submission.id)
                        retry.appendleft(task)
                    continue
                except RayError as error:  # the grading call itself failed (it catches everything it can)
                    result = could_not_grade(task.submission, f"internal error on Ray: {error}",
                                             task.submission.problem)
                on_result(result)
            self.slots = [s for s in self.slots if not (s.dead and s.in_flight == 0)]
        self.retried = len(retried_ids)
        return self.retried


class _NoPool:
    """The driver's grader only reads and matches; a pool it opened would be a zygote for nothing."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("the Ray driver does not grade")


def _death_reason(error: Exception) -> str:
    text = str(error).strip().splitlines()
    first = next((line for line in text if line.strip()), type(error).__name__)
    return f"{type(error).__name__}: {first[:300]}"


def run_ray(submissions: Sequence[Submission], options: GradeOptions, on_result: Callable[[ResultRow], None],
            err: Any = None, catalog: Catalog | None = None, on_ready: Callable[[], None] | None = None) -> int:
    """`kata grade --ray`: -> how many submissions were retried."""
    grading = RayGrading(options, catalog, err=err)
    started = time.perf_counter()
    try:
        grading.start()
        if err is not None:
            err.print(f"ray: actors ready in {time.perf_counter() - started:.1f} s")
        if on_ready is not None:
            on_ready()
        return grading.run(submissions, on_result)
    finally:
        grading.close()
