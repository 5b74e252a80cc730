"""Solution file -> problem: a `# kata: <slug>` header, the workspace mapping, the file name, the entry point."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings
from infrakata.core.errors import NoMatch, ProblemError
from infrakata.core.pysource import top_level_functions

KATA_HEADER = re.compile(r"^#\s*kata:\s*(\S+)")
HEADER_LINES = 10




def header_slug(source: str) -> tuple[int, str] | None:
    for number, line in enumerate(source.splitlines()[:HEADER_LINES], 1):
        match = KATA_HEADER.match(line.strip())
        if match:
            return number, match.group(1)
    return None


def _resolve(catalog: Catalog, name: str, relative_to: Path, where: str) -> Problem:
    """A problem named in the file itself: a slug, or a path into the catalogue (never loaded from the
    file's say-so: the file is what is being graded)."""
    try:
        return catalog.resolve(name, relative_to)
    except LookupError as error:
        raise NoMatch(f"{where}: {error}") from None


def match_problem(path: Path, source: str, catalog: Catalog, settings: Settings,
                  workspace: Path | None = None) -> Problem:
    path = Path(path)
    header = header_slug(source)
    if header:
        line, name = header
        return _resolve(catalog, name, path.parent, f"{path}:{line}: '# kata: {name}'")
    if settings.file_map:
        relative = path.resolve().relative_to(workspace.resolve()).as_posix() \
            if workspace and path.resolve().is_relative_to(workspace.resolve()) else path.name
        for pattern, name in settings.file_map.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
                try:  # the workspace's own configuration: a path it names is trusted
                    return catalog.get(name if name in catalog.problems else str((workspace or path.parent) / name))
                except (LookupError, ProblemError) as error:
                    raise NoMatch(f"kata.toml [files] '{pattern}': {error}") from None
    slug = path.stem.replace("_", "-").lower()
    if slug in catalog.problems:
        return catalog.problems[slug]
    defined = top_level_functions(source)
    by_entry = [p for p in catalog.problems.values() if p.entry_point in defined]
    if len(by_entry) == 1:
        return by_entry[0]
    if len(by_entry) > 1:
        raise NoMatch(f"{path}: defines the entry points of several problems "
                      f"({', '.join(p.slug for p in by_entry)}); add a first line '# kata: <slug>' to choose one")
    raise NoMatch(f"{path}: no problem matches this file. Add a first line '# kata: <slug>', name the file after "
                  f"the problem (e.g. adam_optimizer_memory_bytes.py), or map it in kata.toml under [files]; "
                  f"`kata list` shows the slugs")
