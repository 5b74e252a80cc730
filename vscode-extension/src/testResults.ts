/**
 * A report as Testing-view results: one outcome per case, with the message, the expected vs
 * actual pair for a diff, and the 0-based line the failure shows on.
 */
import { CaseResult, CaseStatus, RunReport, verdictText } from './report';

export type Outcome = 'passed' | 'failed' | 'errored' | 'skipped';

export interface FailureMessage {
  text: string;
  /** Both set, or neither: VS Code shows them as a diff. */
  expected?: string;
  actual?: string;
}

export interface CaseOutcome {
  /** Stable per problem, so reruns update the same test item. */
  id: string;
  label: string;
  /** 0-based. */
  line: number;
  outcome: Outcome;
  durationMs?: number;
  message?: FailureMessage;
}

export interface ReportOutcomes {
  cases: CaseOutcome[];
  /** Set when the run failed before any case could say why (syntax error, forbidden import). */
  fileError?: { line: number; message: string };
}

const OUTCOMES: Record<CaseStatus, Outcome> = {
  passed: 'passed',
  failed: 'failed',
  error: 'errored',
  timeout: 'errored',
  memory: 'errored',
  skipped: 'skipped',
};

export function reportOutcomes(report: RunReport): ReportOutcomes {
  const entryLine = Math.max((report.entry_line ?? 1) - 1, 0);
  const cases = report.cases.map((c) => caseOutcome(c, entryLine));
  const explained = cases.some((c) => c.outcome === 'failed' || c.outcome === 'errored');
  if (report.verdict === 'accepted' || explained) {
    return { cases };
  }
  const first = report.findings[0];
  const message = first
    ? report.findings.map((f) => `line ${f.line}: ${f.message}`).join('\n')
    : verdictText(report.verdict);
  return { cases, fileError: { line: first ? Math.max(first.line - 1, 0) : entryLine, message } };
}

/**
 * 0-based lines where the server shows a wrong output beside the expected one (inline values). A
 * failure message placed there would cover it (VS Code draws it over the end of the line), so those
 * messages stay in the Testing view, off the editor.
 */
export function inlineOutputLines(report: RunReport): Set<number> {
  return new Set(report.cases.flatMap((c) => (c.values ?? []).filter((v) => v.kind === 'output').map((v) => v.line - 1)));
}

function caseOutcome(c: CaseResult, entryLine: number): CaseOutcome {
  const outcome = OUTCOMES[c.status] ?? 'errored';
  return {
    id: String(c.id),
    label: c.name ? `case ${c.id}: ${c.name}` : `case ${c.id}`,
    line: c.line != null && c.line >= 1 ? c.line - 1 : entryLine,
    outcome,
    durationMs: c.time_ms ?? undefined,
    message: outcome === 'failed' || outcome === 'errored' ? failureMessage(c) : undefined,
  };
}

function failureMessage(c: CaseResult): FailureMessage {
  const text = c.message || c.status;
  if (c.expected == null || c.actual == null) {
    return { text };
  }
  return { text, expected: show(c.expected), actual: show(c.actual) };
}

/** Strings (already formatted by the server) as they are; numbers and arrays as JSON. */
function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
