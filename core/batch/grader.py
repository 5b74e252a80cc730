"""Batch grading (`kata grade`, `kata leaderboard`): many submissions in one process, warm workers in
parallel, one JSON line per submission.

    submissions = collect(paths, manifest)            # files, folders, a JSONL manifest
    grader = BatchGrader(catalog, settings, workspace)     # resolves and grades; thread-safe; one warm pool
    with ResultsFile(out, resume=True) as results:    # flushed per result; `done` holds the ids to skip
        run_local(pending, grader, jobs, results.write)

A result line is the `kata run --json` object (core/grading/report.py) with the submission's "id" first, and
"bench" (core/bench/benchmark.py's object) for an accepted kernel solution graded with --bench. Input that
cannot be graded (an unreadable file, no matching or unknown problem, a malformed manifest line, a
broken problem) is a line of its own with the verdict `could_not_grade` and the reason in "reason";
the batch goes on. The Ray executor (core/batch/on_ray.py) grades the same submissions with the same
BatchGrader inside its actors and writes the same lines.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

from infrakata.core.batch.rows import ResultRow
from infrakata.core.batch.submissions import Submission
from infrakata.core.catalog.kinds import benchmarked
from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings
from infrakata.core.errors import CannotGrade, GradingError
from infrakata.core.grading.pipeline import Grading
from infrakata.core.grading.report import could_not_grade_to_dict


def hide_row(result: ResultRow) -> ResultRow:
    """A result line with no expected value in it (`kata grade --hidden`): each case as results.hide_expected
    leaves it, and a rejected benchmark's reason cut to its shape."""
    from infrakata.core.grading.results import CaseResult, hide_expected

    cases = [asdict(hide_expected(CaseResult(**case))) for case in result.get("cases") or []]
    hidden: ResultRow = {**result, "cases": cases}
    bench = result.get("bench")
    if isinstance(bench, dict) and not bench.get("correct"):
        hidden["bench"] = {**bench, "gate_message": "rejected: an output did not match (details hidden)",
                           "shapes": [{**shape, "check": "passed" if shape.get("check") == "passed" else "failed"}
                                      for shape in bench.get("shapes") or []]}
    return hidden


def could_not_grade(submission: Submission, reason: str, problem: str | None = None) -> ResultRow:
    """The line of a submission that could not be graded: `kata run --json`'s could_not_grade object
    with the submission's "id" first. `problem`: the slug, when the problem was found (a name that
    matches none is in the reason, not counted as a problem of its own)."""
    return cast(ResultRow, {"id": submission.id, **could_not_grade_to_dict(submission.file, problem, reason)})


def crashed(submission: Submission, reason: str, problem: str | None = None) -> ResultRow:
    """The line of a submission whose grading process itself kept dying (Ray: the actor)."""
    return {**could_not_grade(submission, reason, problem), "verdict": "crashed"}


class BatchGrader:
    """Resolves a submission's source and problem and grades it; safe to call from many threads, which
    share one warm worker pool and each keep a Runner (its cache of reference outputs)."""

    def __init__(self, catalog: Catalog, settings: Settings | None = None, workspace: Path | None = None,
                 pool: Any = None, bench: bool = False, gpu_slots: int = 1):
        from infrakata.core.sandbox.pool import WorkerPool

        self.catalog, self.settings, self.workspace = catalog, settings or Settings(), workspace
        self.pool = pool or WorkerPool.shared()
        self.bench = bench
        self._local = threading.local()
        self._problems: dict[str, Problem] = {}
        self._lock = threading.Lock()  # problem loading: trusted modules share sys.modules
        # One GPU benchmark at a time per GPU, so that timings do not disturb each other.
        self._gpu = threading.BoundedSemaphore(max(1, gpu_slots))

    def _grading(self) -> Grading:
        """This thread's: core's grading path, with a Runner (its cache of reference outputs) of its own."""
        grading: Grading | None = getattr(self._local, "grading", None)
        if grading is None:
            from infrakata.core.grading.runner import Runner

            grading = self._local.grading = Grading(self.catalog, self.settings, self.workspace, Runner(self.pool))
        return grading

    def problem(self, name: str) -> Problem:
        """A manifest's problem: a slug, or a path into the catalogue (a submission never brings its own)."""
        with self._lock:
            if name not in self._problems:
                try:
                    self._problems[name] = self.catalog.resolve(name, Path("."))
                except LookupError as error:
                    raise CannotGrade(str(error)) from None
            return self._problems[name]

    def resolve(self, submission: Submission) -> tuple[str, Problem]:
        """-> (the source, the problem); CannotGrade with the reason otherwise."""
        submission = submission.read()
        if submission.error is not None:
            raise CannotGrade(submission.error)
        source = submission.source or ""
        if submission.problem:
            return source, self.problem(submission.problem)
        with self._lock:
            return source, self._grading().problem_for(Path(submission.file or f"{submission.id}.py"), source)

    def warm(self, submission: Submission) -> None:
        """Start the zygote that `submission` will need while this process readies its own side of the batch:
        a batch that needs no torch never starts the one with torch (seconds of CPU its gradings would share)."""
        from infrakata.core.grading.calls import solution_spec

        try:
            source, problem = self.resolve(submission)
            spec = solution_spec(problem, source, submission.file or "", calls=1,
                                 cuda=problem.grading.device == "cuda")
        except Exception:  # noqa: BLE001 - its grading will say what is wrong with it
            return
        self.pool.start_for(spec)

    def grade(self, submission: Submission) -> ResultRow:
        """One result line; never raises for anything a submission or a problem can do."""
        problem: Problem | None = None
        try:
            source, problem = self.resolve(submission)
            return self.grade_source(submission, source, problem)
        except CannotGrade as error:
            return could_not_grade(submission, str(error), problem.slug if problem else None)
        except Exception as error:  # noqa: BLE001 - the batch goes on; the line says what went wrong
            return could_not_grade(submission, f"internal error: {type(error).__name__}: {error}",
                                   problem.slug if problem else None)

    def grade_source(self, submission: Submission, source: str, problem: Problem) -> ResultRow:
        from infrakata.core.grading.report import report_to_dict

        path = submission.file or f"<{submission.id}>"
        report = self._grading().run(problem, source, Path(path))  # CannotGrade where the sandbox refuses, too
        result = cast(ResultRow, {"id": submission.id, **report_to_dict(report)})
        if self.bench and benchmarked(problem) and report.accepted:
            result["bench"] = self.benchmark(problem, source, path)
        return result

    def benchmark(self, problem: Problem, source: str, path: str) -> dict[str, Any]:
        from infrakata.core import bench
        from infrakata.core.bench.benchmark import bench_to_dict

        with self._gpu:
            try:
                return bench_to_dict(bench.measure(problem, source, path, self.pool))
            except GradingError as error:
                return {"problem": problem.slug, "file": path, "correct": False, "error": str(error)}


def default_jobs() -> int:
    """Three per core: a grading keeps one core busy at a time, its grader's thread or its worker, each waiting
    for the other in turn, and a slow submission none until its limit. One per core left a fifth to a third of
    the machine idle (benchmarks/batch_throughput.py, 1,000 mixed on 2 cores: 48 gradings/s with 2 at once,
    66 with 4, 80 with 6 and 8, 72 with 12)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return 3 * max(1, cores)


def run_local(submissions: Iterable[Submission], grader: BatchGrader, jobs: int,
              on_result: Callable[[ResultRow], None], stop: threading.Event | None = None) -> None:
    """Grade on `jobs` threads that share the grader's warm pool; `on_result` is called (from those
    threads) as each finishes. `stop` set: no new submission is started."""
    feed = iter(submissions)
    feed_lock = threading.Lock()
    stop = stop or threading.Event()
    failures: list[BaseException] = []

    def work() -> None:
        while not stop.is_set():
            with feed_lock:
                submission = next(feed, None)
            if submission is None:
                return
            try:
                on_result(grader.grade(submission))
            except BaseException as error:  # noqa: BLE001 - e.g. the results file's disk is full
                failures.append(error)
                stop.set()
                return

    threads = [threading.Thread(target=work, name=f"kata-grade-{i}", daemon=True) for i in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        raise
    if failures:
        raise failures[0]


@dataclass
class GradeOptions:
    """`kata grade`'s options."""

    paths: Sequence[str] = ()
    manifest: str | None = None
    out: str | None = None
    junit: str | None = None
    jobs: int | None = None
    resume: bool = False
    bench: bool = False
    ray: bool = False
    ray_address: str | None = None
    problem_paths: Sequence[str] = ()  # extra problems (`kata --problems`), which Ray actors load too
    max_retries: int = 2  # Ray: times a submission is retried after its actor died
    hidden: bool = False  # no expected value (or anything computed from one) in any output: leaderboards
    isolation: str = "best"  # the sandbox's: "strict" refuses to grade without every layer
