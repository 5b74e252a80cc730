import { CaseResult, RunReport } from '../src/report';

/** A report as `kata run --json` prints it, with `cases` and overrides supplied by the test. */
export function report(overrides: Partial<RunReport> = {}): RunReport {
  return {
    problem: 'adam-optimizer-memory-bytes',
    title: 'Adam optimizer memory',
    file: '/ws/adam_optimizer_memory_bytes.py',
    verdict: 'accepted',
    passed: 0,
    total: 0,
    time_ms: 12.4,
    findings: [],
    cases: [],
    entry_line: 3,
    ...overrides,
  };
}

export function kase(overrides: Partial<CaseResult> = {}): CaseResult {
  return { id: 1, name: 'small', status: 'passed', time_ms: 1.5, message: '', line: 3, ...overrides };
}
