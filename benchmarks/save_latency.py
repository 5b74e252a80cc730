"""Save-to-diagnostics latency of `kata serve`, beside a cold `kata run` process per save.

Drives the real server over stdio as an editor would: for each problem, open a solution, then
save it N times alternating a correct and a wrong version (didChange + the file written to disk
+ didSave), timing each didSave until the publishDiagnostics of that version arrives. After each
save, the same file is graded by a fresh `kata run` process, timed from spawn to exit.

    python benchmarks/save_latency.py [--saves 30] [--cold 30] [--no-seeds] [--inline-values off]

Problems: the two scalar seed problems as bundled (adam-optimizer-memory-bytes,
activation-checkpointing-sqrt-memory) and, unless --no-seeds, the seed codestar JSON files
themselves (loaded through problemPaths, with their slugs prefixed `seed-` so they do not clash
with the bundled ones), which grade through their own test_code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parents[1]
SEEDS = next((p for p in (REPO / "shared" / "seeds", REPO.parent / "shared" / "seeds") if p.is_dir()), None)

ADAM = ("def adam_memory_bytes(num_params: int) -> int:\n    return num_params * 12\n",
        "def adam_memory_bytes(num_params: int) -> int:\n    return num_params * 8\n")
CHECKPOINT = (
    "def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):\n"
    "    n = -(-num_layers // checkpoint_interval)\n"
    "    last = num_layers - (n - 1) * checkpoint_interval\n"
    "    full = (n - 1) * boundary_input_mb + checkpoint_interval * layer_act_mb if n > 1 else 0.0\n"
    "    return float(max(n * boundary_input_mb + last * layer_act_mb, full))\n",
    "def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):\n"
    "    return float(num_layers * layer_act_mb)\n",
)
SOLUTIONS = {"adam-optimizer-memory-bytes": ADAM, "activation-checkpointing-sqrt-memory": CHECKPOINT}


@dataclass
class Figures:
    problem: str
    server_ms: list[float] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


class Client(LanguageClient):
    """Resolves a future when the diagnostics of (uri, version) arrive."""

    def __init__(self) -> None:
        super().__init__("save-latency", "1")
        self.waiting: dict[tuple[str, int], asyncio.Future] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(client: Client, params: types.PublishDiagnosticsParams) -> None:
            future = client.waiting.pop((params.uri, params.version), None)
            if future is not None and not future.done():
                future.set_result((time.perf_counter(), len(params.diagnostics)))

        @self.feature("kata/result")
        def result(client: Client, params: object) -> None:
            pass  # the diagnostics are what is timed

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def message(client: Client, params: types.ShowMessageParams) -> None:
            print(f"  server says: {params.message}", file=sys.stderr)

    def expect(self, uri: str, version: int) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self.waiting[(uri, version)] = future
        return future


async def save_and_wait(client: Client, path: Path, version: int, text: str, timeout: float) -> tuple[float, int]:
    """Edit an open document to `text`, write it, save it: -> (seconds from didSave to that version's
    diagnostics, how many there were)."""
    uri = path.as_uri()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=version, uri=uri),
        [types.TextDocumentContentChangeWholeDocument(text)]))
    path.write_text(text)
    published = client.expect(uri, version)
    started = time.perf_counter()
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    arrived, count = await asyncio.wait_for(published, timeout)
    return arrived - started, count


def cold_run(path: Path, problems: list[str], slug: str) -> tuple[float, int]:
    command = [sys.executable, "-m", "infrakata.core.cli"]
    for extra in problems:
        command += ["--problems", extra]
    started = time.perf_counter()
    done = subprocess.run(command + ["run", str(path), "--problem", slug, "--json"], capture_output=True, text=True)
    elapsed = (time.perf_counter() - started) * 1e3
    if done.returncode not in (0, 1):
        raise SystemExit(f"cold `kata run` could not grade {path}: {done.stderr.strip()}")
    return elapsed, len([c for c in json.loads(done.stdout)["cases"] if c["status"] != "passed"])


async def measure(client: Client, root: Path, slug: str, versions: tuple[str, str], saves: int, cold: int,
                  problems: list[str]) -> Figures:
    figures = Figures(slug)
    path = root / f"{slug.replace('-', '_')}_attempt.py"
    uri = path.as_uri()
    texts = [f"# kata: {slug}\n{text}" for text in versions]
    path.write_text(texts[0])
    opened = client.expect(uri, 1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=texts[0])))
    await asyncio.wait_for(opened, 120)  # the first grading warms the reference cache: not counted
    for save in range(saves):
        version, text = save + 2, texts[(save + 1) % 2]
        seconds, count = await save_and_wait(client, path, version, text, timeout=60)
        if (count == 0) != (text == texts[0]):
            raise SystemExit(f"{slug}: version {version} got {count} diagnostics; the grading is wrong")
        figures.server_ms.append(seconds * 1e3)
        if save < cold:
            elapsed, failing = await asyncio.to_thread(cold_run, path, problems, slug)
            if (failing == 0) != (text == texts[0]):
                raise SystemExit(f"{slug}: cold `kata run` found {failing} failing cases on version {version}")
            figures.cold_ms.append(elapsed)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    return figures


def seed_copies(folder: Path) -> dict[str, tuple[str, str]]:
    """The seed codestar JSONs, slugs prefixed `seed-`, written into `folder`."""
    solutions = {}
    for slug, versions in SOLUTIONS.items():
        data = json.loads((SEEDS / f"codestar-{slug}.json").read_text(encoding="utf-8"))
        data["slug"] = f"seed-{slug}"
        (folder / f"codestar-{slug}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        # The seed's own reference is its right answer (the native checkpointing kata's differs from it).
        solutions[data["slug"]] = (data["reference_code"], versions[1])
    return solutions


async def main(saves: int, cold: int, seeds: bool, inline_values: bool = True) -> list[Figures]:
    with tempfile.TemporaryDirectory(prefix="kata-latency-") as tmp:
        root = Path(tmp)
        problems, solutions = [], dict(SOLUTIONS)
        if seeds and SEEDS is not None:
            (root / "seeds").mkdir()
            solutions.update(seed_copies(root / "seeds"))
            problems.append(str(root / "seeds"))
        client = Client()
        await client.start_io(sys.executable, "-m", "infrakata.server")
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=root.as_uri(),
            initialization_options={"infrakata": {"problemPaths": problems, "inlineValues": inline_values}}))
        client.initialized(types.InitializedParams())
        try:
            results = [await measure(client, root, slug, versions, saves, cold, problems)
                       for slug, versions in solutions.items()]
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
        return results


def report(results: list[Figures]) -> None:
    print(f"{'problem':<42}{'saves':>6}{'server p50':>12}{'p95':>9}{'cold p50':>11}{'p95':>9}{'speed-up':>10}")
    for f in results:
        cold50 = statistics.median(f.cold_ms) if f.cold_ms else float("nan")
        cold95 = percentile(f.cold_ms, 95) if f.cold_ms else float("nan")
        p50 = statistics.median(f.server_ms)
        print(f"{f.problem:<42}{len(f.server_ms):>6}{p50:>10.1f}ms{percentile(f.server_ms, 95):>7.1f}ms"
              f"{cold50:>9.0f}ms{cold95:>7.0f}ms{cold50 / p50:>9.1f}x")


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=30, help="saves per problem (alternating correct, wrong)")
    parser.add_argument("--cold", type=int, default=30, help="cold `kata run` processes per problem (one per save)")
    parser.add_argument("--no-seeds", dest="seeds", action="store_false", help="skip the seed codestar JSON copies")
    parser.add_argument("--inline-values", choices=("on", "off"), default="on",
                        help="the server's inlineValues setting (on: each wrong save records its values)")
    args = parser.parse_args()
    report(asyncio.run(main(args.saves, args.cold, args.seeds, args.inline_values == "on")))
