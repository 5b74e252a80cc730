"""Which files below a folder are solutions: `kata grade DIR` grades every *.py there except what
belongs to tools, not to the learner.

Skipped: hidden files and folders (.venv, .git, .tox, ...), virtual environments under any name (a
folder with a pyvenv.cfg), node_modules and __pycache__, and what .gitignore files ignore: those of
the folder and below, and those above it up to the root of its git work tree, as git reads them (a
deeper file overrides a shallower one; `!pattern` re-includes). A folder named on the command line is
walked even when a .gitignore above it ignores it: naming it is asking for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pathspec import GitIgnoreSpec

SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})

Rules = list[tuple[str, GitIgnoreSpec]]  # (the folder of a .gitignore, its patterns), shallowest first


def solution_files(folder: Path) -> list[Path]:
    """Every *.py below `folder` that is not skipped, in path order, as paths under `folder`."""
    root = str(folder.resolve())
    above = _rules_above(root)
    if _ignored(root, True, above):
        above = []
    found: list[Path] = []

    def walk(given: Path, real: str, rules: Rules) -> None:
        rules = rules + _rules_in(real)
        try:
            entries = sorted(os.scandir(real), key=lambda entry: entry.name)
        except OSError:  # an unreadable folder has nothing to grade
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_FOLDERS or os.path.isfile(os.path.join(entry.path, "pyvenv.cfg")) \
                        or _ignored(entry.path, True, rules):
                    continue
                walk(given / entry.name, entry.path, rules)
            elif entry.name.endswith(".py") and entry.is_file() and not _ignored(entry.path, False, rules):
                found.append(given / entry.name)

    walk(folder, root, above)
    return found


def _rules_in(folder: str) -> Rules:
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as file:
            return [(folder, GitIgnoreSpec.from_lines(file.read().splitlines()))]
    except OSError:
        return []


def _rules_above(root: str) -> Rules:
    """The .gitignore files of the folders above `root`, up to its git work tree's root (none outside one)."""
    above: list[str] = []
    for parent in Path(root).parents:
        above.append(str(parent))
        if os.path.exists(os.path.join(parent, ".git")):
            return [rule for folder in reversed(above) for rule in _rules_in(folder)]
    return []


def _ignored(path: str, is_dir: bool, rules: Rules) -> bool:
    for base, spec in reversed(rules):  # the deepest .gitignore that has a say decides
        relative = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
        verdict = spec.check_file(relative).include
        if verdict is not None:
            return verdict
    return False
