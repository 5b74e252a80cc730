"""Warm save-to-diagnostics latency of every kata, through `kata serve` as an editor drives it.

For each kata of the catalogue: its model solution (or its reference, where it has none) is opened
in one warm server (the first grading, which fills the reference cache, is not counted), then saved
`--saves` times, each save a new version (a trailing newline added or taken away), timing each
didSave until the publishDiagnostics of that version arrives. Prints a row per kata (its p50 and
its slowest save) and the summary: the median of the katas' p50s, how many answer under 100 ms, and
the slowest. By default each save follows the last one's diagnostics at once, which leaves the server
no quiet moment between saves; `--pause S` waits S seconds before each, as a learner's saves come.

    .venv/bin/python benchmarks/catalogue_latency.py [--saves 4] [--pause S] [--katas N] [--only SLUG ...]
                                                     [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.loading import Catalog
from lsprotocol import types
from save_latency import Client, save_and_wait

TARGET_MS = 100.0  # a save answered within this feels immediate: every non-kernel kata's aim
FIRST_GRADING_TIMEOUT_S = 300.0  # the reference's outputs are computed then; an interpreter kata takes long


async def kata_latency(client: Client, root: Path, slug: str, source: str, saves: int,
                       pause: float) -> dict[str, object]:
    path = root / f"{slug.replace('-', '_')}_attempt.py"
    uri = path.as_uri()
    texts = [f"# kata: {slug}\n{source.rstrip()}\n", f"# kata: {slug}\n{source.rstrip()}\n\n"]
    path.write_text(texts[0])
    opened = client.expect(uri, 1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=texts[0])))
    _, diagnostics = await asyncio.wait_for(opened, FIRST_GRADING_TIMEOUT_S)
    times = []
    for save in range(saves):
        await asyncio.sleep(pause)
        seconds, diagnostics = await save_and_wait(client, path, save + 2, texts[(save + 1) % 2], timeout=120)
        times.append(seconds * 1e3)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    return {"kata": slug, "p50_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
            "saves_ms": [round(t, 1) for t in times], "diagnostics": diagnostics}


async def main(saves: int, pause: float, katas: int | None, only: list[str]) -> list[dict[str, object]]:
    catalog = Catalog.load()
    chosen = [p for p in sorted(catalog.problems.values(), key=lambda p: p.slug) if not only or p.slug in only][:katas]
    with tempfile.TemporaryDirectory(prefix="kata-catalogue-latency-") as scratch:
        root = Path(scratch)
        client = Client()
        await client.start_io(sys.executable, "-m", "infrakata.server")
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                             root_uri=root.as_uri()))
        client.initialized(types.InitializedParams())
        rows = []
        try:
            for problem in chosen:
                model = kind_of(problem).model_solution(problem)
                source = model.read_text(encoding="utf-8") if model is not None else problem.reference_source
                row = await kata_latency(client, root, problem.slug, source, saves, pause)
                row["kernel"] = problem.category == "Kernels"
                rows.append(row)
                flag = "" if row["diagnostics"] == 0 else f"  ({row['diagnostics']} diagnostics: not accepted)"
                print(f"{problem.slug:<40}{row['p50_ms']:>9.1f} ms{row['max_ms']:>9.1f} ms{flag}", flush=True)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
    return rows


def summary(rows: list[dict[str, object]]) -> str:
    p50s = {str(r["kata"]): float(str(r["p50_ms"])) for r in rows}
    plain = [p50s[str(r["kata"])] for r in rows if not r["kernel"]]
    slowest = sorted(p50s.items(), key=lambda item: -item[1])[:5]
    return (f"{len(rows)} katas: median p50 {statistics.median(p50s.values()):.1f} ms; "
            f"{sum(v <= TARGET_MS for v in plain)} of {len(plain)} non-kernel katas at or under {TARGET_MS:.0f} ms; "
            f"slowest: " + ", ".join(f"{slug} {ms:.0f} ms" for slug, ms in slowest))


if __name__ == "__main__":
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kata-bench-data-")  # its gradings are not your progress
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=4, help="timed saves per kata (default 4)")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds before each save (default 0: right after the last one's diagnostics)")
    parser.add_argument("--katas", type=int, default=None, help="the first N katas by slug (default: all)")
    parser.add_argument("--only", nargs="+", default=[], metavar="SLUG", help="these katas alone")
    parser.add_argument("--json", type=Path, default=None, help="write every kata's figures here")
    args = parser.parse_args()
    print(f"{'kata':<40}{'p50':>12}{'slowest':>12}")
    figures = asyncio.run(main(args.saves, args.pause, args.katas, args.only))
    print(summary(figures))
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": summary(figures), "katas": figures}, indent=2))
