import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULTS, validateSettings } from '../src/settings';

describe('settings validation', () => {
  it('gives the defaults for unset values', () => {
    assert.deepEqual(validateSettings({}, []), { settings: { ...DEFAULTS, problemPaths: [] }, problems: [] });
  });

  it('passes valid values through', () => {
    const { settings, problems } = validateSettings(
      { gradeOn: 'type', debounceMs: 0, watchFiles: false, isolation: 'strict', inlineValues: false },
      [],
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      gradeOn: 'type', debounceMs: 0, watchFiles: false, isolation: 'strict', inlineValues: false, problemPaths: [],
    });
  });

  it('replaces each bad value by its default with a message naming the key and the fix', () => {
    const { settings, problems } = validateSettings(
      { gradeOn: 'always', debounceMs: -5, watchFiles: 'yes', isolation: 'none', inlineValues: 'off' },
      [{ folder: '/ws', value: 'problems' }],
    );
    assert.deepEqual(settings, { ...DEFAULTS, problemPaths: [] });
    assert.deepEqual(problems, [
      'infrakata.gradeOn: "always" is not valid; use "save" or "type". Using "save".',
      'infrakata.debounceMs: -5 is not valid; use a whole number of milliseconds >= 0. Using 400.',
      'infrakata.watchFiles: "yes" is not valid; use true or false. Using true.',
      'infrakata.isolation: "none" is not valid; use "best" or "strict". Using "best".',
      'infrakata.inlineValues: "off" is not valid; use true or false. Using true.',
      'infrakata.problemPaths (in /ws): "problems" is not valid; use a list of folder or JSON file paths. Using [].',
    ]);
  });

  it('rejects fractional delays', () => {
    assert.equal(validateSettings({ debounceMs: 2.5 }, []).settings.debounceMs, 400);
  });

  it('resolves problem paths against the folder that sets them, once each', () => {
    const { settings } = validateSettings({}, [
      { folder: '/ws/a', value: ['problems', '/shared/codestar.json'] },
      { folder: '/ws/b', value: ['../a/problems', 'more'] },
      { value: ['relative/outside'] },
    ]);
    assert.deepEqual(settings.problemPaths, ['/ws/a/problems', '/shared/codestar.json', '/ws/b/more', 'relative/outside']);
  });
});
