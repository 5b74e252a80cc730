"""What a batch grades: submissions collected from files, folders and a JSONL manifest."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from infrakata.core.batch.walk import solution_files
from infrakata.core.errors import CannotGrade
from infrakata.core.grading.pipeline import read_solution


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
