"""Batch grading (`kata grade`, `kata leaderboard`): many submissions in one process, warm workers in
parallel, one JSON line per submission.

    submissions = collect(paths, manifest)            # files, folders, a JSONL manifest
    grader = Grader(catalog, settings, workspace)     # resolves and grades; thread-safe; one warm pool
    with ResultsFile(out, resume=True) as results:    # flushed per result; `done` holds the ids to skip
        run_local(pending, grader, jobs, results.write)

A result line is the `kata run --json` object (core/grading/report.py) with the submission's "id" first, and
"bench" (core/bench/benchmark.py's object) for an accepted kernel solution graded with --bench. Input that
cannot be graded (an unreadable file, no matching or unknown problem, a malformed manifest line, a
broken problem) is a line of its own with the verdict `could_not_grade` and the reason in "reason";
the batch goes on. The Ray executor (core/batch/on_ray.py) grades the same submissions with the same
Grader inside its actors and writes the same lines.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, Any

from infrakata.core.batch.walk import solution_files
from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings
from infrakata.core.grading.pipeline import CannotGrade, Grading, read_solution
from infrakata.core.grading.report import COULD_NOT_GRADE, could_not_grade_to_dict
from infrakata.core.grading.results import GradingError

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_CANNOT_GRADE = 0, 1, 2


@dataclass(frozen=True)
class Submission:
    """One thing to grade. `file` or `source` (inline, from a manifest; a file's source is read when the
    batch is collected); `problem` a slug or a path into the catalogue (None: matched from the file as
    `kata run` does); `root` the folder a file's symbolic link may point into; `error` says why this input
    cannot be graded at all."""

    id: str
    file: str | None = None
    source: str | None = None
    problem: str | None = None
    error: str | None = None
    root: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Submission:
        return cls(str(data["id"]), **{k: data.get(k) for k in ("file", "source", "problem", "error", "root")})

    def read(self) -> Submission:
        """With its source read now (before any grading starts, so nothing a grading does can change
        what a later one grades), or its error."""
        if self.source is not None or self.error is not None or self.file is None:
            return self
        try:
            return replace(self, source=read_solution(Path(self.file), Path(self.root) if self.root else None))
        except CannotGrade as error:
            return replace(self, error=str(error))


# -- inputs -----------------------------------------------------------------------------------------


def collect(paths: Sequence[str | Path] = (), manifest: str | Path | None = None) -> list[Submission]:
    """Submissions from files, folders (every *.py below but environments, hidden folders and what
    .gitignore ignores: core/batch/walk.py) and a JSONL manifest, in that order.
    A file named twice is graded once; a path that does not exist is a `could_not_grade` submission.
    Every source is read here, before any grading starts (size-capped: 10,000 stay small)."""
    found: list[Submission] = []
    seen: set[str] = set()

    def add(submission: Submission) -> None:
        if submission.id not in seen:
            seen.add(submission.id)
            found.append(submission)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for file in solution_files(path):
                add(Submission(id=str(file), file=str(file), root=str(path)))
        else:  # a missing or unreadable file is reported when it is read
            add(Submission(id=str(path), file=str(path), root=str(path.parent)))
    if manifest is not None:
        for line, submission in read_manifest(Path(manifest)):
            if submission.id in seen:  # each id is graded once: the later line is reported under its place
                submission = Submission(id=f"{manifest}:{line}", file=submission.file, problem=submission.problem,
                                        error=submission.error or f"{manifest}:{line}: duplicate id "
                                                                  f"'{submission.id}' (each id is graded once)")
            add(submission)
    return [submission.read() for submission in found]


def read_manifest(path: Path) -> Iterator[tuple[int, Submission]]:
    """(line number, submission) per entry `{"id", "file" | "source", "problem"}`; other fields are
    ignored; a file (or problem path) is relative to the manifest's folder. A malformed line becomes a
    submission with its error, under its own id when it has one, else `MANIFEST:LINE`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        yield 0, Submission(id=str(path), error=f"cannot read the manifest {path}: {error}")
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            yield number, Submission(id=where, error=f"{where}: not JSON ({error.msg} at column {error.colno})")
            continue
        if not isinstance(entry, dict):
            yield number, Submission(id=where, error=f'{where}: expected an object {{"id", "file" | "source", '
                                                     f'"problem"}}')
            continue
        sub_id = entry.get("id")
        if not isinstance(sub_id, (str, int)) or isinstance(sub_id, bool) or str(sub_id) == "":
            yield number, Submission(id=where, error=f'{where}: no "id" (a non-empty string or a number)')
            continue
        sub_id = str(sub_id)
        file, source, problem = entry.get("file"), entry.get("source"), entry.get("problem")
        reason = None
        if (file is None) == (source is None):
            reason = 'exactly one of "file" and "source" is needed'
        elif not isinstance(file if file is not None else source, str):
            reason = '"file" and "source" are strings'
        elif problem is not None and not isinstance(problem, str):
            reason = '"problem" is a slug or a path (a string)'
        if reason is not None:
            yield number, Submission(id=sub_id, error=f"{where}: {reason}")
            continue
        if file is not None and not Path(file).is_absolute():
            file = str(path.parent / file)
        root = str(path.parent) if file is not None else None
        if problem is not None and not _is_slug(problem) and not Path(problem).is_absolute():
            candidate = path.parent / problem  # a problem path is relative to the manifest too
            problem = str(candidate) if candidate.exists() else problem
        yield number, Submission(id=sub_id, file=file, source=source, problem=problem, root=root)


def _is_slug(name: str) -> bool:
    return "/" not in name and not name.endswith((".json", ".toml"))


# -- grading one submission -------------------------------------------------------------------------


def hide_row(result: dict[str, Any]) -> dict[str, Any]:
    """A result line with no expected value in it (`kata grade --hidden`): each case as results.hide_expected
    leaves it, and a rejected benchmark's reason cut to its shape."""
    from infrakata.core.grading.results import CaseResult, hide_expected

    cases = [asdict(hide_expected(CaseResult(**case))) for case in result.get("cases") or []]
    hidden = {**result, "cases": cases}
    bench = result.get("bench")
    if isinstance(bench, dict) and not bench.get("correct"):
        hidden["bench"] = {**bench, "gate_message": "rejected: an output did not match (details hidden)",
                           "shapes": [{**shape, "check": "passed" if shape.get("check") == "passed" else "failed"}
                                      for shape in bench.get("shapes") or []]}
    return hidden


def could_not_grade(submission: Submission, reason: str, problem: str | None = None) -> dict[str, Any]:
    """The line of a submission that could not be graded: `kata run --json`'s could_not_grade object
    with the submission's "id" first. `problem`: the slug, when the problem was found (a name that
    matches none is in the reason, not counted as a problem of its own)."""
    return {"id": submission.id, **could_not_grade_to_dict(submission.file, problem, reason)}


def crashed(submission: Submission, reason: str, problem: str | None = None) -> dict[str, Any]:
    """The line of a submission whose grading process itself kept dying (Ray: the actor)."""
    return {**could_not_grade(submission, reason, problem), "verdict": "crashed"}


class Grader:
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

    def grade(self, submission: Submission) -> dict[str, Any]:
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

    def grade_source(self, submission: Submission, source: str, problem: Problem) -> dict[str, Any]:
        from infrakata.core.grading.report import report_to_dict
        from infrakata.core.sandbox.pool import SandboxUnavailable

        path = submission.file or f"<{submission.id}>"
        try:
            report = self._grading().run(problem, source, Path(path))
        except SandboxUnavailable as error:
            raise CannotGrade(f"{problem.slug}: cannot grade: {error}") from None
        result = {"id": submission.id, **report_to_dict(report)}
        if self.bench and problem.benchmark is not None and report.accepted:
            result["bench"] = self.benchmark(problem, source, path)
        return result

    def benchmark(self, problem: Problem, source: str, path: str) -> dict[str, Any]:
        from infrakata.core.bench.benchmark import bench_to_dict, run_benchmark

        with self._gpu:
            try:
                return bench_to_dict(run_benchmark(problem, source, path, self.pool))
            except GradingError as error:
                return {"problem": problem.slug, "file": path, "correct": False, "error": str(error)}


# -- the results file -------------------------------------------------------------------------------


class ResultsFile:
    """The JSONL results: one line per submission, written and flushed as each finishes, so that an
    interrupted batch loses nothing. With `resume`, the ids already there are in `done` (and a last
    line cut short by the interruption is dropped); without, the file starts empty. Without a path,
    lines go to `echo` (stdout) and to a temporary file that JUnit and the summary read back."""

    def __init__(self, path: str | Path | None, resume: bool = False, echo: IO[str] | None = None):
        import tempfile

        self.echo = echo
        self.key = results_key()
        self.unverified = 0  # lines already there that this grader did not sign: graded again
        self.done: set[str] = set()
        self.previous: list[dict[str, Any]] = []  # slim rows of the lines already there
        self._lock = threading.Lock()
        self._file: IO[str]
        self._temporary = path is None  # without --out the lines go to stdout; this file only sums them up
        if path is None:
            temp = tempfile.NamedTemporaryFile("w+", suffix=".jsonl", encoding="utf-8", delete=False)
            self.path = Path(temp.name)
            self._file = temp
            return
        self.path = Path(path)
        if resume and self.path.exists():
            self._read_done()
            self._file = self.path.open("a", encoding="utf-8")
        else:
            if self.path.parent != Path(""):
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # Its user's alone: where a machine has no view or Landlock, a worker meets file modes only.
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)  # one made before
            self._file = os.fdopen(fd, "w", encoding="utf-8")

    def _read_done(self) -> None:
        data = self.path.read_bytes()
        keep = len(data) if data.endswith(b"\n") or not data else data.rfind(b"\n") + 1
        if keep < len(data):  # the line being written when the batch stopped
            with self.path.open("r+b") as file:
                file.truncate(keep)
        for line in data[:keep].decode("utf-8", "replace").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not (isinstance(row, dict) and "id" in row):
                continue
            if not signed_by(row, self.key):
                self.unverified += 1
                continue
            self.done.add(str(row["id"]))
            self.previous.append(slim(row))

    def write(self, result: dict[str, Any]) -> None:
        line = json.dumps(sign(result, self.key), ensure_ascii=False) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            if self.echo is not None:
                self.echo.write(line)
                self.echo.flush()

    def rows(self) -> Iterator[dict[str, Any]]:
        with self._lock:
            self._file.flush()
        yield from read_results(self.path)

    def close(self) -> None:
        self._file.close()
        if self._temporary:
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SIGNATURE = "signature"


def results_key() -> bytes:
    """This grader's key for signing result lines: made once, readable by its user only, and (like every
    file of the grader's) out of any worker's reach."""
    from infrakata.core.progress.store import user_store

    path = user_store().parent / "results.key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        key = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another batch made it first
            return path.read_bytes()
        with os.fdopen(fd, "wb") as file:
            file.write(key)
        return key


def _digest(row: dict[str, Any], key: bytes) -> str:
    import hashlib
    import hmac

    body = json.dumps({k: v for k, v in row.items() if k != SIGNATURE}, sort_keys=True, ensure_ascii=False)
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def sign(row: dict[str, Any], key: bytes) -> dict[str, Any]:
    """A result line with its signature: what `--resume` and the leaderboard check it wrote it."""
    return {**row, SIGNATURE: _digest(row, key)}


def signed_by(row: dict[str, Any], key: bytes) -> bool:
    import hmac

    signature = row.get(SIGNATURE)
    return isinstance(signature, str) and hmac.compare_digest(signature, _digest(row, key))


def verified(rows: Iterable[dict[str, Any]], key: bytes) -> tuple[list[dict[str, Any]], int]:
    """The rows signed with `key`, and how many were not (a line appended by anyone but the grader)."""
    kept, dropped = [], 0
    for row in rows:
        if signed_by(row, key):
            kept.append(row)
        else:
            dropped += 1
    return kept, dropped


def read_results(path: Path) -> Iterator[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as file:
        for line in file:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                yield row


def slim(result: dict[str, Any]) -> dict[str, Any]:
    """What the summary keeps of a result (the full lines are in the file)."""
    return {"id": result.get("id"), "problem": result.get("problem"), "verdict": result.get("verdict"),
            "time_ms": result.get("time_ms") or 0.0}


# -- running a batch --------------------------------------------------------------------------------


def run_local(submissions: Iterable[Submission], grader: Grader, jobs: int,
              on_result: Callable[[dict[str, Any]], None], stop: threading.Event | None = None) -> None:
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


class Tally:
    """Verdict counts, overall and per problem, of this batch and the lines it resumed from."""

    def __init__(self) -> None:
        self.verdicts: Counter[str] = Counter()
        self.by_problem: dict[str, Counter[str]] = defaultdict(Counter)
        self.grading_ms = 0.0
        self.graded_now = 0
        self.resumed = 0
        self.retried = 0
        self._lock = threading.Lock()

    def add(self, result: dict[str, Any], resumed: bool = False) -> None:
        with self._lock:
            verdict = str(result.get("verdict"))
            self.verdicts[verdict] += 1
            self.by_problem[str(result.get("problem") or "(unresolved)")][verdict] += 1
            if resumed:
                self.resumed += 1
            else:
                self.graded_now += 1
                self.grading_ms += float(result.get("time_ms") or 0.0)

    @property
    def total(self) -> int:
        return sum(self.verdicts.values())

    def exit_code(self) -> int:
        if self.verdicts[COULD_NOT_GRADE]:
            return EXIT_CANNOT_GRADE
        return EXIT_ACCEPTED if self.verdicts["accepted"] == self.total else EXIT_REJECTED


VERDICT_COLUMNS = ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded",
                   "forbidden", "syntax_error", "crashed", COULD_NOT_GRADE)
SHORT = {"accepted": "ok", "wrong_answer": "WA", "runtime_error": "RE", "time_limit_exceeded": "TLE",
         "memory_limit_exceeded": "MLE", "forbidden": "forbid", "syntax_error": "syntax", "crashed": "crash",
         COULD_NOT_GRADE: "cannot"}


def summary_table(tally: Tally, elapsed_s: float) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    shown = [v for v in VERDICT_COLUMNS if tally.verdicts[v]] + sorted(
        v for v in tally.verdicts if v not in VERDICT_COLUMNS)
    rate = tally.graded_now / elapsed_s if elapsed_s > 0 else 0.0
    caption = f"{tally.graded_now} graded in {elapsed_s:.1f} s ({rate:.1f}/s)"
    if tally.resumed:
        caption += f", {tally.resumed} already in the results file"
    if tally.retried:
        caption += f", {tally.retried} retried after a grading process died"
    table = Table(box=None, header_style="bold")
    table.add_column("problem")
    table.add_column("n", justify="right")
    for verdict in shown:
        table.add_column(SHORT.get(verdict, verdict), justify="right")
    for problem in sorted(tally.by_problem):
        counts = tally.by_problem[problem]
        table.add_row(problem, str(sum(counts.values())), *[str(counts[v] or "") for v in shown])
    table.add_row("[bold]all[/]", f"[bold]{tally.total}[/]", *[f"[bold]{tally.verdicts[v] or ''}[/]" for v in shown])
    return Group(table, Text(caption))


# -- JUnit ------------------------------------------------------------------------------------------


def write_junit(rows: Iterable[dict[str, Any]], path: str | Path, name: str = "kata grade") -> None:
    """One testsuite per problem, one testcase per submission: accepted passes, could_not_grade is an
    error, any other verdict a failure whose text lists the failing cases."""
    import xml.etree.ElementTree as ET

    suites: dict[str, ET.Element] = {}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    root = ET.Element("testsuites", name=name)
    for row in rows:
        problem = str(row.get("problem") or "unresolved")
        suite = suites.get(problem)
        if suite is None:
            suite = suites[problem] = ET.SubElement(root, "testsuite", name=problem)
        case = ET.SubElement(suite, "testcase", classname=problem, name=str(row.get("id")),
                             time=f"{(row.get('time_ms') or 0.0) / 1e3:.3f}")
        if row.get("file"):
            case.set("file", str(row["file"]))
        verdict = row.get("verdict")
        counts[problem]["tests"] += 1
        counts[problem]["time_ms"] += int(row.get("time_ms") or 0)
        if verdict == "accepted":
            continue
        if verdict == COULD_NOT_GRADE:
            counts[problem]["errors"] += 1
            element = ET.SubElement(case, "error", type=COULD_NOT_GRADE, message=str(row.get("reason", "")))
            element.text = str(row.get("reason", ""))
            continue
        counts[problem]["failures"] += 1
        message = f"{verdict}: {row.get('passed', 0)}/{row.get('total', 0)} cases passed"
        element = ET.SubElement(case, "failure", type=str(verdict), message=message)
        details = [f"{f.get('line')}:{f.get('column')}: {f.get('code')}: {f.get('message')}"
                   for f in row.get("findings") or []]
        details += [f"case {c.get('id')} ({c.get('name')}): {c.get('status')}: {c.get('message')}"
                    for c in row.get("cases") or [] if c.get("status") not in ("passed", "skipped")]
        if row.get("reason"):
            details.append(str(row["reason"]))
        element.text = "\n".join(details) or message
    totals: Counter[str] = Counter()
    for problem, suite in suites.items():
        c = counts[problem]
        suite.set("tests", str(c["tests"]))
        suite.set("failures", str(c["failures"]))
        suite.set("errors", str(c["errors"]))
        suite.set("time", f"{c['time_ms'] / 1e3:.3f}")
        totals.update(c)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


# -- the leaderboard --------------------------------------------------------------------------------


def bench_figure(row: dict[str, Any]) -> float | None:
    bench = row.get("bench")
    if isinstance(bench, dict) and bench.get("correct"):
        value = bench.get("geomean_gbps")
        return float(value) if isinstance(value, (int, float)) else None
    return None


def leaderboard(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per problem, its submissions best first: accepted before not; then the benchmark's geomean
    (higher first, where there is one); then more cases passed; then less grading time. Lines that
    could not be graded are left out. The last line of an id wins (a results file appended to)."""
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("verdict") != COULD_NOT_GRADE and row.get("problem"):
            latest[str(row.get("id"))] = row
    boards: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in latest.values():
        boards[str(row["problem"])].append(row)
    ranked = {}
    for problem in sorted(boards):
        entries = sorted(boards[problem], key=lambda r: (
            r.get("verdict") != "accepted", -(bench_figure(r) or 0.0),
            -((r.get("passed") or 0) / (r.get("total") or 1)), r.get("time_ms") or 0.0, str(r.get("id"))))
        ranked[problem] = [{"rank": rank, "id": r.get("id"), "file": r.get("file"), "verdict": r.get("verdict"),
                            "passed": r.get("passed"), "total": r.get("total"), "time_ms": r.get("time_ms"),
                            "bench": bench_figure(r),
                            "unit": (r.get("bench") or {}).get("unit") if isinstance(r.get("bench"), dict) else None}
                           for rank, r in enumerate(entries, 1)]
    return ranked


def leaderboard_table(ranked: dict[str, list[dict[str, Any]]], top: int | None = None) -> Any:
    from rich.console import Group
    from rich.table import Table

    parts = []
    for problem, entries in ranked.items():
        accepted = sum(e["verdict"] == "accepted" for e in entries)
        table = Table(box=None, header_style="bold", title=f"{problem}: {accepted}/{len(entries)} accepted",
                      title_justify="left")
        for column in ("#", "id", "verdict", "cases", "bench", "ms"):
            table.add_column(column, justify="right" if column in ("#", "cases", "bench", "ms") else "left")
        for e in entries[:top]:
            bench = f"{e['bench']:.1f} {e['unit'] or ''}".strip() if e["bench"] is not None else ""
            table.add_row(str(e["rank"]), str(e["id"]), str(e["verdict"]), f"{e['passed']}/{e['total']}", bench,
                          f"{e['time_ms'] or 0:.1f}")
        parts.append(table)
    return Group(*parts)


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


def grade_batch(options: GradeOptions, catalog: Catalog, settings: Settings, workspace: Path | None,
                console: Any = None, err: Any = None) -> int:
    """`kata grade`: grade, write the results (and JUnit), print the summary; -> the exit code
    (0 all accepted, 1 some not accepted, 2 some could not be graded)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = console or Console(highlight=False)
    err = err or Console(stderr=True, highlight=False, soft_wrap=True)
    if not options.paths and not options.manifest:
        raise CannotGrade("nothing to grade: pass files, folders or --manifest FILE")
    if options.resume and not options.out:
        raise CannotGrade("--resume needs --out FILE (the results to resume from)")
    for flag, target in (("--out", options.out), ("--junit", options.junit)):
        if target:
            _check_output(flag, Path(target))
    if options.ray:
        try:
            from infrakata.core.batch.on_ray import run_ray
        except ImportError as error:
            raise CannotGrade(str(error)) from None
    submissions = collect(options.paths, options.manifest)
    tally = Tally()
    try:
        results = ResultsFile(options.out, options.resume, echo=None if options.out else sys.stdout)
    except OSError as error:
        raise CannotGrade(f"--out {options.out}: cannot write ({error.strerror or error})") from None
    with results:
        for row in results.previous:
            tally.add(row, resumed=True)
        if results.unverified:
            err.print(f"[yellow]warning:[/] {results.unverified} line(s) of {escape(str(options.out))} were not "
                      f"written by this grader (no valid signature); their submissions are graded again")
        pending = [s for s in submissions if s.id not in results.done]
        started = time.perf_counter()
        with Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                      TimeRemainingColumn(), console=err, transient=err.is_terminal) as progress:
            task = progress.add_task("grading", total=len(pending), rate="")

            def on_result(result: dict[str, Any]) -> None:
                if options.hidden:
                    result = hide_row(result)
                results.write(result)
                tally.add(result)
                elapsed = time.perf_counter() - started
                progress.update(task, advance=1, rate=f"{tally.graded_now / elapsed:.1f}/s" if elapsed else "")

            try:
                if options.ray:
                    def on_ready() -> None:  # the rate counts from when the actors are warm
                        nonlocal started
                        started = time.perf_counter()

                    tally.retried = run_ray(pending, options, on_result, err=err, catalog=catalog, on_ready=on_ready)
                else:
                    grader = Grader(catalog, settings, workspace, bench=options.bench)
                    grader.pool.isolation = options.isolation
                    run_local(pending, grader, options.jobs or default_jobs(), on_result)
            except KeyboardInterrupt:
                progress.stop()
                err.print(f"[yellow]interrupted:[/] {tally.graded_now} results written"
                          + (f" to {options.out}; rerun with --resume to grade the rest" if options.out else ""))
                raise
        elapsed = time.perf_counter() - started
        if options.junit:
            try:
                write_junit(results.rows(), options.junit)
            except OSError as error:
                where = f"; the results are in {options.out}" if options.out else ""
                raise CannotGrade(f"--junit {options.junit}: cannot write ({error.strerror or error}){where}") \
                    from None
    (console if options.out else err).print(summary_table(tally, elapsed))
    if tally.verdicts[COULD_NOT_GRADE]:
        err.print(f"[red]{tally.verdicts[COULD_NOT_GRADE]} could not be graded[/] (their lines say why)")
    return tally.exit_code()


def _check_output(flag: str, path: Path) -> None:
    """Before any grading: an output path that cannot be a file is said at once, not after the batch."""
    if path.is_dir():
        example = path / ("results.jsonl" if flag == "--out" else "junit.xml")
        raise CannotGrade(f"{flag} {path} is a folder; give a file (e.g. {example})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CannotGrade(f"{flag} {path}: cannot create {path.parent} ({error.strerror or error})") from None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


__all__ = ["COULD_NOT_GRADE", "Grader", "ResultsFile", "Submission", "Tally", "collect", "could_not_grade",
           "crashed", "leaderboard", "read_manifest", "read_results", "run_local", "summary_table",
           "write_junit"]

