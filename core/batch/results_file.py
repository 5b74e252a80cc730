"""A batch's results: the signed JSONL file (flushed per result, resumable), JUnit, the leaderboard's ranking
and KernelBench's fast_p."""

from __future__ import annotations

import json
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from infrakata.core.batch.rows import RankedEntry, ResultRow
from infrakata.core.grading.report import COULD_NOT_GRADE


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
        self.previous: list[ResultRow] = []  # slim rows of the lines already there
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
            row = cast(ResultRow, row)
            if not signed_by(row, self.key):
                self.unverified += 1
                continue
            self.done.add(str(row["id"]))
            self.previous.append(slim(row))

    def write(self, result: ResultRow) -> None:
        line = json.dumps(sign(result, self.key), ensure_ascii=False) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            if self.echo is not None:
                self.echo.write(line)
                self.echo.flush()

    def rows(self) -> Iterator[ResultRow]:
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


def _digest(row: ResultRow, key: bytes) -> str:
    import hashlib
    import hmac

    body = json.dumps({k: v for k, v in row.items() if k != "signature"}, sort_keys=True, ensure_ascii=False)
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def sign(row: ResultRow, key: bytes) -> ResultRow:
    """A result line with its signature: what `--resume` and the leaderboard check it wrote it."""
    return {**row, "signature": _digest(row, key)}


def signed_by(row: ResultRow, key: bytes) -> bool:
    import hmac

    signature = row.get("signature")
    return isinstance(signature, str) and hmac.compare_digest(signature, _digest(row, key))


def verified(rows: Iterable[ResultRow], key: bytes) -> tuple[list[ResultRow], int]:
    """The rows signed with `key`, and how many were not (a line appended by anyone but the grader)."""
    kept, dropped = [], 0
    for row in rows:
        if signed_by(row, key):
            kept.append(row)
        else:
            dropped += 1
    return kept, dropped


def read_results(path: Path) -> Iterator[ResultRow]:
    with Path(path).open(encoding="utf-8") as file:
        for line in file:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                yield cast(ResultRow, row)


def slim(result: ResultRow) -> ResultRow:
    """What the summary keeps of a result (the full lines are in the file)."""
    return {"id": result.get("id", ""), "problem": result.get("problem"), "verdict": result.get("verdict", ""),
            "time_ms": result.get("time_ms") or 0.0}


def write_junit(rows: Iterable[ResultRow], path: str | Path, name: str = "kata grade") -> None:
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


def bench_figure(row: ResultRow) -> float | None:
    bench = row.get("bench")
    if isinstance(bench, dict) and bench.get("correct"):
        value = bench.get("geomean_gbps")
        return float(value) if isinstance(value, (int, float)) else None
    return None


# KernelBench's fast_p thresholds reported: faster than the eager Model at all, and by half again.
FAST_P = (1.0, 1.5)


@dataclass(frozen=True)
class FastP:
    """KernelBench's fast_p over a set of submissions: the share that is correct and faster than p times the
    eager reference. A correct submission without a speed figure (graded without a GPU, or without --bench)
    leaves the share unknown: it is counted, never guessed."""

    p: float
    submissions: int
    correct: int
    fast: int  # correct, with a speed-up over the eager Model above p
    unknown: int  # correct, with no speed-up measured

    @property
    def share(self) -> float | None:
        return None if self.unknown or not self.submissions else self.fast / self.submissions

    def words(self) -> str:
        if self.share is not None:
            return f"fast_{self.p:g}: {self.share:.1%} ({self.fast} of {self.submissions} correct and faster)"
        return (f"fast_{self.p:g}: unknown ({self.correct} of {self.submissions} correct, {self.unknown} without a "
                f"speed figure: that needs a CUDA GPU)")


def speedup(row: ResultRow) -> float | None:
    """The speed-up over the eager reference a correct benchmark measured, or None."""
    bench = row.get("bench")
    if isinstance(bench, dict) and bench.get("correct"):
        value = bench.get("speedup_vs_reference")
        return float(value) if isinstance(value, (int, float)) else None
    return None


def fast_p(rows: Iterable[ResultRow], p: float) -> FastP:
    """fast_p over `rows` (the last line of each id counts, as on a leaderboard)."""
    latest = {str(row.get("id")): row for row in rows}
    correct = [row for row in latest.values() if row.get("verdict") == "accepted"]
    speeds = [speedup(row) for row in correct]
    return FastP(p, len(latest), len(correct), sum(s is not None and s > p for s in speeds),
                 sum(s is None for s in speeds))


def leaderboard(rows: Iterable[ResultRow]) -> dict[str, list[RankedEntry]]:
    """Per problem, its submissions best first: accepted before not; then the benchmark's geomean
    (higher first, where there is one); then more cases passed; then less grading time. Lines that
    could not be graded are left out. The last line of an id wins (a results file appended to)."""
    latest: dict[str, ResultRow] = {}
    for row in rows:
        if row.get("verdict") != COULD_NOT_GRADE and row.get("problem"):
            latest[str(row.get("id"))] = row
    boards: dict[str, list[ResultRow]] = defaultdict(list)
    for row in latest.values():
        boards[str(row["problem"])].append(row)
    ranked: dict[str, list[RankedEntry]] = {}
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
