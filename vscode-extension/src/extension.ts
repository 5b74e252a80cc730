/** Wires the server, the status bar, the Testing view and the commands together. */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { onDidChangeInterpreter } from './python';
import { KataServer } from './server';
import { KataStatus } from './statusBar';
import { KataTests } from './testing';

let server: KataServer | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('infrakata', { log: true });
  server = new KataServer(output);
  const kata = server;
  const status = new KataStatus();
  const tests = new KataTests(
    (uri) => kata.execute('kata.run', [uri.toString()]),
    (uri) => kata.execute('kata.cancel', [uri.toString()]),
  );
  context.subscriptions.push(
    output,
    status,
    tests,
    ...registerCommands(kata, output),
    kata.onDidChangeState((state) => {
      status.setServer(state);
      void vscode.commands.executeCommand('setContext', 'infrakata.serverRunning', state.kind === 'running');
    }),
    kata.onResult(({ uri, report }) => {
      const file = vscode.Uri.parse(uri);
      status.setReport(file, report);
      tests.showResult(file, report);
    }),
    kata.onBenchmark(({ result }) => output.info(`benchmark: ${JSON.stringify(result)}`)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('infrakata.python')) {
        void kata.restart();
      } else if (event.affectsConfiguration('infrakata')) {
        void kata.sendSettings();
      }
    }),
  );
  void kata.restart();
  // Not awaited: activating the Python extension must not hold up ours.
  void onDidChangeInterpreter(() => {
    // The Python extension's choice only matters while the setting does not override it.
    if (!vscode.workspace.getConfiguration('infrakata').get<string>('python')) {
      void kata.restart();
    }
  }).then((subscription) => subscription && context.subscriptions.push(subscription));
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
