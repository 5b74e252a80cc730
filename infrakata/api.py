"""The Python API for harnesses: many sources graded against problems from the caller's own process, over one
warm worker pool, with the results of `kata run --json` (docs/API.md).

    with Grader() as grader:                                       # its own pool; nothing outlives the block
        results = grader.grade_many(sources, problem="adam-optimizer-memory-bytes")
        results[0].verdict, results[0].to_json()                   # kata run --json's object

Every grading takes the path every grader takes (core/grading/pipeline.py `Grading`, with a `Runner` over the
pool), so it costs what one of `kata grade`'s does. "Could not grade" is an exception (a `KataError`), "graded
and not accepted" a `Result`: never mixed.
"""

from __future__ import annotations

import os
import threading
import warnings
import weakref
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infrakata.core import bench as benchmark
from infrakata.core.batch.grader import default_jobs
from infrakata.core.bench.benchmark import BenchReport, bench_to_dict
from infrakata.core.catalog.kinds import benchmarked
from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings, find_workspace, load_settings
from infrakata.core.errors import CannotGrade, GradingError, KataError, ProblemError
from infrakata.core.grading.pipeline import Grading, read_solution
from infrakata.core.grading.report import report_to_dict
from infrakata.core.grading.results import CaseResult, RunReport
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox.pool import ISOLATION_MODES, WorkerPool

__all__ = ["BadArgument", "CannotGrade", "Grader", "KataError", "Result", "Source"]

STRING_NAME = "<string>"  # what a source given as a string is called in its messages, unless named


class BadArgument(CannotGrade, TypeError):
    """An argument of the wrong type (a source that is neither a string nor a path, say); the message names
    it and what to pass instead."""


@dataclass(frozen=True)
class Source:
    """One solution to grade: its code, the name its report and messages carry (the `file` of `kata run
    --json`), and the problem it is for when not the call's (a slug, or a problem folder or codestar JSON)."""

    code: str
    name: str = STRING_NAME
    problem: str | None = None


SourceLike = str | os.PathLike[str] | Source


@dataclass(frozen=True)
class Result:
    """One graded source: `report` is what `kata run --json` prints, typed (core/grading/results.py); `bench`
    the benchmark's figures when they were asked for and the solution was accepted (core/bench/benchmark.py;
    without CUDA its figures are None and its `notes` say why, as `kata bench` does)."""

    report: RunReport
    bench: BenchReport | None = None

    @property
    def problem(self) -> str:
        """The slug of the problem it was graded against."""
        return self.report.problem

    @property
    def name(self) -> str:
        """The source's name, or its path as given (`file` in the JSON)."""
        return self.report.file

    @property
    def verdict(self) -> str:
        """accepted, wrong_answer, runtime_error, time_limit_exceeded, memory_limit_exceeded, forbidden,
        syntax_error or crashed: that of the first failing case."""
        return self.report.verdict

    @property
    def accepted(self) -> bool:
        return self.report.accepted

    @property
    def passed(self) -> int:
        """How many cases passed (an RL reward: passed / total)."""
        return self.report.passed

    @property
    def total(self) -> int:
        return self.report.total

    @property
    def device(self) -> str:
        """Which device graded it: "cuda:0 (NVIDIA H200)", "cpu (Triton interpreter)" or "cpu"."""
        return self.report.device

    @property
    def cases(self) -> list[CaseResult]:
        return self.report.cases

    def to_json(self) -> dict[str, Any]:
        """The object `kata run --json` prints for the same source (docs/TERMINAL.md), plus "bench" (`kata
        bench --json`'s object) when benchmarked, as a line of `kata grade --bench` has it."""
        data = report_to_dict(self.report)
        if self.bench is not None:
            data["bench"] = bench_to_dict(self.bench)
        return data


@dataclass(frozen=True)
class _Job:
    """A source checked and resolved, ready to grade."""

    code: str
    path: Path  # its name as a path: what the report calls it, and what the attempt is recorded under
    problem: Problem


class Grader:
    """Grades sources against problems over a warm worker pool of its own; safe to call from many threads at
    once (each grading takes a `Runner` no other thread is using, with its cache of reference outputs).

    `problems`: problem folders or codestar JSON files added to the bundled catalogue, as `kata --problems`
    adds them (one path or several). `workspace`: a folder whose `kata.toml` applies (its problems, its file
    mapping, its isolation), as it would to `kata run` there; by default none does. `isolation`: "best" (grade
    with the layers of the sandbox this machine has) or "strict" (refuse without every one; `kata doctor`).
    `jobs`: how many gradings `grade_many` runs at once (default: the cores). `record`: record each grading
    as an attempt in the progress store (`kata list` shows it), as `kata run` does; by default nothing is.

    Raises ProblemError when a problem of `problems` (or the workspace's) does not load, BadArgument for an
    argument of the wrong type. Use it as a context manager, or call `close()`: its processes end there.
    """

    # One benchmark at a time in this process, so that timings do not disturb each other.
    _gpu = threading.Lock()

    def __init__(self, problems: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] = (), *,
                 workspace: str | os.PathLike[str] | None = None, isolation: str | None = None,
                 jobs: int | None = None, record: bool = False) -> None:
        if isinstance(problems, (str, os.PathLike)):
            problems = [problems]
        if not isinstance(problems, Iterable):
            raise BadArgument(f"problems={problems!r}: give a path, or a list of paths, of problem folders or "
                              f"codestar JSON files")
        extra = list(problems)
        for path in [*extra, *([workspace] if workspace is not None else [])]:
            if not isinstance(path, (str, os.PathLike)):
                raise BadArgument(f"{path!r} is not a path; give a str or a pathlib.Path")
        self._jobs = _checked_jobs(jobs) if jobs is not None else default_jobs()
        self._workspace = find_workspace(Path(workspace)) if workspace is not None else None
        settings, warned = load_settings(self._workspace) if self._workspace else (Settings(), [])
        for warning in warned:
            warnings.warn(f"{self._workspace}: {warning}", stacklevel=2)
        isolation = isolation or settings.isolation
        if isolation not in ISOLATION_MODES:
            raise BadArgument(f"isolation={isolation!r}: give one of {', '.join(map(repr, ISOLATION_MODES))}")
        roots = [Path(p).expanduser().resolve() for p in (*settings.problem_paths, *extra)]
        self.catalog = Catalog.load(roots)
        # The bundled catalogue's own errors are the maintainers' (`kata check-problems`); the caller's are said.
        theirs = [e for e in self.catalog.errors if any(Path(e.path).resolve().is_relative_to(r) for r in roots)]
        if theirs:
            raise theirs[0]
        self._settings, self._record = settings, record
        # Each source is a submission of its own: no worker is given what another source's workers compiled.
        self._pool = WorkerPool(keep_kernels=False)
        self._pool.isolation = isolation
        self._pool.start()  # the zygote warms while the caller gets its sources ready
        # Closed at the latest when this Grader is collected or the interpreter exits.
        self._finalizer = weakref.finalize(self, self._pool.close)
        self._lock = threading.Lock()  # problem loading (trusted modules share sys.modules), the idle gradings
        self._problems: dict[str, Problem] = {}
        self._idle: list[Grading] = []
        self._closed = False

    # -- grading ----------------------------------------------------------------------------------

    def grade(self, source: SourceLike, problem: str | os.PathLike[str] | None = None, *, name: str | None = None,
              values: bool = False, bench: bool = False) -> Result:
        """Grade one source: its code as a string (`name` names it in messages; default "<string>"), a path to
        a file (read as `kata run` reads it: UTF-8, at most 1 MiB), or a `Source`. `problem`: a slug, or a
        problem folder or codestar JSON; None matches it as `kata run` does (a `# kata:` header, the name, the
        entry point). `values`: the first failing case's values by line (`kata run --values`). `bench`: an
        accepted solution of a kernel problem is also benchmarked (`Result.bench`).

        -> a Result, whatever the solution does (wrong, raising, crashing, looping). Raises CannotGrade (a
        KataError) when it cannot be graded: an unknown problem, no problem matching, an unreadable file, a
        broken problem, a sandbox that cannot run it; BadArgument for an argument of the wrong type."""
        return self._grade(self._job(source, problem, name), values, bench)

    def grade_many(self, sources: Iterable[SourceLike], problem: str | os.PathLike[str] | None = None, *,
                   jobs: int | None = None, values: bool = False, bench: bool = False) -> list[Result]:
        """Grade many sources (each as `grade` takes one; a `Source` may name its own problem), `jobs` at once
        (default: the Grader's), sharing the pool as `kata grade` does.

        -> their Results, in the order given. Every source and problem is checked before any grading starts:
        bad input raises (CannotGrade, BadArgument) having graded nothing. A source that cannot be graded once
        started (a broken problem, say) raises CannotGrade; the gradings not yet started are dropped."""
        if isinstance(sources, (str, os.PathLike, Source)):
            raise BadArgument(f"grade_many takes a list of sources, not one {type(sources).__name__}; "
                              f"grade() grades one")
        jobs = self._jobs if jobs is None else _checked_jobs(jobs)
        work = [self._job(source, problem, None) for source in sources]
        if jobs == 1 or len(work) <= 1:
            return [self._grade(job, values, bench) for job in work]
        with ThreadPoolExecutor(max_workers=min(jobs, len(work)), thread_name_prefix="kata-api") as executor:
            futures = [executor.submit(self._grade, job, values, bench) for job in work]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    def _grade(self, job: _Job, values: bool, bench: bool) -> Result:
        with self._grading() as grading:
            report = grading.run(job.problem, job.code, job.path, values=values)
        if self._record:
            warning = Grading.record(job.path, report)
            if warning:
                warnings.warn(warning, stacklevel=3)
        figures = self._benchmark(job) if bench and benchmarked(job.problem) and report.accepted else None
        return Result(report, figures)

    def _benchmark(self, job: _Job) -> BenchReport:
        with self._gpu:
            try:
                return benchmark.measure(job.problem, job.code, job.path, self._pool,
                                         workspace=self._workspace if self._record else None)
            except GradingError as error:
                raise CannotGrade(f"{job.problem.slug}: cannot benchmark: {error}", job.problem.slug) from None

    @contextmanager
    def _grading(self) -> Iterator[Grading]:
        """A grading path no other thread is using: its Runner caches reference outputs, kept between calls."""
        with self._lock:
            if self._closed:
                raise CannotGrade("this Grader is closed; make a new one (or grade inside its `with` block)")
            grading = self._idle.pop() if self._idle else None
        if grading is None:
            grading = Grading(self.catalog, self._settings, self._workspace, Runner(self._pool))
        try:
            yield grading
        finally:
            with self._lock:
                self._idle.append(grading)

    # -- input ------------------------------------------------------------------------------------

    def _job(self, source: SourceLike, problem: str | os.PathLike[str] | None, name: str | None) -> _Job:
        """The source read and its problem found; CannotGrade or BadArgument, naming what and the fix."""
        if name is not None and (not isinstance(name, str) or not name):
            raise BadArgument(f"name={name!r}: a source's name is a non-empty string (what its messages call it)")
        if isinstance(source, Source):
            if not isinstance(source.code, str):
                raise BadArgument(f"Source.code is a {type(source.code).__name__}; give the solution's code as a str")
            code, path, problem = source.code, Path(name or source.name), source.problem or problem
        elif isinstance(source, str):
            code, path = source, Path(name or STRING_NAME)
        elif isinstance(source, os.PathLike):
            path = Path(source)
            code = read_solution(path)
            path = Path(name) if name else path
        else:
            kind = type(source).__name__
            fix = "decode it to a str" if isinstance(source, (bytes, bytearray)) else \
                "pass the code as a str, a pathlib.Path to a file, or an infrakata.Source"
            raise BadArgument(f"a source is a str of code, a path or a Source; got a {kind} object: {fix}")
        if problem is not None and not isinstance(problem, (str, os.PathLike)):
            raise BadArgument(f"problem={problem!r}: give a slug (`kata list` shows them), a problem folder or a "
                              f"codestar JSON file")
        return _Job(code, path, self._problem(os.fspath(problem)) if problem is not None else self._match(path, code))

    def _problem(self, name: str) -> Problem:
        with self._lock:
            if name not in self._problems:
                try:
                    self._problems[name] = self.catalog.get(name)
                except (LookupError, ProblemError) as error:
                    raise CannotGrade(str(error)) from None
            return self._problems[name]

    def _match(self, path: Path, code: str) -> Problem:
        with self._lock:
            return Grading(self.catalog, self._settings, self._workspace).problem_for(path, code)

    # -- the end ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the pool: its zygote and every worker end here (a grading still running in another thread
        raises CannotGrade). Idempotent; a closed Grader refuses to grade."""
        with self._lock:
            self._closed = True
        self._finalizer()

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checked_jobs(jobs: object) -> int:
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise BadArgument(f"jobs={jobs!r}: give how many gradings run at once, at least 1")
    return jobs
