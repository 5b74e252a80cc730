"""`kata doctor`: the sandbox's layers on this machine, each as a worker found it, and why any is missing.

The layers are probed by the zygote itself (core/sandbox/zygote.py confines a throwaway worker exactly
as every worker is confined, and tries each layer from inside), so what this says is what a solution
would meet. The language server logs the same once at start; `kata run`, `kata watch`, `kata grade`
and `kata bench` print a one-line warning naming what is missing; with isolation "strict" they refuse
to grade instead. It also lists the GPUs with their compute modes (core/sandbox/gpu.py): on one that
cannot hold grading's several CUDA processes, CUDA work is refused, and this says what to change.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from typing import Any

from .sandbox.gpu import INTERPRET_CLEARED_NOTE, compute_mode_problem, mode_name
from .sandbox.pool import WorkerPool, missing_layers
from .sandbox.protocol import Gpu, Layer

FIXES = {
    "namespaces": "run as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; "
                  "on Ubuntu 24.04+, kernel.apparmor_restrict_unprivileged_userns=0); in a container, allow "
                  "unshare (Docker: --security-opt seccomp=unconfined, or a profile allowing it)",
    "privileges": "run the grader as root (it drops each worker to a uid of its own)",
    "process tree": "give the workers a PID namespace (see namespaces), or run as root",
    "landlock": "use Linux 6.12 or newer with landlock in the LSM list (CONFIG_LSM, or lsm= on the kernel's "
                "command line)",
    "seccomp": "install libseccomp (Debian: libseccomp2) and pyseccomp (scripts/setup installs it)",
}


@dataclass
class Diagnosis:
    layers: tuple[Layer, ...]
    isolation: str  # the mode in force: "best" or "strict"
    platform: str
    cuda: bool
    triton: bool
    gpus: tuple[Gpu, ...] = ()  # the visible CUDA devices and their compute modes
    interpret_cleared: bool = False  # an inherited TRITON_INTERPRET=1 was cleared for the workers (CUDA here)

    @property
    def missing(self) -> list[Layer]:
        return missing_layers(self.layers)

    @property
    def gpu_problem(self) -> str | None:
        """Why CUDA work is refused here (the GPU's compute mode), with the fix."""
        return compute_mode_problem(self.gpus)

    @property
    def notes(self) -> list[str]:
        return [INTERPRET_CLEARED_NOTE] if self.interpret_cleared else []

    def to_dict(self) -> dict[str, Any]:
        return {"platform": self.platform, "isolation": self.isolation, "cuda": self.cuda, "triton": self.triton,
                "layers": [{**vars(layer), "fix": None if layer.active else FIXES.get(layer.name)}
                           for layer in self.layers],
                "complete": not self.missing,
                "gpus": [{**vars(gpu), "mode": mode_name(gpu.mode)} for gpu in self.gpus],
                "gpu_problem": self.gpu_problem, "notes": self.notes}


def diagnose(pool: WorkerPool) -> Diagnosis:
    info = pool.wait_ready()
    machine = f"{platform.system()} {platform.release()} ({platform.machine()}), Python {platform.python_version()}"
    return Diagnosis(pool.isolation_layers, pool.isolation, machine, bool(info.get("cuda")), bool(info.get("triton")),
                     pool.gpus, bool(info.get("interpret_cleared")))


def format_diagnosis(diagnosis: Diagnosis) -> str:
    lines = [f"the sandbox on {diagnosis.platform}"
             f"{', CUDA' if diagnosis.cuda else ', no CUDA'}{', Triton' if diagnosis.triton else ''}:"]
    for layer in diagnosis.layers:
        mark = "✓" if layer.active else "✗"
        lines.append(f"  {mark} {layer.name:<13} {layer.detail}")
        if not layer.active and layer.name in FIXES:
            lines.append(f"    {'':<13} to have it: {FIXES[layer.name]}")
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
    for gpu in diagnosis.gpus:
        lines.append(f"GPU {gpu.index}: {gpu.name} ({gpu.bus_id}), compute mode {mode_name(gpu.mode)}"
                     f"{'' if gpu.index == 0 else ' (unused: workers use the first visible GPU)'}")
    if diagnosis.gpu_problem is not None:
        lines.append(f"✗ CUDA work is refused: {diagnosis.gpu_problem}")
    lines += [f"note: {note}" for note in diagnosis.notes]
    return "\n".join(lines)


def warning_line(layers: tuple[Layer, ...]) -> str | None:
    """The one line `kata run` and friends print when a layer is missing (None: nothing to say)."""
    missing = missing_layers(layers)
    if not missing and layers:
        return None
    names = ", ".join(layer.name for layer in missing) or "every layer"
    return f"the sandbox lacks {names} on this machine; `kata doctor` says why (isolation \"strict\" refuses)"
