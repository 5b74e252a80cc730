"""Codestar problems: a codestar judge's JSON file, loaded unchanged, whose test_code drives the solution
(core/grading/kinds/codestar.py)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from infrakata.core.catalog.fields import Fields, line_of, shared_fields
from infrakata.core.catalog.kinds.base import ProblemKind
from infrakata.core.catalog.problem import GradingRules, Problem
from infrakata.core.errors import ProblemError


@dataclass(frozen=True)
class CodestarSource:
    """What only a codestar problem has: its JSON file, and the test_code that drives a solution."""

    path: Path
    test_code: str
    kind: ClassVar[str] = "codestar"

    @property
    def folder(self) -> Path:
        return self.path.parent


class Codestar(ProblemKind):
    name = "codestar"
    looks_like = "a codestar .json file"
    vocabulary_tags = False  # the judge's own tags, loaded unchanged
    renamed_when_taken = True

    def defines(self, path: Path) -> bool:
        return path.suffix == ".json" and not path.is_dir()

    def load(self, path: Path) -> Problem:
        return load_codestar(path)

    def problems_in(self, folder: Path) -> list[Path]:
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        assert isinstance(problem.source, CodestarSource)
        return problem.reference_source, problem.source.test_code

    def reference_filename(self, problem: Problem) -> str:
        return f"{problem.source_path}:reference_code"

    def reference_as_solution(self, problem: Problem) -> str:
        return problem.reference_source

    def missing_statement(self, problem: Problem) -> str | None:
        return None if problem.statement.strip() else "no statement: description_md is empty"

    def generates_cases(self, problem: Problem) -> bool:
        return False  # test_code makes them as it runs

    def has_fresh_cases(self, problem: Problem) -> bool:
        return False  # its format has none: test_code's cases are all it runs

    def without_benchmark(self, problem: Problem) -> str:
        return "a codestar problem is graded on its test_code only; its format has no benchmark"


CODESTAR_REQUIRED = ("slug", "title", "entry_point", "reference_code", "test_code")


def load_codestar(path: Path) -> Problem:
    """A problem in the codestar judge's JSON schema, loaded unchanged."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except FileNotFoundError:
        raise ProblemError(path, "no such file") from None
    except json.JSONDecodeError as error:
        raise ProblemError(path, f"invalid JSON: {error.msg}", None, error.lineno) from None
    if not isinstance(data, dict):
        raise ProblemError(path, "a codestar problem is a JSON object", None, 1)
    fields = Fields(data, path, text)
    for key in CODESTAR_REQUIRED:
        fields.get(key, str)
    try:
        compile(data["test_code"], f"{path}:test_code", "exec")
        compile(data["reference_code"], f"{path}:reference_code", "exec")
    except SyntaxError as error:
        field = "test_code" if "test_code" in (error.filename or "") else "reference_code"
        raise ProblemError(path, f"does not compile: {error.msg} (line {error.lineno} of the field)", field,
                           line_of(text, field)) from None
    return Problem(
        **shared_fields(fields, fields.get("slug", str)),
        source=CodestarSource(path, data["test_code"]),
        grading=GradingRules(device="cuda" if _is_kernel_problem(data) else "cpu"),
        statement=fields.get("description_md", str, ""),
        reference_source=data["reference_code"],
        starter=fields.get("starter_code", str, ""),
        editorial=fields.get("editorial_md", str, ""),
    )


def _is_kernel_problem(data: dict[str, Any]) -> bool:
    """codestar has no device field: a problem written in Triton, or tagged so, is graded on the GPU."""
    code = "\n".join(str(data.get(key, "")) for key in ("reference_code", "starter_code"))
    tags = {str(tag).lower() for tag in data.get("tags") or ()}
    return re.search(r"^\s*(import|from)\s+triton\b", code, re.M) is not None or bool(tags & {"triton", "cuda"})


