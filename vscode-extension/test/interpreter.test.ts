import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPath, resolveInterpreter, serverCommand, unavailableMessage } from '../src/interpreter';

const vars = { workspaceFolder: '/ws', home: '/home/me' };
const never = async (): Promise<string[] | undefined> => assert.fail('the Python extension must not be asked');

describe('interpreter resolution order', () => {
  it('takes the setting first, without asking the Python extension', async () => {
    assert.deepEqual(await resolveInterpreter('/opt/py/bin/python', vars, never), {
      command: ['/opt/py/bin/python'],
      source: 'setting infrakata.python',
    });
  });

  it('then the Python extension active environment', async () => {
    const fromExtension = async () => ['/ws/.venv/bin/python'];
    assert.deepEqual(await resolveInterpreter('  ', vars, fromExtension), { command: ['/ws/.venv/bin/python'], source: 'Python extension' });
  });

  it('then python3, when the extension is missing or has no environment', async () => {
    for (const fromExtension of [async () => undefined, async () => [], async () => ['']]) {
      assert.deepEqual(await resolveInterpreter('', vars, fromExtension), { command: ['python3'], source: 'default' });
    }
  });

  it('expands ${workspaceFolder}, ~ and workspace-relative paths, and leaves bare names to PATH', () => {
    assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', vars), '/ws/.venv/bin/python');
    assert.equal(expandPath('~/venvs/kata/bin/python', vars), '/home/me/venvs/kata/bin/python');
    assert.equal(expandPath('.venv/bin/python', vars), '/ws/.venv/bin/python');
    assert.equal(expandPath('python3.11', vars), 'python3.11');
  });
});

describe('server command and install hint', () => {
  it('runs the server module with the interpreter and its leading arguments', () => {
    assert.deepEqual(serverCommand({ command: ['conda', 'run', '-n', 'kata', 'python'], source: 'Python extension' }), {
      command: 'conda',
      args: ['run', '-n', 'kata', 'python', '-m', 'infrakata.server'],
    });
  });

  it('names the interpreter, where it came from, the error, and the install command', () => {
    const message = unavailableMessage({ command: ['/usr/bin/python3'], source: 'default' }, {
      kind: 'import failed',
      stderr: 'Traceback (most recent call last):\n  File "<string>", line 1\nModuleNotFoundError: No module named \'infrakata\'\n',
    });
    assert.equal(
      message,
      "infrakata: /usr/bin/python3 (from default) cannot import infrakata.server (ModuleNotFoundError: No module named 'infrakata')." +
        ' Install it with `/usr/bin/python3 -m pip install -e <your infrakata checkout>`, or set infrakata.python to a Python that has it.',
    );
  });

  it('suggests an editable install of a checkout in the workspace, quoting paths with spaces', () => {
    const message = unavailableMessage({ command: ['/my envs/python'], source: 'setting infrakata.python' }, { kind: 'import failed', stderr: '' }, '/src/infrakata');
    assert.match(message, /^infrakata: '\/my envs\/python' \(from setting infrakata.python\) cannot import infrakata.server\. /);
    assert.match(message, /`'\/my envs\/python' -m pip install -e \/src\/infrakata`/);
  });

  it('says when the interpreter does not exist', () => {
    assert.equal(
      unavailableMessage({ command: ['/nowhere/python'], source: 'setting infrakata.python' }, { kind: 'not found' }),
      'infrakata: /nowhere/python (from setting infrakata.python) was not found. ' +
        'Set infrakata.python to a Python that has infrakata (install it with `python -m pip install -e <your infrakata checkout>`).',
    );
  });
});
