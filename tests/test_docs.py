"""The documents a newcomer reads from a clone: what they point to exists in the clone, what they
list is complete, and the install they suggest works without a published package."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def tracked(*patterns: str) -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=REPO, capture_output=True,
                                text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / name for name in listed.split("\0") if name]


def documents() -> list[Path]:
    return [p for p in tracked("*.md") if not p.is_relative_to(REPO / "problems") or p.name == "FORMAT.md"]


def test_documents_point_only_inside_the_clone():
    for doc in documents():
        text = doc.read_text(encoding="utf-8")
        assert "../shared" not in text, f"{doc.relative_to(REPO)} points outside the repository"
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):  # a URL
                continue
            assert (doc.parent / target).exists(), f"{doc.relative_to(REPO)}: link to {target} (not in the clone)"
        if not (REPO / "DESIGN.md").exists():
            assert "DESIGN.md" not in text, f"{doc.relative_to(REPO)} cites DESIGN.md, which a clone does not have"


def test_no_registry_install_is_suggested():
    for doc in [*documents(), REPO / "scripts" / "setup"]:
        text = doc.read_text(encoding="utf-8")
        # `pip install infrakata` or `pipx install 'infrakata[ray]'` fetch a name from a registry that has
        # no such package; installs are from a path (`.`, a checkout, a wheel file).
        registry = re.search(r"pipx? install\s+(?:-\S+\s+)*['\"]?infrakata(?![-\w./])", text)
        assert registry is None, f"{doc.relative_to(REPO)}: {registry.group(0)}"


def test_every_kernel_problem_is_in_the_kernels_page_and_the_gpu_check():
    kernels = [p.slug for p in Catalog.load().problems.values() if p.category == "Kernels"]
    assert len(kernels) >= 5
    page = (DOCS / "KERNELS.md").read_text(encoding="utf-8")
    section = page[page.index("# Kernels and the CUDA benchmark"):]
    gpu_check = (REPO / "benchmarks" / "gpu_check.sh").read_text()
    default = re.search(r'PROBLEMS="\$\{KATA_PROBLEMS:-([^}]*)\}"', gpu_check).group(1).split()
    for slug in kernels:
        assert f"`{slug}`" in section, f"{slug} is missing from docs/KERNELS.md's kernel list"
        assert re.search(rf"\[{slug}\]=\w+\.py", gpu_check), f"{slug} has no kernel in benchmarks/gpu_check.sh"
        assert slug in default, f"{slug} is not benchmarked by default in benchmarks/gpu_check.sh"


def test_the_editors_page_lists_every_command_and_setting_of_the_extension():
    manifest = json.loads((REPO / "vscode-extension" / "package.json").read_text())
    page = (DOCS / "EDITORS.md").read_text(encoding="utf-8")
    section = page[page.index("## VS Code"):page.index("## Neovim")]
    for command in manifest["contributes"]["commands"]:
        assert f"*{command['category']}: {command['title']}*" in section or f"*{command['title']}*" in section, \
            command["title"]
    for setting in manifest["contributes"]["configuration"]["properties"]:
        assert f"`{setting}`" in section, setting


def test_the_e2e_screenshot_is_an_ignored_output_not_a_tracked_file():
    e2e = REPO / "vscode-extension" / "e2e"
    assert [p.name for p in tracked("vscode-extension/e2e")] == ["run.mjs"]
    ignored = subprocess.run(["git", "check-ignore", "-q", str(e2e / "out" / "screenshot.png")], cwd=REPO,
                             check=False, timeout=60)
    assert ignored.returncode == 0, "vscode-extension/e2e/out/ is not ignored"
    assert "join(extensionDir, 'e2e', 'out', 'screenshot.png')" in (e2e / "run.mjs").read_text()
