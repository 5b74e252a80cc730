"""`kata doctor`: the sandbox's layers on this machine, each as a worker found it, and why any is missing.

The layers are probed by the zygote itself (core/sandbox/zygote.py confines a throwaway worker exactly
as every worker is confined, and tries each layer from inside), so what this says is what a solution
would meet. The language server logs the same once at start; `kata run`, `kata watch`, `kata grade`
and `kata bench` print a one-line warning naming what is missing; with isolation "strict" they refuse
to grade instead. It also lists the GPUs with their compute modes (core/sandbox/gpu.py): on one that
cannot hold grading's several CUDA processes, CUDA work is refused, and this says what to change.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infrakata.core.sandbox.gpu import INTERPRET_CLEARED_NOTE, compute_mode_problem, mode_name
from infrakata.core.sandbox.pool import WorkerPool, cuda_refusal_message, missing_layers
from infrakata.core.sandbox.protocol import Gpu, Layer


@dataclass(frozen=True)
class Reach:
    """Something a solution could do from its worker, and the layers that each keep it from it."""

    what: str
    kept_by: tuple[str, ...]


# Where no layer of a row holds, a solution here could do what it says: `kata doctor` lists it under each
# missing layer that would keep it, and the warning line of `kata run` and the server names it.
REACH = (
    Reach("read {readable}: the catalogue's answers, your workspace and other submissions among them",
          ("view", "landlock")),
    Reach("write {writable}", ("view", "landlock")),
    Reach("see the machine's other processes in /proc, their command lines among them", ("namespaces", "landlock")),
    Reach("signal processes outside its sandbox", ("namespaces", "landlock", "privileges")),
    Reach("connect to the host's Unix sockets (X11, the journal, your own services)", ("view", "seccomp")),
    Reach("use the network", ("namespaces", "seccomp")),
    Reach("hold memory that no process counts (System V segments, memory files)", ("seccomp",)),
    Reach("leave processes running after its run, or start more than 64", ("namespaces", "process tree")),
    Reach("make the system calls no solution needs (ptrace, mount, bpf, keyctl, ...)", ("seccomp",)),
)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _in_container() -> bool:
    return os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv")


def _kernel() -> tuple[int, int]:
    release = platform.release().split("-")[0].split(".")
    try:
        return int(release[0]), int(release[1])
    except (ValueError, IndexError):
        return 0, 0


def fix(layer: Layer, layers: tuple[Layer, ...]) -> str | None:
    """What would give this machine the layer, read off the machine (its kernel, sysctls, container)."""
    root = os.geteuid() == 0
    if layer.name in ("namespaces", "process tree") or layer.name == "view" and not _holds(layers, "namespaces"):
        if root:
            return ("the grader is root but may not make namespaces: " +
                    ("this container refuses unshare; run it with --cap-add SYS_ADMIN --security-opt "
                     "seccomp=unconfined --security-opt apparmor=unconfined (or a seccomp profile allowing "
                     "unshare, mount and pivot_root)" if _in_container() else
                     "a seccomp or AppArmor policy refuses unshare to this process; lift it"))
        for sysctl, wanted in (("kernel/unprivileged_userns_clone", "1"),
                               ("kernel/apparmor_restrict_unprivileged_userns", "0")):
            value = _read(f"/proc/sys/{sysctl}")
            if value is not None and value != wanted:
                return f"sudo sysctl -w {sysctl.replace('/', '.')}={wanted} (it is {value}), or run the grader as root"
        if _read("/proc/sys/user/max_user_namespaces") == "0":
            return "sudo sysctl -w user.max_user_namespaces=15000 (it is 0), or run the grader as root"
        return "run the grader as root (it drops each worker to a uid of its own), or allow user namespaces"
    if layer.name == "view":
        return f"the mounts it is made of were refused ({layer.detail}): run the grader as root"
    if layer.name == "privileges":
        return "run the grader as root: it drops each worker to a uid of its own"
    if layer.name == "landlock":
        major, minor = _kernel()
        lsm = _read("/sys/kernel/security/lsm")
        if (major, minor) < (5, 13):
            return f"this kernel ({platform.release()}) predates Landlock: Linux 6.12 or newer has all of it"
        if "signals are not scoped" in layer.detail:
            return f"Linux 6.12 or newer scopes signals (this is {platform.release()})"
        if lsm is not None and "landlock" not in lsm.split(","):
            return f"add landlock to the kernel's lsm= boot parameter (it lists {lsm})"
        if _in_container():
            return "this container's seccomp profile refuses landlock_create_ruleset: allow it (Docker 26 does)"
        return "the kernel was built without CONFIG_SECURITY_LANDLOCK, or a policy refuses its system calls"
    if layer.name == "seccomp":
        return "install libseccomp (Debian: libseccomp2) and pyseccomp (scripts/setup installs it)"
    return None


def _holds(layers: tuple[Layer, ...] | list[Layer], name: str) -> bool:
    return any(layer.name == name and layer.active for layer in layers)


def exposures(layers: tuple[Layer, ...] | list[Layer]) -> dict[str, list[str]]:
    """Missing layer -> what a solution here could do that no layer holding here keeps it from."""
    own_uid = _holds(layers, "privileges") and os.geteuid() == 0  # then only files' modes stand in the way
    words = {"readable": "every file that any user may read here" if own_uid else "every file you may read",
             "writable": "wherever any user may write here (/tmp, ...)" if own_uid else "every file you may write"}
    found: dict[str, list[str]] = {layer.name: [] for layer in missing_layers(layers)}
    for reach in REACH:
        if not any(_holds(layers, name) for name in reach.kept_by):
            for name in reach.kept_by:
                if name in found:
                    found[name].append(reach.what.format(**words))
    return found


@dataclass
class Diagnosis:
    layers: tuple[Layer, ...]
    isolation: str  # the mode in force: "best" or "strict"
    platform: str
    cuda: bool
    triton: bool
    gpus: tuple[Gpu, ...] = ()  # the visible CUDA devices and their compute modes
    interpret_cleared: bool = False  # an inherited TRITON_INTERPRET=1 was cleared for the workers (CUDA here)
    cuda_layers: tuple[Layer, ...] = ()  # a CUDA worker's layers, as the CUDA probe found them (a CUDA machine)
    cuda_refusal: str = ""  # why the CUDA probe refuses CUDA work here

    @property
    def missing(self) -> list[Layer]:
        return missing_layers(self.layers)

    @property
    def gpu_problem(self) -> str | None:
        """Why CUDA work is refused here (the GPU's compute mode, or the CUDA probe), with the fix."""
        return compute_mode_problem(self.gpus) or cuda_refusal_message(self.cuda_refusal)

    @property
    def notes(self) -> list[str]:
        return [INTERPRET_CLEARED_NOTE] if self.interpret_cleared else []

    def to_dict(self) -> dict[str, Any]:
        exposed = exposures(self.layers)
        return {"platform": self.platform, "isolation": self.isolation, "cuda": self.cuda, "triton": self.triton,
                "layers": [{**vars(layer), "fix": None if layer.active else fix(layer, self.layers),
                            "exposes": exposed.get(layer.name, [])} for layer in self.layers],
                "complete": not self.missing and not missing_layers(self.cuda_layers),
                "gpus": [{**vars(gpu), "mode": mode_name(gpu.mode)} for gpu in self.gpus],
                "cuda_layers": [{**vars(layer), "fix": None if layer.active else fix(layer, self.cuda_layers)}
                                for layer in self.cuda_layers],
                "gpu_problem": self.gpu_problem, "notes": self.notes}


def diagnose(pool: WorkerPool) -> Diagnosis:
    info = pool.wait_ready()
    machine = f"{platform.system()} {platform.release()} ({platform.machine()}), Python {platform.python_version()}"
    return Diagnosis(pool.isolation_layers, pool.isolation, machine, bool(info.get("cuda")), bool(info.get("triton")),
                     pool.gpus, bool(info.get("interpret_cleared")), pool.cuda_isolation_layers, pool.cuda_refusal)


def format_diagnosis(diagnosis: Diagnosis) -> str:
    lines = [f"the sandbox on {diagnosis.platform}"
             f"{', CUDA' if diagnosis.cuda else ', no CUDA'}{', Triton' if diagnosis.triton else ''}:"]
    exposed = exposures(diagnosis.layers)
    for layer in diagnosis.layers:
        mark = "✓" if layer.active else "✗"
        lines.append(f"  {mark} {layer.name:<13} {layer.detail}")
        if layer.active:
            continue
        lines += [f"    {'':<13} without it, a solution here can {what}" for what in exposed.get(layer.name, [])] or \
            [f"    {'':<13} without it, nothing more is in reach: the other layers keep what it would"]
        remedy = fix(layer, diagnosis.layers)
        if remedy:
            lines.append(f"    {'':<13} to have it: {remedy}")
    missing = ", ".join(layer.name for layer in diagnosis.missing)
    if not diagnosis.layers:
        lines.append("no layer could be probed: the platform has no sandbox (Linux has it; on macOS and Windows "
                     "solutions run as your own user, with their time and memory limits only)")
    if missing:
        verdict = ("so grading is refused here (isolation \"strict\")" if diagnosis.isolation == "strict" else
                   "grading runs with the layers above (isolation \"best\"); isolation = \"strict\" would refuse it")
        lines.append(f"missing: {missing}; {verdict}")
    else:
        lines.append(f"every layer holds: isolation = \"strict\" grades here (now: \"{diagnosis.isolation}\")")
    if diagnosis.cuda_layers:
        lines.append("CUDA workers (the CUDA probe: a confined worker launched a kernel, and its output was opened "
                     "by CUDA IPC):" if not diagnosis.cuda_refusal else "CUDA workers, as the CUDA probe found them:")
        for layer in diagnosis.cuda_layers:
            lines.append(f"  {'✓' if layer.active else '✗'} {layer.name:<13} {layer.detail}")
            remedy = None if layer.active else fix(layer, diagnosis.cuda_layers)
            if remedy:
                lines.append(f"    {'':<13} to have it: {remedy}")
        cuda_missing = ", ".join(layer.name for layer in missing_layers(diagnosis.cuda_layers))
        if cuda_missing:
            lines.append(f"missing on CUDA workers: {cuda_missing}; isolation \"strict\" refuses CUDA work here")
    for gpu in diagnosis.gpus:
        lines.append(f"GPU {gpu.index}: {gpu.name} ({gpu.bus_id}), compute mode {mode_name(gpu.mode)}"
                     f"{'' if gpu.index == 0 else ' (unused: workers use the first visible GPU)'}")
    if diagnosis.gpu_problem is not None:
        lines.append(f"✗ CUDA work is refused: {diagnosis.gpu_problem}")
    lines += [f"note: {note}" for note in diagnosis.notes]
    return "\n".join(lines)


def warning_line(layers: tuple[Layer, ...]) -> str | None:
    """The one line `kata run` and friends print when a layer is missing (None: nothing to say): what a
    solution could do here because of it. No layers at all means no worker was confined yet (its pool never
    started), not that every layer is missing: nothing to say either."""
    missing = list({layer.name: layer for layer in missing_layers(layers)}.values())
    if not missing:
        return None
    names = ", ".join(layer.name for layer in missing)
    exposed = list(dict.fromkeys(what for found in exposures(layers).values() for what in found))
    reach = f"a solution here can {'; '.join(exposed)}" if exposed else \
        "the other layers keep what it would, so nothing more is in reach"
    return f"the sandbox lacks {names} on this machine: {reach}. `kata doctor` says how to have it " \
           f"(isolation \"strict\" refuses)"
