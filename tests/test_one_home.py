"""Terms the Python side and the VS Code extension both spell have one home, on the Python side:
the extension's copies (TypeScript types, package.json's settings) are checked against it."""

import json
import re
from pathlib import Path
from typing import get_args

from infrakata.core.config import SCHEMA, Settings
from infrakata.core.grading.results import VERDICTS, CaseStatus

EXTENSION = Path(__file__).resolve().parents[1] / "vscode-extension"
CLIENT_ONLY = {"python", "trace.server"}  # the extension's own: which interpreter, and LSP tracing


def ts_union(source: str, name: str) -> tuple[str, ...]:
    """The string literals of `export type <name> = 'a' | 'b' ...;`."""
    match = re.search(rf"export type {name} =([^;]*);", source)
    assert match, f"no type {name} in report.ts"
    return tuple(re.findall(r"'([a-z_]+)'", match.group(1)))


def test_the_extension_knows_every_verdict_and_case_status():
    report = (EXTENSION / "src" / "report.ts").read_text(encoding="utf-8")
    assert ts_union(report, "Verdict") == VERDICTS
    assert ts_union(report, "CaseStatus") == get_args(CaseStatus)


def test_kata_grades_table_has_a_short_heading_for_every_verdict():
    from infrakata.core.cli.grade import SHORT, VERDICT_COLUMNS

    assert set(SHORT) == set(VERDICT_COLUMNS) and len(set(SHORT.values())) == len(SHORT)


def test_the_extensions_settings_are_the_schemas():
    declared = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["contributes"]["configuration"]
    properties = {key.removeprefix("infrakata."): value for key, value in declared["properties"].items()}
    offered = {setting.editor_key: setting for setting in SCHEMA if setting.in_vscode}
    assert set(properties) - CLIENT_ONLY == set(offered)
    for key, setting in offered.items():
        declared_default = properties[key]["default"]
        default = getattr(Settings(), setting.name)
        assert declared_default == (list(default) if isinstance(default, tuple) else default), key
        assert tuple(properties[key].get("enum", ())) == setting.choices, key
    settings_ts = (EXTENSION / "src" / "settings.ts").read_text(encoding="utf-8")
    interface = re.search(r"export interface ServerSettings \{(.*?)\n\}", settings_ts, re.S).group(1)
    assert set(re.findall(r"^\s*(\w+):", interface, re.M)) == set(offered)
    ts_defaults = re.search(r"DEFAULTS[^=]*= Object\.freeze\(\{(.*?)\}\)", settings_ts, re.S).group(1)
    for key, value in re.findall(r"(\w+): ([^,\n]+),", ts_defaults):
        default = getattr(Settings(), offered[key].name)
        assert json.loads(value.replace("'", '"')) == (list(default) if isinstance(default, tuple) else default), key
