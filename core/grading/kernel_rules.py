"""A kernel kata's rules, judged from what the Triton interpreter measured of a call (core/sandbox/kernel_meter.py):
the outputs written by its kernels, the arguments graded in place still in their storage, its largest tile and its
memory traffic against the kata's ([grading] max_tile, traffic). A call that passed its comparison and breaks
one is refused, the message naming the rule, the figures and the fix. These are teaching rules (docs/KERNELS.md).
On a GPU nothing is measured (the kernels run on the device) and only the launches are counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from infrakata.core.catalog.problem import Problem
from infrakata.core.sandbox.protocol import KernelMeasures

OUTPUTS = "outputs"  # [grading] traffic: the fused kernels write the call's outputs once, and nothing else


def broken_rule(problem: Problem, kernels: KernelMeasures | None, name_of: Callable[[Any], str],
                fused_bytes: Callable[[], int] | None) -> str | None:
    """What the call broke, or None. `name_of`: how a message names an output or argument key ("return",
    "return[1]", a position, a name). `fused_bytes`: what the kata's fused kernels move on this case: with
    traffic = "outputs", the bytes of the call's outputs (which they write once), else what cases.py says they
    load and store."""
    if kernels is None:
        return None
    rules = problem.grading
    if kernels.moved:
        names = ", ".join(f"`{name_of(key)}`" for key in kernels.moved)
        return (f"{names} left the storage it came with during the call (set_, or a new tensor in its place): this "
                f"kata grades it in place; write into the memory it was given")
    if kernels.unwritten is not None:
        where, index = kernels.unwritten
        return (f"{_element(name_of(where), index)}: no Triton kernel wrote it during the call; the kernels must "
                f"compute every element of the output (a value computed outside them, or left from before, is "
                f"refused)")
    if kernels.changed is not None:
        where, index = kernels.changed
        return (f"{_element(name_of(where), index)}: changed after the kernel wrote it; the output must be what "
                f"the kernels computed")
    if rules.max_tile and kernels.tile > rules.max_tile:
        return (f"a tl.load or tl.store moved {kernels.tile:,} elements at once, above this kata's tile of "
                f"{rules.max_tile:,}: stream over the dimension, a block of at most {rules.max_tile:,} at a time "
                f"(a running maximum and sum carry what the blocks before said)")
    if rules.traffic and fused_bytes is not None:
        fused = fused_bytes()
        writes = rules.traffic == OUTPUTS
        moved = kernels.stored if writes else kernels.loaded + kernels.stored
        if fused > 0 and moved > rules.traffic_slack * fused:
            what = (f"wrote {moved:,} bytes, {moved / fused:.1f} times the {fused:,} of the call's outputs"
                    if writes else f"moved {moved:,} bytes, {moved / fused:.1f} times the {fused:,} a fused kernel "
                                   f"moves on this case")
            return (f"the kernels {what} (at most {rules.traffic_slack:g} times are allowed){_heaviest(kernels)}: "
                    f"fuse the work, so that what one step makes the next reads from registers, not memory (no "
                    f"intermediate through memory: scores, a copy, a gathered buffer, an unfused epilogue)")
    return None


def _element(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{', '.join(map(str, index))}]" if index else name


def _heaviest(kernels: KernelMeasures) -> str:
    """The buffer that made the difference: the busiest that is not one of the call's inputs (an intermediate
    written and read back), else the busiest of all."""
    inner = [b for b in kernels.buffers if not b[3]] or list(kernels.buffers)
    if not inner:
        return ""
    name, loaded, stored, _ = max(inner, key=lambda b: b[1] + b[2])
    return f"; the most through `{name}` ({stored:,} bytes written, {loaded:,} read)"
