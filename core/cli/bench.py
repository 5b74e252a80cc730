"""`kata bench`'s terminal output: the verdict, the performance against its gate, the table of shapes."""

from __future__ import annotations

from infrakata.core.bench.benchmark import BenchReport


def _or_dash(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def performance_line(report: BenchReport) -> str:
    """`accepted: 3082.0 GB/s, 78.2% of roofline`, or `correct, below the gate: ...`, with the gate."""
    figure = f"{report.geomean:.1f} {report.unit}" if report.geomean is not None else "-"
    if report.fraction_of_roofline is not None:
        figure += f", {100 * report.fraction_of_roofline:.1f}% of roofline"
    if report.speedup_vs_reference is not None:
        figure += f", {report.speedup_vs_reference:.2f}x eager"
    verdict = "accepted" if report.performance == "accepted" else "correct, below the gate"
    return f"{verdict}: {figure} (the gate: {report.gate})"


def format_bench(report: BenchReport) -> str:
    unit = report.unit
    lines = [f"{report.problem}  {report.file}  on {report.device or 'no device'}"]
    if not report.correct:
        lines.append(f"rejected: {report.gate_message}")
    else:
        if report.performance in ("accepted", "below_gate"):
            lines.append(performance_line(report))
        checked = ", ".join(str(s.shape) for s in report.shapes if s.kind == "correctness")
        lines.append(f"correct: {report.gate_message}" + (f" ({checked})" if checked else ""))
    timed = [s for s in report.shapes if s.ms is not None]
    if timed:
        width, digits = max(12, len(unit) + 2), 2 if unit.startswith("x ") else 1
        lines.append(f"  {'shape':<16}{'best ms':>10}{'median ms':>12}{'spread':>10}{unit:>{width}}"
                     f"{'reference ms':>15}")
        lines += [f"  {str(s.shape):<16}{s.ms:>10.3f}{_or_dash(s.median_ms, '.3f'):>12}"
                  f"{'±' + _or_dash(s.stdev_ms, '.3f'):>10}{s.throughput:>{width}.{digits}f}{s.reference_ms:>15.3f}"
                  for s in timed]
    if report.geomean is not None and report.unit.startswith("x "):  # a speed-up: KernelBench's, LeetGPU's
        summary = f"speed-up {report.geomean:.2f}{report.unit}"
        if report.speedup_vs_compiled is not None:
            summary += f", {report.speedup_vs_compiled:.2f}x torch.compile of it"
        lines.append(summary)
    elif report.geomean is not None:
        summary = f"geomean {report.geomean:.1f} {unit}"
        if report.roofline and report.fraction_of_roofline is not None:
            summary += f" = {100 * report.fraction_of_roofline:.1f}% of the copy roofline {report.roofline:.1f} {unit}"
        summary += f"; {report.speedup_vs_reference:.2f}x the eager reference ({report.reference:.1f} {unit})"
        lines.append(summary)
    if report.geomean is not None and report.best is not None:
        lines.append(f"best on this device: {report.best:.1f} {unit}")
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines)
