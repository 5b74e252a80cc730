"""Attempts, bests, hints seen and the benchmark's figures, in one SQLite file: the workspace's
`.kata/history.sqlite` when there is a workspace (a kata.toml or [tool.kata]), else the learner's own store,
`$XDG_DATA_HOME/infrakata/history.sqlite` (`~/.local/share/infrakata/history.sqlite`).

Every function takes the workspace (or None for the per-user store), so progress is recorded
wherever the learner works.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Protocol

TABLES = """
CREATE TABLE IF NOT EXISTS attempts (
    at REAL NOT NULL, problem TEXT NOT NULL, file TEXT NOT NULL, verdict TEXT NOT NULL,
    passed INTEGER NOT NULL, total INTEGER NOT NULL, time_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_problem ON attempts (problem, at);
CREATE TABLE IF NOT EXISTS hints_seen (problem TEXT PRIMARY KEY, tiers INTEGER NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS bench_best (
    problem TEXT NOT NULL, device TEXT NOT NULL, unit TEXT NOT NULL, geomean REAL NOT NULL,
    roofline REAL, reference REAL, file TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (problem, device)
);
CREATE TABLE IF NOT EXISTS bench_reference (
    problem TEXT NOT NULL, version TEXT NOT NULL, device TEXT NOT NULL, shape TEXT NOT NULL, ms REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (problem, version, device, shape)
);
"""


def user_store() -> Path:
    """The per-user store, for work outside any workspace."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "infrakata" / "history.sqlite"


def store_path(workspace: Path | None) -> Path:
    return workspace / ".kata" / "history.sqlite" if workspace is not None else user_store()


def connect(workspace: Path | None) -> sqlite3.Connection:
    path = store_path(workspace)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Its user's alone (SQLite gives its journal files the same mode): where a machine has no view or
    # Landlock, a worker of another uid meets file modes only (core/sandbox/confine.py).
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.fchmod(descriptor, 0o600)  # one made before
    os.close(descriptor)
    connection = sqlite3.connect(path, timeout=5)
    connection.executescript(TABLES)
    return connection


class Attempt(Protocol):
    """What an attempt records of a grading (a grading's RunReport has it): the store knows no grader."""

    @property
    def problem(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def passed(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def time_ms(self) -> float: ...
    @property
    def cancelled(self) -> bool: ...


def record(workspace: Path | None, report: Attempt) -> None:
    if report.cancelled:
        return
    with connect(workspace) as db:
        db.execute("INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (time.time(), report.problem, report.file, report.verdict, report.passed, report.total,
                    report.time_ms))


def summary(workspace: Path | None) -> list[dict[str, Any]]:
    """Per problem: attempts, whether it was ever accepted, and the best pass count."""
    if not store_path(workspace).is_file():
        return []
    with connect(workspace) as db:
        rows = db.execute("""SELECT problem, COUNT(*), MAX(verdict = 'accepted'), MAX(passed), MAX(total), MAX(at)
                             FROM attempts GROUP BY problem ORDER BY MAX(at) DESC""").fetchall()
    return [{"problem": p, "attempts": n, "accepted": bool(a), "best_passed": bp, "total": t, "last": last}
            for p, n, a, bp, t, last in rows]


def progress(workspace: Path | None, problem: str) -> dict[str, Any] | None:
    """One problem's row of `summary`, or None when it was never attempted here."""
    return next((row for row in summary(workspace) if row["problem"] == problem), None)


def hints_seen(workspace: Path | None, problem: str) -> int:
    """How many hint tiers of `problem` were shown here."""
    if not store_path(workspace).is_file():
        return 0
    with connect(workspace) as db:
        row = db.execute("SELECT tiers FROM hints_seen WHERE problem = ?", (problem,)).fetchone()
    return row[0] if row else 0


def mark_hints_seen(workspace: Path | None, problem: str, tiers: int) -> None:
    with connect(workspace) as db:
        db.execute("""INSERT INTO hints_seen VALUES (?, ?, ?) ON CONFLICT (problem) DO UPDATE
                      SET tiers = MAX(tiers, excluded.tiers), at = excluded.at""", (problem, tiers, time.time()))


def record_bench_best(workspace: Path | None, problem: str, device: str, unit: str, geomean: float | None,
                      roofline: float | None, reference: float | None, file: str) -> float:
    """Keep the best benchmark geomean per problem and device; -> the best after this one."""
    with connect(workspace) as db:
        db.execute("""INSERT INTO bench_best VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                      ON CONFLICT (problem, device) DO UPDATE SET
                          unit = excluded.unit, geomean = excluded.geomean, roofline = excluded.roofline,
                          reference = excluded.reference, file = excluded.file, at = excluded.at
                      WHERE excluded.geomean > bench_best.geomean""",
                   (problem, device, unit, geomean, roofline, reference, file, time.time()))
        (best,) = db.execute("SELECT geomean FROM bench_best WHERE problem = ? AND device = ?",
                             (problem, device)).fetchone()
    return float(best)


def reference_times(workspace: Path | None, problem: str, version: str, device: str) -> dict[tuple[int, ...], float]:
    """The eager reference's best time per timed shape, for one version of a problem on one device."""
    with connect(workspace) as db:
        rows = db.execute("SELECT shape, ms FROM bench_reference WHERE problem = ? AND version = ? AND device = ?",
                          (problem, version, device)).fetchall()
    return {tuple(int(n) for n in shape.split("x")): float(ms) for shape, ms in rows}


def record_reference_time(workspace: Path | None, problem: str, version: str, device: str, shape: tuple[int, ...],
                          ms: float) -> None:
    with connect(workspace) as db:
        db.execute("INSERT OR REPLACE INTO bench_reference VALUES (?, ?, ?, ?, ?, ?)",
                   (problem, version, device, "x".join(map(str, shape)), ms, time.time()))
