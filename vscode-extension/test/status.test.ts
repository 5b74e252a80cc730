import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusView } from '../src/status';
import { kase, report } from './fixtures';

const running = { kind: 'running', python: '/venv/bin/python' } as const;

describe('status bar text', () => {
  it('counts passed cases of a failing run', () => {
    const view = statusView(running, report({
      verdict: 'wrong_answer',
      passed: 3,
      total: 4,
      cases: [kase(), kase({ id: 2 }), kase({ id: 3 }), kase({ id: 4, status: 'failed' })],
    }));
    assert.equal(view.text, '$(error) kata 3/4');
    assert.match(view.tooltip, /Adam optimizer memory: wrong answer, 3\/4 cases passed in 12 ms/);
    assert.equal(view.command, 'infrakata.run');
  });

  it('marks an accepted run as passing', () => {
    assert.equal(statusView(running, report({ passed: 4, total: 4 })).text, '$(pass-filled) kata 4/4');
  });

  it('names the verdict when no case ran', () => {
    assert.equal(statusView(running, report({ verdict: 'syntax_error' })).text, '$(error) kata syntax error');
  });

  it('offers to run a file without a result yet', () => {
    assert.deepEqual(statusView(running, undefined), { text: '$(beaker) kata', tooltip: 'Run the current kata', command: 'infrakata.run' });
  });

  it('shows the server starting and failing, whatever the last report', () => {
    assert.equal(statusView({ kind: 'starting', python: 'python3' }, report()).text, '$(loading~spin) kata');
    const failed = statusView({ kind: 'failed', message: 'python3 cannot import infrakata.server' }, report());
    assert.equal(failed.text, '$(warning) kata');
    assert.equal(failed.tooltip, 'python3 cannot import infrakata.server');
    assert.equal(failed.command, 'infrakata.showOutput');
  });
});
