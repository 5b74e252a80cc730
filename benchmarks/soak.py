"""The soak: graders killed at any moment leave nothing running, and a verdict holds under load.

    .venv/bin/python benchmarks/soak.py [--kills 200] [--rounds 10] [--katas all] [--load N] [--json FILE]

Every core is kept busy by other work (`--load` busy processes, one per core by default) for the whole run.

kills: `kata run`, `kata grade` and `kata serve` in turn, each killed with SIGKILL or SIGINT at a random
    moment of its life (from its start-up to its last grading), `--kills` times. After each, every
    process it left is found: this process is a child subreaper, so whatever the grader started and
    outlives it (its zygote, spares, workers, a solution's own processes) is reparented here. A
    survivor is one still running 10 s after the grader died; the grader's output pipe must also be
    closed by then (a process holding it hangs whoever reads the grader's output).
verdicts: the model solution (or the reference, where the kata has none) and the first wrong solution
    of every kata, `--rounds` times each, through `kata grade` (start-up included). A flip is a grading
    whose verdict is not the one the file states (accepted for the model solution, `# expect:` for a
    wrong one).

It prints each survivor and flip as found, then the totals; it exits 1 when either is not 0.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import expected_verdict
from infrakata.core.catalog.loading import Catalog

REPO = Path(__file__).resolve().parents[1]
KATA = Path(sys.executable).with_name("kata")
PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 10.0  # after the grader died, what it left has this long to go
KILL_WINDOW_S = 12.0  # the kill lands this far at most into the grader's life (its start-up, its gradings)
GRADER_TIMEOUT_S = 600.0
# Each grader, with each victim: the grader itself (SIGKILL, or SIGINT as from a terminal), or its zygote
# as the OOM killer would take it (SIGKILL) while the grader carries on (the grader is then killed too).
ROUNDS = [(kind, victim) for victim in ("grader SIGKILL", "grader SIGINT", "zygote SIGKILL")
          for kind in ("run", "grade", "serve")]


@dataclass
class Figures:
    kills: int = 0
    survivors: list[str] = field(default_factory=list)  # "grader signal after: pid comm"
    held_output: int = 0  # graders whose output pipe stayed open after they died
    gradings: int = 0
    flips: list[str] = field(default_factory=list)  # "slug file: got V, expected W (message)"
    seconds: dict[str, float] = field(default_factory=dict)


def process_stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, command name) of a live process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            head, tail = stat.read().rsplit(b")", 1)
        fields = tail.split()
        return int(fields[1]), fields[0].decode(), head.split(b"(", 1)[1].decode(errors="replace")
    except (OSError, IndexError, ValueError):
        return None


def descendants(exclude: set[int]) -> dict[int, tuple[str, str]]:
    """This process's descendants (pid -> state, name), outside `exclude` and their trees."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := process_stat(int(entry))) is not None:
            table[int(entry)] = found
    mine: dict[int, tuple[str, str]] = {}
    frontier = [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state, name) in table.items():
            if ppid == parent and pid not in exclude and pid not in mine:
                mine[pid] = (state, name)
                frontier.append(pid)
    return mine


def reap_orphans() -> None:
    """Orphans reparented here that have died (zombies): collected, so that they stop being listed."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def start_load(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


# -- kills ------------------------------------------------------------------------------------------

def _lsp(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def serve_session(folder: Path, solution: Path) -> bytes:
    """What an editor sends: initialize, then the solution opened and saved (each grades it)."""
    uri = solution.as_uri()
    text = solution.read_text(encoding="utf-8")
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    return b"".join(_lsp(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}},
        {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}},
    ))


class _OutputWatch:
    """Reads a grader's output to its end, as a caller capturing it would: `closed` once every holder
    of the pipe is gone."""

    def __init__(self, process: subprocess.Popen[bytes]):
        self.closed = threading.Event()
        assert process.stdout is not None
        threading.Thread(target=self._drain, args=(process.stdout,), daemon=True).start()

    def _drain(self, stream: object) -> None:
        while stream.read(65536):  # type: ignore[attr-defined]
            pass
        self.closed.set()


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += map(int, listing.read().split())
    except (OSError, ValueError):
        pass
    return found


class SpareStopper:
    """The scheduler at its worst: the first spare worker a zygote forks is stopped as soon as it is
    seen (before it has made its session, its namespaces or dropped root), and let go only once that
    zygote is gone. Under load a process can wait that long to run at any point. The zygote: `zygote`,
    or the child of `grader` that is one."""

    def __init__(self, grader: int | None = None, zygote: int | None = None):
        self.grader, self.zygote = grader, zygote
        self.stopped: list[int] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        known: set[int] = set()
        while not self._done.is_set() and not self.stopped:
            if self.zygote is None:
                self.zygote = next((pid for pid in children(self.grader or 0) if (process_stat(pid) or (0, "", ""))[2]
                                    in ("kata-zygote", "kata-spare")), None)
                time.sleep(0.001)
                continue
            try:  # the zygote is single-threaded: its main task's children are all its children
                with open(f"/proc/{self.zygote}/task/{self.zygote}/children") as listing:
                    born = set(map(int, listing.read().split()))
            except (OSError, ValueError):
                return
            for pid in born - known:
                found = process_stat(pid)
                if found is not None and found[2] == "kata-spare":
                    os.kill(pid, signal.SIGSTOP)
                    self.stopped.append(pid)
                    break
            known |= born

    def wait_stopped(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.stopped and time.monotonic() < deadline:
            time.sleep(0.01)

    def release(self, zygote_gone_within: float = 5.0) -> None:
        self._done.set()
        self._thread.join()
        deadline = time.monotonic() + zygote_gone_within
        while self.zygote is not None and time.monotonic() < deadline and \
                (process_stat(self.zygote) or (0, "Z", ""))[1] != "Z":
            time.sleep(0.05)
        for pid in self.stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass


def kill_round(index: int, solutions: list[tuple[str, Path]], folder: Path, rng: random.Random,
               load: set[int], figures: Figures, stop_spares: bool) -> None:
    kind, victim = ROUNDS[index % len(ROUNDS)]
    slug, solution = rng.choice(solutions)
    stdin: bytes | None = None
    if kind == "run":
        command = [str(KATA), "run", str(solution), "--problem", slug]
    elif kind == "grade":
        chosen = rng.sample(solutions, min(6, len(solutions)))
        manifest = folder / f"manifest-{index}.jsonl"
        manifest.write_text("".join(json.dumps({"id": f"{i}", "file": str(path), "problem": s}) + "\n"
                                    for i, (s, path) in enumerate(chosen)))
        command = [str(KATA), "grade", "--manifest", str(manifest), "--out", str(folder / f"out-{index}.jsonl")]
    else:
        command = [str(KATA), "serve"]
        stdin = serve_session(folder, solution)
    # SIGINT as a terminal delivers it: a CI job started in the background ignores it, and so would the grader.
    grader = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=folder, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    watch = _OutputWatch(grader)
    stopper = SpareStopper(grader=grader.pid) if stop_spares else None
    assert grader.stdin is not None
    if stdin is not None:
        grader.stdin.write(stdin)
        grader.stdin.flush()  # kept open: a server whose input ends would leave by itself
    after = rng.uniform(0.0, KILL_WINDOW_S)
    if stopper is not None and victim == "zygote SIGKILL":  # the worst moment: a spare just forked
        stopper.wait_stopped(KILL_WINDOW_S)
        after = 0.0
    try:
        grader.wait(after)
    except subprocess.TimeoutExpired:
        if victim == "zygote SIGKILL":
            for pid in children(grader.pid):
                if (process_stat(pid) or (0, "", ""))[2] in ("kata-zygote", "kata-spare"):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(1.0)
        grader.send_signal(signal.SIGINT if victim == "grader SIGINT" else signal.SIGKILL)
    try:
        grader.wait(30)
    except subprocess.TimeoutExpired:  # SIGINT not heeded: a grader that ignores it is killed
        grader.kill()
        grader.wait()
    grader.stdin.close()
    if stopper is not None:
        stopper.release()
    figures.kills += 1
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        reap_orphans()
        left = {pid: v for pid, v in descendants(load).items() if v[0] != "Z"}
        if not left and watch.closed.is_set():
            return
        time.sleep(0.05)
    what = f"kata {kind}, {victim} after {after:.2f} s" + \
        (f" (spare {stopper.stopped[0]} stopped meanwhile)" if stopper is not None and stopper.stopped else "")
    for pid, (state, name) in left.items():
        figures.survivors.append(f"{what}: {pid} {name} ({state})")
        print(f"survivor: {figures.survivors[-1]}", flush=True)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if not watch.closed.wait(5):
        figures.held_output += 1
        print(f"held output: {what}: the grader's output pipe is still open", flush=True)


# -- verdicts ---------------------------------------------------------------------------------------

def graded_files(katas: int | None) -> list[tuple[str, Path, str]]:
    """(slug, file, expected verdict): each kata's model solution (or reference) and first wrong one."""
    catalog = Catalog.load()
    chosen = []
    for problem in sorted(catalog.problems.values(), key=lambda p: p.slug)[:katas]:
        kind = kind_of(problem)
        model = kind.model_solution(problem) or problem.folder / "reference.py"
        chosen.append((problem.slug, model, "accepted"))
        wrong = kind.wrong_solutions(problem)
        if wrong:
            chosen.append((problem.slug, wrong[0], expected_verdict(wrong[0]) or "?"))
    return chosen


def verdict_rounds(files: list[tuple[str, Path, str]], rounds: int, folder: Path, figures: Figures) -> None:
    manifest = folder / "verdicts.jsonl"
    manifest.write_text("".join(json.dumps({"id": str(i), "file": str(path), "problem": slug}) + "\n"
                                for i, (slug, path, _) in enumerate(files)))
    for round_ in range(rounds):
        out, log = folder / f"verdicts-{round_}.jsonl", folder / f"verdicts-{round_}.log"
        with log.open("wb") as errors:  # a file, not a pipe: nothing that outlives the grader can hold it
            done = subprocess.run([str(KATA), "grade", "--manifest", str(manifest), "--out", str(out)],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                                  timeout=GRADER_TIMEOUT_S, cwd=folder, check=False)
        rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())} if out.exists() else {}
        for i, (slug, path, expected) in enumerate(files):
            row = rows.get(str(i))
            figures.gradings += 1
            verdict = row["verdict"] if row else f"not graded (exit {done.returncode})"
            if verdict != expected:
                cases = [c for c in (row or {}).get("cases", []) if c["status"] not in ("passed", "skipped")]
                detail = f"case {cases[0]['id']}: {cases[0]['message'][:300]}" if cases else \
                    (row or {}).get("reason", log.read_text(errors="replace")[-300:])
                figures.flips.append(f"round {round_ + 1}, {slug} {path.relative_to(REPO)}: got {verdict}, "
                                     f"expected {expected} ({detail})")
                print(f"flip: {figures.flips[-1]}", flush=True)
        print(f"verdicts: round {round_ + 1} of {rounds} done, {len(figures.flips)} flips so far", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--katas", type=int, default=None, help="the first N katas by slug (default: all)")
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2, help="busy processes (default: the cores)")
    parser.add_argument("--no-stopping", action="store_true",
                        help="never stop a spare worker while its grader is killed (see SpareStopper)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1) != 0:
        print("soak: cannot become a child subreaper (Linux only)", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    files = graded_files(args.katas)
    figures = Figures()
    load = start_load(args.load)
    excluded = {p.pid for p in load}
    try:
        with tempfile.TemporaryDirectory(prefix="kata-soak-") as scratch:
            folder = Path(scratch)
            started = time.perf_counter()
            solutions = [(slug, path) for slug, path, verdict in files if verdict == "accepted"]
            for index in range(args.kills):
                kill_round(index, solutions, folder, rng, excluded, figures, not args.no_stopping)
                if (index + 1) % 20 == 0:
                    print(f"kills: {index + 1} of {args.kills}, {len(figures.survivors)} survivors so far",
                          flush=True)
            figures.seconds["kills"] = round(time.perf_counter() - started, 1)
            started = time.perf_counter()
            verdict_rounds(files, args.rounds, folder, figures)
            figures.seconds["verdicts"] = round(time.perf_counter() - started, 1)
    finally:
        for process in load:
            process.kill()
            process.wait()
    print(f"soak (seed {seed}, {args.load} busy processes on {os.cpu_count()} cores): "
          f"{figures.kills} kills, {len(figures.survivors)} survivors, {figures.held_output} held outputs "
          f"({figures.seconds.get('kills', 0)} s); {figures.gradings} gradings of {len(files)} files, "
          f"{len(figures.flips)} flips ({figures.seconds.get('verdicts', 0)} s)")
    if args.json is not None:
        args.json.write_text(json.dumps({"seed": seed, **asdict(figures)}, indent=2))
    return 1 if figures.survivors or figures.held_output or figures.flips else 0


if __name__ == "__main__":
    sys.exit(main())
