import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inlineOutputLines, reportOutcomes } from '../src/testResults';
import { kase, report } from './fixtures';

describe('report -> Testing view', () => {
  it('gives one outcome per case, failures with the diff and 0-based line', () => {
    const { cases, fileError } = reportOutcomes(report({
      verdict: 'wrong_answer',
      passed: 1,
      total: 2,
      cases: [
        kase({ id: 1, name: 'one parameter', time_ms: 2 }),
        kase({ id: 2, name: 'fp32 1B', status: 'failed', line: 5, message: 'expected 16000000000, got 8000000000', expected: 16000000000, actual: 8000000000 }),
      ],
    }));
    assert.equal(fileError, undefined);
    assert.deepEqual(cases, [
      { id: '1', label: 'case 1: one parameter', line: 2, outcome: 'passed', durationMs: 2, message: undefined },
      {
        id: '2',
        label: 'case 2: fp32 1B',
        line: 4,
        outcome: 'failed',
        durationMs: 1.5,
        message: { text: 'expected 16000000000, got 8000000000', expected: '16000000000', actual: '8000000000' },
      },
    ]);
  });

  it('keeps formatted strings and pretty-prints arrays for the diff', () => {
    const [c] = reportOutcomes(report({
      verdict: 'wrong_answer',
      cases: [kase({ status: 'failed', message: 'out[1]: expected 2, got 3', expected: 'tensor([1., 2.])', actual: [1, 3] })],
    })).cases;
    assert.deepEqual(c.message, { text: 'out[1]: expected 2, got 3', expected: 'tensor([1., 2.])', actual: '[\n  1,\n  3\n]' });
  });

  it('gives a plain message when expected or actual is missing', () => {
    const [c] = reportOutcomes(report({
      verdict: 'runtime_error',
      cases: [kase({ status: 'error', line: 7, message: 'ZeroDivisionError: division by zero', expected: 4, actual: null })],
    })).cases;
    assert.equal(c.outcome, 'errored');
    assert.equal(c.line, 6);
    assert.deepEqual(c.message, { text: 'ZeroDivisionError: division by zero' });
  });

  it('maps timeouts and memory to errors, skipped to skipped', () => {
    const outcomes = reportOutcomes(report({
      verdict: 'time_limit_exceeded',
      cases: [kase({ status: 'timeout', message: 'over 2 s' }), kase({ id: 2, status: 'memory', message: 'over 512 MB' }), kase({ id: 3, status: 'skipped' })],
    })).cases.map((c) => c.outcome);
    assert.deepEqual(outcomes, ['errored', 'errored', 'skipped']);
  });

  it('keeps failure messages off the lines where the inline values show the output', () => {
    const output = { line: 6, kind: 'output' as const, name: 'return', label: 'out = 1.1, expected 0.1', detail: '' };
    const argument = { line: 2, kind: 'argument' as const, name: 'x', label: '1.0', detail: '1.0' };
    const lines = inlineOutputLines(report({
      verdict: 'wrong_answer',
      cases: [
        kase({ id: 1, status: 'failed', line: 6, values: [argument, output] }),
        kase({ id: 2, status: 'failed', line: 6 }),
        kase({ id: 3, status: 'failed', line: 9 }),
      ],
    }));
    assert.deepEqual([...lines], [5]); // 0-based: every case failing there, not line 9's nor the argument's
    assert.equal(inlineOutputLines(report({ cases: [kase({ status: 'failed', line: 6 })] })).size, 0);
  });

  it('puts a case without a line on the entry point', () => {
    const [c] = reportOutcomes(report({ entry_line: 10, cases: [kase({ line: null })] })).cases;
    assert.equal(c.line, 9);
  });

  it('reports a run stopped before the cases on the file, at the first finding', () => {
    const outcomes = reportOutcomes(report({
      verdict: 'forbidden',
      findings: [
        { line: 2, column: 0, end_line: 2, end_column: 12, severity: 'error', code: 'forbidden-module', message: 'import of os is not allowed' },
        { line: 9, column: 4, end_line: 9, end_column: 10, severity: 'error', code: 'forbidden-call', message: 'eval() is not allowed' },
      ],
    }));
    assert.deepEqual(outcomes, {
      cases: [],
      fileError: { line: 1, message: 'line 2: import of os is not allowed\nline 9: eval() is not allowed' },
    });
  });

  it('reports a crash with neither cases nor findings on the entry point', () => {
    assert.deepEqual(reportOutcomes(report({ verdict: 'crashed' })).fileError, { line: 2, message: 'crashed' });
  });
});
