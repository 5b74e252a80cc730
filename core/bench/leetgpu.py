"""`kata bench` on a LeetGPU challenge: its example and functional tests first, graded as `kata run` grades them,
then its performance test (`generate_performance_test`) timed, against the challenge's reference_impl.

The repetitions follow the kata benchmark's method (core/bench/repetitions.py, docs/KERNELS.md): warm-up calls on the
performance test of one seed, then each repetition on the performance test made again after a seed of its own (in
each worker, from the seed it is sent when the repetition starts), the device's L2 flushed before it, `solve`
bracketed by CUDA events behind a device spin. Every repetition's arguments are checked in the reference's worker,
which runs reference_impl on the same test: the outputs within the challenge's tolerance, the inputs unchanged. The
figure is the speed-up, reference_impl's best time over solve's, with both times in ms. LeetGPU's own runner times
the same test on its GPU, by a method it does not publish (docs/LEETGPU.md sets the two side by side). Without
CUDA, a performance test within the interpreter's budget runs untimed, each repetition checked; a larger one is
refused, saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infrakata.core.bench.benchmark import BenchReport
from infrakata.core.bench.repetitions import Harness, RepeatedBench
from infrakata.core.catalog.kinds.leetgpu import LEETGPU_CPU_ELEMENTS
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.kinds import leetgpu
from infrakata.core.grading.kinds.leetgpu_tests import elements
from infrakata.core.grading.runner import tolerance_of
from infrakata.core.sandbox.pool import CancelToken, WorkerPool

HARNESS = Harness(("infrakata.core.bench.timing", "infrakata.core.bench.leetgpu_trials"),
                  "infrakata.core.bench.leetgpu_trials:time_trial", "infrakata.core.bench.leetgpu_trials:check_trial")
# Said with every timed run: how its figure was made, and how LeetGPU's is.
HOW_TIMED = ("timed here as every kata bench times: the best of 5 repetitions (the median beside it), each on the "
             "performance test made again after a seed of its own, after 3 warm-up calls, the L2 flushed before each, "
             "solve bracketed by CUDA events. LeetGPU's runner times the same test on its own GPU (a Tesla T4 unless "
             "you choose another) by a method it does not publish: compare figures of one GPU (docs/LEETGPU.md)")


def run_leetgpu_bench(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                      cancel: CancelToken | None = None, workspace: Path | None = None) -> BenchReport:
    """The example and functional tests as `kata run` grades them, then the performance test's repetitions (untimed,
    checked, without CUDA)."""
    return _LeetGpuBench(problem, pool, cancel).measure(source, path, workspace)


class _LeetGpuBench(RepeatedBench):
    unit, graded, harness = "x reference_impl", "tests", HARNESS
    untimed_note = ("the performance test's time needs a CUDA GPU: the repetitions ran untimed, each one's arguments "
                    "checked against reference_impl's; no figure")

    def __init__(self, problem: Problem, pool: WorkerPool, cancel: CancelToken | None):
        super().__init__(problem, pool, cancel)
        self.sized: dict[str, Any] | None = None
        self.sizing_error = ""
        try:  # on the meta device: nothing allocated, whatever the test's size
            self.sized = performance_test(problem, device="meta")
        except GradingError as error:
            self.sizing_error = str(error)

    def check_size(self) -> None:
        if self.sized is None:
            raise GradingError(f"{self.sizing_error}; without CUDA, kata bench runs a performance test only once it "
                               f"is sized within the Triton interpreter's budget: time it on a machine with CUDA")
        size = elements(self.sized.values())
        if size > LEETGPU_CPU_ELEMENTS:
            raise GradingError(
                f"{self.problem.source_path / 'challenge.py'}: its performance test holds {size:,} elements, over the "
                f"{LEETGPU_CPU_ELEMENTS:,} the Triton interpreter is given without CUDA: kata bench times it on a "
                f"machine with CUDA. Here `kata run` grades its example and functional tests")

    def shape(self) -> tuple[int, ...]:
        """The performance test's first tensor's."""
        tensors = [] if self.sized is None else [v for v in self.sized.values() if hasattr(v, "shape")]
        return tuple(int(n) for n in tensors[0].shape) if tensors else ()

    def base(self, cuda: bool) -> dict[str, Any]:
        return {"tolerance": vars(tolerance_of(self.problem)), "outputs": list(self.problem.grading.state)}

    def add_figures(self, report: BenchReport, *_: Any) -> None:
        report.notes.append(HOW_TIMED)


def performance_test(problem: Problem, device: str) -> dict[str, Any]:
    """The challenge's performance test, made on `device` (the tensors the base class describes left described).
    GradingError naming challenge.py where it cannot be made there."""
    import torch

    namespace = leetgpu.loaded(problem)
    try:
        with torch.device(device):
            test = namespace["Challenge"](device=device).generate_performance_test()
    except Exception as error:
        raise GradingError(f"{problem.source_path / 'challenge.py'}: its performance test could not be made on the "
                           f"{device} device: {type(error).__name__}: {error}") from error
    test = test[0] if isinstance(test, list) and test else test
    if not isinstance(test, dict):
        raise GradingError(f"{problem.source_path / 'challenge.py'}: generate_performance_test() returned no dict of "
                           f"solve's arguments")
    return test
