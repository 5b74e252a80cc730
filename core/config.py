"""kata.toml / [tool.kata] / editor settings -> typed Settings.

An invalid value is a warning naming the file (or setting) and the fix; the default applies.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

GRADE_ON = ("save", "type")
ISOLATION = ("best", "strict")  # the sandbox's layers: the best this machine has, or all of them (kata doctor)


@dataclass(frozen=True)
class Settings:
    """How a workspace grades, merged from kata.toml (or [tool.kata]), the editor's settings and the command
    line, each checked against SCHEMA on the way in: invalid values are reported and fall back, never raised."""

    grade_on: str = "save"
    debounce_ms: int = 400
    problem_paths: tuple[Path, ...] = ()
    watch_files: bool = True
    file_map: dict[str, str] = field(default_factory=dict)  # glob (relative to the workspace) -> slug or path
    isolation: str = "best"  # "strict": refuse to grade unless every layer of the sandbox holds
    inline_values: bool = True  # the first failing case's values beside the code (inlay hints, hover)


@dataclass(frozen=True)
class Setting:
    """One setting, as every client spells it: the one schema the VS Code extension's package.json and
    settings.ts are checked against (tests/test_one_home.py)."""

    name: str  # in Settings, where its default is
    toml_key: str  # in kata.toml or [tool.kata]
    editor_key: str  # in an editor's `infrakata` settings (camelCase)
    check: Callable[[Any], bool]
    expect: str  # what a valid value is, for messages
    choices: tuple[str, ...] = ()
    # What an invalid value gives instead of the default: a security setting with a typo fails closed.
    fallback: Any = None
    # The VS Code extension offers it. The file map is a workspace's (kata.toml, shared with the terminal);
    # an LSP client may still send it.
    in_vscode: bool = True


def _is_delay(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


SCHEMA: tuple[Setting, ...] = (
    Setting("grade_on", "grade_on", "gradeOn", lambda v: v in GRADE_ON, '"save" or "type"', GRADE_ON),
    Setting("debounce_ms", "debounce_ms", "debounceMs", _is_delay, "an integer >= 0 (milliseconds)"),
    Setting("problem_paths", "problems", "problemPaths",
            lambda v: isinstance(v, list) and all(isinstance(p, str) for p in v), "a list of paths"),
    Setting("watch_files", "watch_files", "watchFiles", lambda v: isinstance(v, bool), "true or false"),
    Setting("file_map", "files", "fileMap",
            lambda v: isinstance(v, dict) and all(isinstance(s, str) for s in v.values()), 'a table of "glob" = "slug"',
            in_vscode=False),
    Setting("isolation", "isolation", "isolation", lambda v: v in ISOLATION, '"best" or "strict"', ISOLATION,
            fallback="strict"),
    Setting("inline_values", "inline_values", "inlineValues", lambda v: isinstance(v, bool), "true or false"),
)


def find_workspace(start: Path) -> Path | None:
    """The nearest folder with a kata.toml, or a pyproject.toml with [tool.kata]."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        if (folder / "kata.toml").is_file():
            return folder
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "[tool.kata" in pyproject.read_text(encoding="utf-8", errors="replace"):
            return folder
    return None


def _file_table(workspace: Path, warnings: list[str]) -> tuple[dict[str, Any], str]:
    kata_toml = workspace / "kata.toml"
    pyproject = workspace / "pyproject.toml"
    def whole(data: dict[str, Any]) -> dict[str, Any]:
        return data

    def tool_kata(data: dict[str, Any]) -> dict[str, Any]:
        table: dict[str, Any] = data.get("tool", {}).get("kata", {})
        return table

    for path, pick in ((kata_toml, whole), (pyproject, tool_kata)):
        if not path.is_file():
            continue
        try:
            table = pick(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as error:
            warnings.append(f"{path}: invalid TOML ({error}); using the defaults")
            return {}, str(path)
        if path == pyproject and not table:
            continue
        return dict(table), str(path)
    return {}, ""


def _apply(settings: Settings, values: Mapping[str, Any], source: str, editor: bool, base: Path | None,
           warnings: list[str]) -> Settings:
    changes: dict[str, Any] = {}
    # Messages name a setting as the user wrote it.
    known = {(setting.editor_key if editor else setting.toml_key): setting for setting in SCHEMA}
    for name, value in values.items():
        setting = known.get(name)
        if setting is None:
            warnings.append(f"{source}: unknown setting '{name}' ignored (known: {', '.join(sorted(known))})")
            continue
        key = setting.name
        if not setting.check(value):
            if setting.fallback is not None:  # fails closed: the safe value, not the default
                warnings.append(f"{source}: '{name}' must be {setting.expect}, got {value!r}; using "
                                f"{setting.fallback!r} until it is fixed (a security setting never relaxes on a typo)")
                changes[key] = setting.fallback
                continue
            warnings.append(f"{source}: '{name}' must be {setting.expect}, got {value!r}; using the default "
                            f"{getattr(Settings(), key)!r}")
            continue
        if key == "problem_paths":
            value = tuple((base / p if base and not Path(p).expanduser().is_absolute() else Path(p).expanduser())
                          for p in value)
        changes[key] = value
    return replace(settings, **changes)


def load_settings(workspace: Path | None, overrides: Mapping[str, Any] | None = None) -> tuple[Settings, list[str]]:
    """Defaults, then the workspace's kata.toml or [tool.kata], then editor settings (camelCase)."""
    warnings: list[str] = []
    settings = Settings()
    if workspace is not None:
        table, source = _file_table(workspace, warnings)
        settings = _apply(settings, table, source, False, workspace, warnings)
    if overrides:
        if not isinstance(overrides, Mapping):
            warnings.append(f"editor settings: 'infrakata' must be an object, got {overrides!r}; using the defaults")
        else:
            settings = _apply(settings, overrides, "editor settings", True, workspace, warnings)
    return settings, warnings
