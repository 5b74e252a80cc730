/** The Python extension's active environment, when ms-python.python is installed. */
import * as vscode from 'vscode';

/** The part of ms-python.python's exported API used here. */
interface PythonApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(path: string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

async function api(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (extension === undefined) {
    return undefined;
  }
  try {
    const exports = extension.isActive ? extension.exports : await extension.activate();
    await exports?.ready;
    return exports;
  } catch {
    // VS Code reports the Python extension's failure to activate; we go on without it.
    return undefined;
  }
}

/** The active environment's interpreter command for `resource`, or undefined. */
export async function activeInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
  const python = await api();
  const envs = python?.environments;
  if (envs !== undefined) {
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath(resource).path);
    const executable = env?.executable.uri?.fsPath;
    if (executable) {
      return [executable];
    }
  }
  return python?.settings?.getExecutionDetails(resource).execCommand;
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onDidChangeInterpreter(listener: () => void): Promise<vscode.Disposable | undefined> {
  const python = await api();
  const event = python?.environments?.onDidChangeActiveEnvironmentPath ?? python?.settings?.onDidChangeExecutionDetails;
  return event?.(() => listener());
}
