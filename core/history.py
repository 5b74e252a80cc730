"""Attempts and bests, in an SQLite file in the workspace (`.kata/history.sqlite`)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from .results import RunReport

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    at REAL NOT NULL, problem TEXT NOT NULL, file TEXT NOT NULL, verdict TEXT NOT NULL,
    passed INTEGER NOT NULL, total INTEGER NOT NULL, time_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_problem ON attempts (problem, at);
"""


def store_path(workspace: Path) -> Path:
    return workspace / ".kata" / "history.sqlite"


def connect(workspace: Path) -> sqlite3.Connection:
    path = store_path(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=5)
    connection.executescript(SCHEMA)
    return connection


def record(workspace: Path, report: RunReport) -> None:
    if report.cancelled:
        return
    with connect(workspace) as db:
        db.execute("INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (time.time(), report.problem, report.file, report.verdict, report.passed, report.total,
                    report.time_ms))


def summary(workspace: Path) -> list[dict]:
    """Per problem: attempts, whether it was ever accepted, and the best pass count."""
    if not store_path(workspace).is_file():
        return []
    with connect(workspace) as db:
        rows = db.execute("""SELECT problem, COUNT(*), MAX(verdict = 'accepted'), MAX(passed), MAX(total), MAX(at)
                             FROM attempts GROUP BY problem ORDER BY MAX(at) DESC""").fetchall()
    return [{"problem": p, "attempts": n, "accepted": bool(a), "best_passed": bp, "total": t, "last": last}
            for p, n, a, bp, t, last in rows]
