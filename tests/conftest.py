"""Shared fixtures: one warm worker pool and runner for the whole session, like the server keeps."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox.pool import WorkerPool

REPO = Path(__file__).resolve().parents[1]
# Progress outside a workspace goes to the per-user store: in tests, a fresh one (inherited by
# every `kata`, server and Neovim process a test starts), never the developer's own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="infrakata-test-data-")

KATA = Path(sys.executable).with_name("kata")
CLI_PROBLEMS = REPO / "tests" / "server" / "fixtures" / "problems"  # fixture-scale and friends

SEEDS = next((p for p in (REPO / "shared" / "seeds", REPO.parent / "shared" / "seeds") if p.is_dir()), None)


@pytest.fixture(scope="session")
def pool() -> WorkerPool:
    pool = WorkerPool()
    pool.start()
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def runner(pool: WorkerPool) -> Runner:
    return Runner(pool)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture(scope="session")
def seeds() -> Path:
    if SEEDS is None:
        pytest.skip("the seed documents (shared/seeds) are not beside this checkout")
    return SEEDS


@pytest.fixture
def kata(tmp_path: Path):
    """The real `kata` binary on the fixture problems, with a per-user store of the test's own:
    kata(*args, cwd=..., stdin=..., columns=...) -> the finished process; .data is the store, .problems
    the fixture catalogue."""
    data = tmp_path / "user-data"

    def run(*args: str, cwd: Path = tmp_path, stdin: str | None = None,
            columns: int = 200) -> subprocess.CompletedProcess:
        env = {**os.environ, "XDG_DATA_HOME": str(data), "COLUMNS": str(columns)}
        return subprocess.run([str(KATA), "--problems", str(CLI_PROBLEMS), *args], capture_output=True, text=True,
                              cwd=cwd, env=env, timeout=240, input=stdin, check=False)

    run.data = data
    run.problems = CLI_PROBLEMS
    return run
