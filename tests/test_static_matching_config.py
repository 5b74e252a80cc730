"""Static positions, file -> problem matching, and settings with their warnings."""

from __future__ import annotations

from pathlib import Path

import pytest
from infrakata.core.catalog.matching import match_problem
from infrakata.core.config import find_workspace, load_settings
from infrakata.core.errors import NoMatch
from infrakata.core.grading.static import check, find_entry_point


def test_syntax_error_position():
    [finding] = check("def f(x):\n    return (x +\n", (), ())
    assert (finding.code, finding.line, finding.column) == ("syntax-error", 2, 12)
    assert finding.message == "SyntaxError: '(' was never closed"


def test_forbidden_import_and_call_positions_in_characters():
    source = "import json, os\ns = '数据'; v = eval('1')\n"
    findings = check(source, ("os",), ("eval",))
    assert [(f.code, f.line, f.column, f.end_column) for f in findings] == [
        ("forbidden-module", 1, 14, 16), ("forbidden-call", 2, 15, 19)]


def test_from_import_and_reference_of_forbidden_callable():
    findings = check("from os.path import join\nrun = exec\n", ("os",), ("exec",))
    assert [f.code for f in findings] == ["forbidden-module", "forbidden-call"]
    assert "even as a reference" in findings[1].message


def test_entry_point_position_is_the_name():
    assert find_entry_point("import torch\n\ndef  lora_forward(x):\n    pass\n", "lora_forward") == (3, 6)
    assert find_entry_point("def other():\n    pass\n", "lora_forward") is None


def test_matching_order(catalog, tmp_path):
    settings, _ = load_settings(None)
    header = "# kata: edit-distance\ndef adam_memory_bytes(n):\n    return n\n"
    assert match_problem(tmp_path / "adam_optimizer_memory_bytes.py", header, catalog, settings).slug == \
        "edit-distance"
    assert match_problem(tmp_path / "adam-optimizer-memory-bytes.py", "", catalog, settings).slug == \
        "adam-optimizer-memory-bytes"
    assert match_problem(tmp_path / "mine.py", "def edit_distance(a, b):\n    pass\n", catalog, settings).slug == \
        "edit-distance"
    with pytest.raises(NoMatch, match=r"'# kata: nope'.*no problem 'nope'"):
        match_problem(tmp_path / "x.py", "# kata: nope\n", catalog, settings)
    with pytest.raises(NoMatch, match="kata.toml under \\[files\\]"):
        match_problem(tmp_path / "x.py", "x = 1\n", catalog, settings)


def test_workspace_mapping_and_settings_warnings(catalog, tmp_path):
    (tmp_path / "kata.toml").write_text(
        'debounce_ms = "fast"\ngrade_on = "type"\n\n[files]\n"work/*.py" = "lora-forward"\n')
    (tmp_path / "work").mkdir()
    assert find_workspace(tmp_path / "work") == tmp_path
    settings, warnings = load_settings(tmp_path, {"watchFiles": "yes", "problemPaths": ["extra"]})
    assert settings.grade_on == "type" and settings.debounce_ms == 400 and settings.watch_files is True
    assert settings.problem_paths == (tmp_path / "extra",)
    assert any("'debounce_ms' must be an integer >= 0" in w and "kata.toml" in w for w in warnings)
    assert any("'watchFiles' must be true or false" in w for w in warnings)
    solution = tmp_path / "work" / "attempt.py"
    assert match_problem(solution, "", catalog, settings, tmp_path).slug == "lora-forward"


def test_a_warning_names_the_key_as_the_user_wrote_it(tmp_path):
    (tmp_path / "kata.toml").write_text('problems = "extra"\nfiles = ["a.py"]\nproblem = []\n')
    settings, warnings = load_settings(tmp_path)
    assert settings.problem_paths == () and settings.file_map == {}
    assert any(w.startswith(f"{tmp_path / 'kata.toml'}: 'problems' must be a list of paths") for w in warnings)
    assert any("'files' must be a table" in w for w in warnings)
    unknown = next(w for w in warnings if "'problem'" in w)
    assert "known: debounce_ms, files, grade_on, inline_values, isolation, problems, watch_files" in unknown
    assert not any("problem_paths" in w or "file_map" in w for w in warnings), warnings


def test_broken_kata_toml_gives_defaults_and_a_warning(tmp_path):
    (tmp_path / "kata.toml").write_text("grade_on = \n")
    settings, warnings = load_settings(tmp_path)
    assert settings.grade_on == "save" and "invalid TOML" in warnings[0]


def test_layers_keep_their_floors():
    """core never imports the server, and kernels import nothing from core (the layers' floors: README.md, Layout)."""
    import ast

    repo = Path(__file__).resolve().parents[1]

    def imported(folder: str) -> set[str]:
        names = set()
        for path in (repo / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module)
        return names

    assert not {n for n in imported("core") if n.startswith(("infrakata.server", "pygls", "lsprotocol"))}
    assert not {n for n in imported("kernels") if n.startswith("infrakata.core")}


def _import_graph(root: Path, package: str, type_checking: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of `package` it imports when it runs (at its top or deferred in a function;
    not under `if TYPE_CHECKING:`, which never runs, unless `type_checking`: a dependency all the same)."""
    import ast

    modules = {package + "".join(f".{part}" for part in path.relative_to(root).with_suffix("").parts)
               .removesuffix(".__init__"): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) and not type_checking:
                node.body = []
        found = set()
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                base = ".".join(here.split(".")[:len(here.split(".")) - node.level + 1]) if node.level else ""
                module = ".".join(part for part in (base, node.module) if part)
                targets = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                # A package's __init__ runs before its modules, so importing it is no edge back.
                if target and target != name and not name.startswith(f"{target}."):
                    found.add(target)
        graph[name] = found
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import circle, as the path that closes it."""
    circles, done, path = [], set(), []

    def visit(module: str) -> None:
        if module in path:
            circles.append(path[path.index(module):] + [module])
            return
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph[module]):
            visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    return circles


@pytest.mark.parametrize("folder,package", [("core", "infrakata.core"), ("server", "infrakata.server")])
def test_no_import_circle(folder, package):
    """Each module builds on ones that do not need it back; no deferred import hides a circle."""
    repo = Path(__file__).resolve().parents[1]
    circles = _circles(_import_graph(repo / folder, package))
    assert not circles, "\n".join(" -> ".join(circle) for circle in circles)


def test_an_import_circle_is_found(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    from pkg.b import g\n")  # deferred: still a circle
    (tmp_path / "b.py").write_text("from pkg.a import f\n")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n")
    (tmp_path / "d.py").write_text("from . import e\n")  # relative imports count too
    (tmp_path / "e.py").write_text("from .d import x\n")
    assert _circles(_import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.b", "pkg.a"], ["pkg.d", "pkg.e", "pkg.d"]]


# core/'s folders, each building on those before it only (docs/ARCHITECTURE.md); the modules at core/'s top are
# the shared leaves, under all of them.
FOLDER_ORDER = ("sandbox", "catalog", "progress", "grading", "bench", "maintenance", "batch", "cli")


def _backward(graph: dict[str, set[str]], package: str, order: tuple[str, ...]) -> list[str]:
    """Each import of a folder later in `order` than the importer's own (a leaf is before every folder)."""
    def rank(module: str) -> int:
        folder = module.removeprefix(f"{package}.").split(".")[0]
        return order.index(folder) + 1 if folder in order else 0

    return sorted(f"{module} -> {imported}" for module, imports in graph.items() for imported in imports
                  if rank(imported) > rank(module))


def test_cores_folders_depend_one_way():
    """Each folder imports only the leaves and the folders before it, deferred and type-checking imports
    counted: a change in one never needs a change in one below it."""
    repo = Path(__file__).resolve().parents[1]
    graph = _import_graph(repo / "core", "infrakata.core", type_checking=True)
    folders = {path.parent.name for path in (repo / "core").glob("*/__init__.py")}
    assert folders == set(FOLDER_ORDER), "a folder of core/ is missing from FOLDER_ORDER (or one listed there is gone)"
    assert not _backward(graph, "infrakata.core", FOLDER_ORDER), "\n".join(
        _backward(graph, "infrakata.core", FOLDER_ORDER))
    api = _import_graph(repo / "infrakata", "infrakata", type_checking=True)
    assert not {module for imports in api.values() for module in imports
                if module.startswith(("infrakata.core.cli", "infrakata.server"))}, "the API builds on core only"


def test_an_import_against_the_order_is_found(tmp_path):
    checking_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high.b import g\n"
    deferred = "def g():\n    from pkg.low.a import f\n"  # high on low: the order's way
    for folder, name, text in (("low", "a.py", checking_only), ("high", "b.py", deferred)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(text)
    (tmp_path / "leaf.py").write_text("from pkg.low.a import f\n")
    graph = _import_graph(tmp_path, "pkg", type_checking=True)
    assert _backward(graph, "pkg", ("low", "high")) == ["pkg.leaf -> pkg.low.a", "pkg.low.a -> pkg.high.b"]


def test_the_servers_features_meet_only_through_the_server():
    """A feature (a server/ module with a `register(server)`) imports no other feature, and server.py none:
    what two features share is the server's (KataServer's methods, convert, arguments, progress)."""
    repo = Path(__file__).resolve().parents[1]
    graph = _import_graph(repo / "server", "infrakata.server", type_checking=True)
    features = {f"infrakata.server.{path.stem}" for path in (repo / "server").glob("*.py")
                if "\ndef register(" in path.read_text(encoding="utf-8")}
    assert {"infrakata.server.commands", "infrakata.server.learning", "infrakata.server.hover",
            "infrakata.server.diagnostics", "infrakata.server.watcher"} <= features
    # The server offers events its features subscribe to, and calls none of them by name (nor does a helper).
    assert not graph["infrakata.server.server"] & features, "server.py imports a feature: " + ", ".join(
        sorted(graph["infrakata.server.server"] & features))
    composing = "infrakata.server.app"  # registers every feature: the one place that names them all
    crossing = sorted(f"{module} -> {imported}" for module, imports in graph.items() if module != composing
                      for imported in imports & features if imported != module)
    assert not crossing, "\n".join(crossing)


# Where a kind lives: its modules in these two folders, named for it, and the one table (catalog/kinds KINDS).
KINDS_HOMES = ("core/catalog/kinds/", "core/grading/kinds/")


def _kind_comparisons(path: Path, text: str, kinds: set[str], sources: set[str]) -> list[str]:
    """Each place in a module that asks which kind a problem is: a comparison with a kind's name or of a problem's
    `.kind` with a string, a kind's name used as a key, an isinstance test of a kind's source type."""
    import ast

    found = []
    for node in ast.walk(ast.parse(text)):
        parts = [node.left, *node.comparators] if isinstance(node, ast.Compare) else \
            [node.slice] if isinstance(node, ast.Subscript) else []
        named = any(isinstance(part, ast.Constant) and part.value in kinds for part in parts)
        by_attribute = isinstance(node, ast.Compare) and any(
            isinstance(part, ast.Attribute) and part.attr == "kind" and ast.unparse(part.value).endswith("problem")
            for part in parts) and any(
            isinstance(part, ast.Constant) and isinstance(part.value, str) for part in parts)
        by_type = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
            and len(node.args) == 2 and bool(sources & {ast.unparse(node.args[1])})
        if named or by_attribute or by_type:
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_nothing_outside_the_kinds_homes_asks_a_problems_kind():
    """A kind's modules (core/catalog/kinds/<kind>.py, core/grading/kinds/<kind>.py) say everything the rest asks
    of it, through the kind's methods: so adding a kind touches its own modules and KINDS, and nothing else."""
    import importlib
    import inspect

    from infrakata.core.catalog.kinds import KINDS

    repo = Path(__file__).resolve().parents[1]
    sources = {name for kind in KINDS.values() for name, value in vars(inspect.getmodule(kind)).items()
               if name.endswith("Source") and inspect.isclass(value)}
    assert len(sources) == len(KINDS)
    found = [hit for folder in ("core", "server", "infrakata") for path in sorted((repo / folder).rglob("*.py"))
             if not str(path.relative_to(repo)).startswith(KINDS_HOMES)
             for hit in _kind_comparisons(path.relative_to(repo), path.read_text(encoding="utf-8"), set(KINDS),
                                          sources)]
    assert not found, "\n".join(found)
    for name, kind in KINDS.items():  # each kind's two homes, named for it
        assert Path(inspect.getfile(type(kind))) == repo / "core/catalog/kinds" / f"{name}.py"
        driver = importlib.import_module(f"infrakata.core.grading.kinds.{name}").DRIVER
        assert Path(inspect.getfile(type(driver))) == repo / "core/grading/kinds" / f"{name}.py"


def test_a_kind_asked_outside_its_home_is_found(tmp_path):
    text = ('if problem.kind == "leetgpu":\n    pass\nbench = {"kernelbench": 1}["kernelbench"]\n'
            'ok = isinstance(problem.source, NativeSource)\nsame = value.kind == "output"\n'
            'if job.problem.kind != "native":\n    pass\n')
    found = _kind_comparisons(Path("m.py"), text, {"leetgpu", "kernelbench"}, {"NativeSource"})
    assert [hit.split(":")[1] for hit in found] == ["1", "3", "4", "6"]
