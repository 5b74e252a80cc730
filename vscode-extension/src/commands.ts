/** The extension's commands: thin wrappers over the server's `kata.*` commands. */
import * as vscode from 'vscode';
import { BenchmarkResult, benchmarkSummary } from './benchmark';
import { ProblemPick, problemPicks, ProblemSummary } from './catalog';
import { KataServer } from './server';

export function registerCommands(server: KataServer, output: vscode.OutputChannel): vscode.Disposable[] {
  const command = (id: string, run: () => Promise<unknown>) =>
    vscode.commands.registerCommand(id, () => run().catch((err) => {
      void vscode.window.showErrorMessage(`kata: ${err instanceof Error ? err.message : err}`);
    }));
  return [
    command('infrakata.run', async () => server.execute('kata.run', [activeSolution().toString()])),
    command('infrakata.benchmark', async () => {
      const result = await server.execute<BenchmarkResult>('kata.benchmark', [activeSolution().toString()]);
      const summary = benchmarkSummary(result);
      if (result.correct === false) {
        void vscode.window.showWarningMessage(summary);
      } else {
        void vscode.window.showInformationMessage(summary);
      }
    }),
    command('infrakata.showProblem', async () => {
      const document = vscode.window.activeTextEditor?.document;
      const target = document?.languageId === 'python' ? document.uri.toString() : await pickProblem(server);
      if (target !== undefined) {
        await server.execute('kata.showProblem', [target]);
      }
    }),
    command('infrakata.startKata', async () => {
      const slug = await pickProblem(server);
      const folder = slug && (await pickFolder());
      if (slug !== undefined && folder !== undefined) {
        await server.execute('kata.startKata', [slug, folder.toString()]);
      }
    }),
    command('infrakata.restartServer', () => server.restart()),
    command('infrakata.showOutput', async () => output.show()),
  ];
}

function activeSolution(): vscode.Uri {
  const document = vscode.window.activeTextEditor?.document;
  if (document?.languageId !== 'python') {
    throw new Error('open a kata solution (a Python file) first');
  }
  return document.uri;
}

async function pickProblem(server: KataServer): Promise<string | undefined> {
  const picks = server.execute<ProblemSummary[]>('kata.listProblems', []).then(problemPicks);
  const pick = await vscode.window.showQuickPick<ProblemPick>(picks, {
    title: 'Start a kata',
    placeHolder: 'Pick a problem',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return pick?.slug;
}

/** Where the starter goes: the only workspace folder, else the user's pick. */
async function pickFolder(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 1) {
    return folders[0].uri;
  }
  if (folders.length > 1) {
    return (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder for the starter file' }))?.uri;
  }
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Start the kata here' });
  return picked?.[0];
}
