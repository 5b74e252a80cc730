"""The machine's GPUs as grading needs them: read in the zygote's throwaway probe child (the zygote
itself never initialises CUDA), and what follows from them, as pure functions.

Grading runs several CUDA processes on one GPU at once: the solution's worker, the reference's, and a
spare started ahead of need. A GPU in EXCLUSIVE_PROCESS compute mode admits one CUDA context at a time
and one in PROHIBITED mode none, so there CUDA work is refused with the fix, not left to fail in the
second process. Workers use the first visible GPU (torch's default device); the others are only listed.
"""

from __future__ import annotations

import ctypes

from infrakata.core.sandbox.protocol import Gpu

CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20
COMPUTE_MODES = {0: "DEFAULT", 1: "EXCLUSIVE_THREAD", 2: "PROHIBITED", 3: "EXCLUSIVE_PROCESS"}
# The values Triton reads as true (its getenv_bool).
INTERPRET_TRUE = ("1", "true", "on", "yes", "y")
INTERPRET_CLEARED_NOTE = ("TRITON_INTERPRET=1 was set in the environment; cleared for the workers: on a CUDA GPU "
                          "kernels compile, and the interpreter cannot be timed")


def interprets(value: str | None) -> bool:
    """Whether this value of TRITON_INTERPRET makes Triton run kernels through its interpreter."""
    return value is not None and value.strip().lower() in INTERPRET_TRUE


def read_gpus() -> tuple[Gpu, ...]:
    """Every visible CUDA device and its compute mode, through the driver API: cuInit and the device
    queries create no context, so they count against no exclusive device. () when the driver cannot say."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return ()
    count = ctypes.c_int()
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return ()
    gpus = []
    for ordinal in range(count.value):
        device, mode = ctypes.c_int(), ctypes.c_int()
        name, bus_id = ctypes.create_string_buffer(256), ctypes.create_string_buffer(32)
        if driver.cuDeviceGet(ctypes.byref(device), ordinal) != 0 or driver.cuDeviceGetAttribute(
                ctypes.byref(mode), CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, device) != 0:
            continue
        driver.cuDeviceGetName(name, len(name), device)
        driver.cuDeviceGetPCIBusId(bus_id, len(bus_id), device)
        gpus.append(Gpu(ordinal, name.value.decode(errors="replace"), bus_id.value.decode(errors="replace"),
                        mode.value))
    return tuple(gpus)


def mode_name(mode: int) -> str:
    return COMPUTE_MODES.get(mode, f"mode {mode}")


def compute_mode_problem(gpus: tuple[Gpu, ...]) -> str | None:
    """Why the GPU the workers use cannot be graded on, with the fix; None when it can."""
    if not gpus or gpus[0].mode == 0:
        return None
    gpu = gpus[0]
    admits = "admits no CUDA process" if gpu.mode == 2 else "admits one CUDA process at a time"
    where = gpu.bus_id or str(gpu.index)
    return (f"CUDA device {gpu.index} ({gpu.name}{', ' + gpu.bus_id if gpu.bus_id else ''}) is in "
            f"{mode_name(gpu.mode)} compute mode, which {admits}; grading needs the solution's, the reference's "
            f"and a spare worker's CUDA contexts on it at once. Set it to the default mode: "
            f"`sudo nvidia-smi -i {where} -c DEFAULT` (or make another GPU the first visible one: "
            f"CUDA_VISIBLE_DEVICES)")


def triton_interpret(inherited: str | None, cuda: bool) -> tuple[str | None, bool]:
    """TRITON_INTERPRET for the workers (None: unset), and whether an inherited one asking for the
    interpreter was cleared. Without CUDA Triton runs only through its interpreter, so it is set (an
    inherited value kept); on a CUDA GPU kernels must compile and be timed, which the interpreter's cannot."""
    if cuda:
        return None, interprets(inherited)
    return ("1" if inherited is None else inherited), False
