/**
 * The server's structured result: the `kata run --json` object carried by the `kata/result`
 * notification (docs/PROTOCOL.md). Types only, plus the small readings the UI needs.
 */

export type Verdict =
  | 'accepted'
  | 'wrong_answer'
  | 'runtime_error'
  | 'time_limit_exceeded'
  | 'memory_limit_exceeded'
  | 'forbidden'
  | 'syntax_error'
  | 'crashed';

export type CaseStatus = 'passed' | 'failed' | 'error' | 'timeout' | 'memory' | 'skipped';

export interface Finding {
  /** 1-based. */
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: string;
  code: string;
  message: string;
}

export interface CaseResult {
  /** 1-based number in the problem's case order. */
  id: number;
  name: string;
  status: CaseStatus;
  time_ms: number | null;
  message: string;
  /** 1-based line in the solution file where the failure shows. */
  line: number | null;
  expected?: unknown;
  actual?: unknown;
  /** The first failing case's values, shown beside the code (inlay hints) when inline values are on. */
  values?: InlineValue[];
}

export interface InlineValue {
  /** 1-based. */
  line: number;
  kind: 'argument' | 'local' | 'output';
  name: string;
  label: string;
  detail: string;
}

export interface RunReport {
  problem: string;
  title?: string;
  file: string;
  verdict: Verdict;
  passed: number;
  total: number;
  time_ms: number;
  findings: Finding[];
  cases: CaseResult[];
  /** 1-based line of the entry point's `def`. */
  entry_line?: number | null;
  output?: string;
  /** Which device graded it: "cuda:0 (NVIDIA H200)", "cpu (Triton interpreter)" or "cpu". */
  device?: string;
}

/** Params of the `kata/result` notification. */
export interface ResultParams {
  uri: string;
  version: number | null;
  report: RunReport;
}

/** Params of the `kata/benchmarkResult` notification. */
export interface BenchmarkParams {
  uri: string;
  result: Record<string, unknown>;
}

/** `wrong_answer` -> `wrong answer`. */
export function verdictText(verdict: string): string {
  return verdict.replace(/_/g, ' ');
}
