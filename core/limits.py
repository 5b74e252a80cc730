"""Every limit a solution's process runs under, in one place, with the form each takes on the CPU and with CUDA.

A problem sets three (`time_limit`, `memory_limit_mb`, `gpu_memory_limit_mb`) and may set a fourth
(`compile_allowance`); everything else derives from them here. A call's time is the grader's clock less
the worker's run-queue time, with a wall-clock backstop (WALL_BACKSTOP_*). The table of every limit and
its CPU and CUDA forms is in docs/GRADING.md (Limits).
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1 << 20
# How a message says what a memory limit counts: the solution's own memory, not the interpreter's and its libraries'.
MEMORY_COUNTED = "beyond what a worker holds when it starts"
OUTPUT_LIMIT_BYTES = 4 * MIB  # what a solution may print; more fails its case ("output limit exceeded")
OUTPUT_SHOWN_BYTES = 64 << 10  # what of it a report keeps
REPLY_LIMIT_BYTES = 256 * MIB  # the largest reply a worker may send (never more than its memory limit)
RSS_POLL_S = 0.1  # how often the grader checks a CUDA worker's resident size
# A CUDA worker is started ahead of need (CUDA context, torch's CUDA libraries, Triton's driver); when
# a request finds it still starting, this is what that start may take beyond the problem's own limit.
CUDA_START_S = 20.0
# What a worker's first call (and its load, where kernels compile at import) may take beyond the time
# limit on CUDA, where Triton compiles each kernel at its first launch: seconds for a small kernel,
# tens of seconds for an AdamW-sized one on a cold cache (a worker starts with what earlier workers grading
# the same file compiled, core/sandbox/kernel_cache.py: a kernel changed since compiles afresh).
# The interpreter (on the CPU) compiles nothing. A problem's `compile_allowance` overrides it.
COMPILE_ALLOWANCE_S = 60.0
COPY_TIMEOUT_S = 120.0  # the benchmark's measurement of the device's copy bandwidth (trusted code)
BENCH_GRACE_S = 60.0  # per benchmark shape, on top of its calls: making fresh inputs, the reference's check
TRUSTED_MEMORY_MB = 4096  # host memory a trusted worker may add, at least: a bound against a broken problem
CPU_BACKSTOP_S = 30  # RLIMIT_CPU over the calls' wall time: the wall clock is what decides
# However long a worker waited for a CPU, a call ends by this much wall-clock time.
WALL_BACKSTOP_FACTOR, WALL_BACKSTOP_S = 4.0, 5.0


def wall_backstop(timeout: float) -> float:
    return timeout * WALL_BACKSTOP_FACTOR + WALL_BACKSTOP_S


@dataclass(frozen=True)
class WorkerLimits:
    """What one worker process runs under: sent to the child, which applies its part of them."""

    memory_bytes: int
    cpu_seconds: int
    cuda: bool = False  # a worker with CUDA initialised before it is handed its run
    gpu_memory_bytes: int | None = None  # a CUDA worker's device-memory cap (none for trusted code)
    # The CUDA form of the host-memory limit: the grader polls the resident size (RLIMIT_AS otherwise).
    poll_resident: bool = False
    output_bytes: int = OUTPUT_LIMIT_BYTES
    # The largest reply the grader reads from this worker: no answer is larger than what the worker may
    # hold, and a frame announced above it is refused before any of it is buffered.
    reply_bytes: int = REPLY_LIMIT_BYTES


@dataclass(frozen=True)
class Limits:
    """A problem's limits (the three it sets) and every limit derived from them."""

    time_s: float = 5.0
    memory_mb: int = 512
    gpu_memory_mb: int = 4096
    compile_s: float | None = None  # the problem's `compile_allowance`; None: compile_allowance() decides

    def worker(self, calls: int, cuda: bool, trusted: bool = False) -> WorkerLimits:
        """The limits of a worker that will make up to `calls` calls, on CUDA or not. A trusted worker
        (the reference's) is not held to the learner's memory limits: the eager reference of a kernel
        problem materialises what a fused kernel keeps in registers, and a kata may set its host memory
        low to rule out a method (flash attention's S x S scores) that its plain reference uses."""
        memory_mb = max(self.memory_mb, TRUSTED_MEMORY_MB) if trusted else self.memory_mb
        return WorkerLimits(
            reply_bytes=min(REPLY_LIMIT_BYTES, memory_mb * MIB + OUTPUT_LIMIT_BYTES),
            memory_bytes=memory_mb * MIB,
            # The load and the first call may each spend the compile allowance.
            cpu_seconds=int(self.time_s * max(calls, 1) + 2 * self.compile_allowance(cuda)) + CPU_BACKSTOP_S,
            cuda=cuda,
            gpu_memory_bytes=self.gpu_memory_mb * MIB if cuda and not trusted else None,
            poll_resident=cuda)

    def compile_allowance(self, cuda: bool) -> float:
        """What a worker's first call may take beyond the time limit to compile its kernels: the problem's
        own figure where it sets one, else COMPILE_ALLOWANCE_S in a CUDA worker (only kernel problems
        have those) and nothing on the CPU."""
        if self.compile_s is not None:
            return self.compile_s
        return COMPILE_ALLOWANCE_S if cuda else 0.0

    def load_timeout(self, cuda: bool) -> float:
        """Loading a solution (its imports and top-level code, which may compile kernels), plus a CUDA
        worker's start."""
        return self.time_s + self.compile_allowance(cuda) + (CUDA_START_S if cuda else 0.0)

    def call_timeout(self, cuda: bool = False, first: bool = False) -> float:
        """One call; a worker's `first` call may compile its kernels (compile_allowance)."""
        return self.time_s + (self.compile_allowance(cuda) if first else 0.0)

    def shape_timeout(self, calls: int) -> float:
        """One benchmark shape: its calls, and the inputs made and checked around them."""
        return self.time_s * calls + BENCH_GRACE_S
