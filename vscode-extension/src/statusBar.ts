/** The status bar item: the server's state, or the active file's last result (`kata 3/4`). */
import * as vscode from 'vscode';
import { RunReport } from './report';
import { ServerState, statusView } from './status';

export class KataStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('infrakata.status', vscode.StatusBarAlignment.Left, 10);
  private readonly reports = new Map<string, RunReport>();
  private server: ServerState = { kind: 'stopped' };
  private readonly subscription = vscode.window.onDidChangeActiveTextEditor(() => this.render());

  constructor() {
    this.item.name = 'kata';
  }

  setServer(state: ServerState): void {
    this.server = state;
    this.render();
  }

  setReport(uri: vscode.Uri, report: RunReport): void {
    this.reports.set(uri.toString(), report);
    this.render();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private render(): void {
    const document = vscode.window.activeTextEditor?.document;
    // A failed server is worth showing anywhere; otherwise only next to Python files.
    if (this.server.kind !== 'failed' && document?.languageId !== 'python') {
      this.item.hide();
      return;
    }
    const view = statusView(this.server, document && this.reports.get(document.uri.toString()));
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = view.command;
    this.item.show();
  }
}
