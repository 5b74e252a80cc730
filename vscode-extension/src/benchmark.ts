/** One line for a benchmark result (`kata.benchmark`, the `kata bench --json` object). */

export interface BenchmarkResult {
  problem?: string;
  device?: string | null;
  unit?: string;
  correct?: boolean;
  gate_message?: string | null;
  geomean_gbps?: number | null;
  fraction_of_roofline?: number | null;
  speedup_vs_reference?: number | null;
  cancelled?: boolean;
}

export function benchmarkSummary(result: BenchmarkResult): string {
  const where = result.device ? ` on ${result.device}` : '';
  if (result.cancelled) {
    return `kata benchmark${where}: cancelled`;
  }
  if (result.correct === false) {
    return `kata benchmark${where}: rejected: ${result.gate_message ?? 'the timed output is wrong'}`;
  }
  if (result.geomean_gbps == null) {
    return `kata benchmark${where}: no figure${result.gate_message ? ` (${result.gate_message})` : ''}`;
  }
  const unit = result.unit ?? '';
  const parts = [`geomean ${result.geomean_gbps.toFixed(1)} ${unit}`.trim()];
  if (result.fraction_of_roofline != null) {
    parts.push(`${(100 * result.fraction_of_roofline).toFixed(1)}% of the copy roofline`);
  }
  if (result.speedup_vs_reference != null) {
    parts.push(`${result.speedup_vs_reference.toFixed(2)}x the eager reference`);
  }
  return `kata benchmark${where}: ${parts.join(', ')}`;
}
