/**
 * Which Python runs the server: the `infrakata.python` setting, else the Python extension's
 * active environment, else `python3`; and what to tell the user when infrakata is missing there.
 */
import * as os from 'node:os';
import * as path from 'node:path';

export type InterpreterSource = 'setting infrakata.python' | 'Python extension' | 'default';

export interface Interpreter {
  /** The executable and any leading arguments (the Python extension may give e.g. a conda run). */
  command: string[];
  source: InterpreterSource;
}

export const DEFAULT_PYTHON = 'python3';
export const SERVER_MODULE = 'infrakata.server';

/**
 * @param setting the raw `infrakata.python` value.
 * @param fromPythonExtension the active environment's command, or undefined when the Python
 *   extension is not installed or has none; only asked when the setting is empty.
 */
export async function resolveInterpreter(
  setting: string,
  vars: PathVars,
  fromPythonExtension: () => Promise<string[] | undefined>,
): Promise<Interpreter> {
  if (setting.trim() !== '') {
    return { command: [expandPath(setting.trim(), vars)], source: 'setting infrakata.python' };
  }
  const active = await fromPythonExtension();
  if (active !== undefined && active.length > 0 && active[0] !== '') {
    return { command: active, source: 'Python extension' };
  }
  return { command: [DEFAULT_PYTHON], source: 'default' };
}

export interface PathVars {
  /** Absolute path of the first workspace folder, if any. */
  workspaceFolder?: string;
  home?: string;
}

/**
 * Expands `${workspaceFolder}` and a leading `~`; a relative path with a separator (e.g.
 * `.venv/bin/python`) is taken from the workspace folder, a bare name (`python3`) from PATH.
 */
export function expandPath(value: string, vars: PathVars): string {
  const home = vars.home ?? os.homedir();
  let out = value;
  if (vars.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, vars.workspaceFolder);
  }
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(home, out.slice(1));
  }
  if (vars.workspaceFolder !== undefined && !path.isAbsolute(out) && out.includes('/')) {
    out = path.resolve(vars.workspaceFolder, out);
  }
  return out;
}

/** `<python> -m infrakata.server`, as an executable and its arguments. */
export function serverCommand(interpreter: Interpreter): { command: string; args: string[] } {
  const [command, ...rest] = interpreter.command;
  return { command, args: [...rest, '-m', SERVER_MODULE] };
}

/** The arguments that check infrakata.server is importable. */
export function importCheckArgs(interpreter: Interpreter): { command: string; args: string[] } {
  const [command, ...rest] = interpreter.command;
  return { command, args: [...rest, '-c', `import ${SERVER_MODULE}`] };
}

/** Why a Python cannot serve: it does not exist, or it lacks infrakata (with its error). */
export type ServerUnavailable = { kind: 'not found' } | { kind: 'import failed'; stderr: string };

/**
 * The message for a Python that cannot run the server, naming the interpreter, where it came
 * from, and the command that installs infrakata.
 * @param checkout an infrakata source checkout open in the workspace, if there is one.
 */
export function unavailableMessage(interpreter: Interpreter, why: ServerUnavailable, checkout?: string): string {
  const python = interpreter.command.map(quote).join(' ');
  // infrakata is not published on PyPI: the install is always an editable one of a checkout.
  const target = `-e ${checkout !== undefined ? quote(checkout) : '<your infrakata checkout>'}`;
  if (why.kind === 'not found') {
    return `infrakata: ${python} (from ${interpreter.source}) was not found. ` +
      `Set infrakata.python to a Python that has infrakata (install it with \`python -m pip install ${target}\`).`;
  }
  const error = why.stderr.trim().split('\n').pop() ?? '';
  return `infrakata: ${python} (from ${interpreter.source}) cannot import ${SERVER_MODULE}` +
    (error ? ` (${error})` : '') +
    `. Install it with \`${python} -m pip install ${target}\`, or set infrakata.python to a Python that has it.`;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
