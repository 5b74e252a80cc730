"""How long a solution that never returns takes to be told so, on a 3 s problem: through a cold
`kata run` process, and through the language server (didOpen/didSave -> publishDiagnostics).

    .venv/bin/python benchmarks/timeout_latency.py [--repeat 3]

A run stops at its first time-limit failure, so the verdict should come within the limit plus the
worker's start (the aim: an infinite loop reported within 5 s), whatever the number of cases.
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
from pathlib import Path

from lsprotocol import types
from save_latency import Client, save_and_wait

SLUG = "adam-optimizer-memory-bytes"  # 3 s per case, 7 cases
LOOP = f"# kata: {SLUG}\ndef adam_memory_bytes(num_params):\n    while True:\n        pass\n"
SLEEP = f"# kata: {SLUG}\nimport time\n\ndef adam_memory_bytes(num_params):\n    time.sleep(3600)\n"


def cold(path: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "run", str(path), "--json"],
                          capture_output=True, text=True)
    return time.perf_counter() - started, json.loads(done.stdout)["verdict"]


async def server(root: Path, sources: list[str]) -> list[float]:
    client = Client()
    await client.start_io(sys.executable, "-m", "infrakata.server")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=root.as_uri()))
    client.initialized(types.InitializedParams())
    path = root / "attempt.py"
    uri = path.as_uri()
    warm = f"# kata: {SLUG}\ndef adam_memory_bytes(num_params):\n    return num_params * 12\n"
    path.write_text(warm)
    opened = client.expect(uri, 1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=warm)))
    await asyncio.wait_for(opened, 120)  # the pool started and the reference cached: not counted
    seconds = []
    for version, text in enumerate(sources, 2):
        elapsed, count = await save_and_wait(client, path, version, text, timeout=120)
        if count == 0:
            raise SystemExit("the server reported no failing case for a solution that never returns")
        seconds.append(elapsed)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        print(f"{SLUG}: 3 s per case, 7 cases; a solution that loops, then one that sleeps an hour")
        for name, source in (("infinite loop", LOOP), ("sleep(3600)", SLEEP)):
            path = root / f"{name.split()[0].split('(')[0]}.py"
            path.write_text(source)
            runs = [cold(path) for _ in range(args.repeat)]
            verdicts = {verdict for _, verdict in runs}
            print(f"  kata run, {name}: median {statistics.median(s for s, _ in runs):.2f} s "
                  f"(max {max(s for s, _ in runs):.2f} s; {', '.join(sorted(verdicts))})")
        saves = asyncio.run(server(root, [LOOP, SLEEP] * args.repeat))
        print(f"  language server, save -> diagnostics: median {statistics.median(saves):.2f} s "
              f"(max {max(saves):.2f} s over {len(saves)} saves)")


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    main()
