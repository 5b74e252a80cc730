/**
 * Per-case results in VS Code's Testing view: one item per solution file, one child per case,
 * fed by `kata/result`; running an item runs `kata.run` on its file.
 */
import * as vscode from 'vscode';
import { RunReport } from './report';
import { CaseOutcome, FailureMessage, inlineOutputLines, reportOutcomes } from './testResults';

export class KataTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('infrakata', 'Kata');
  /** Runs started from the Testing view, by file uri, until their result arrives. */
  private readonly pending = new Map<string, vscode.TestRun>();

  constructor(
    private readonly runKata: (uri: vscode.Uri) => Promise<RunReport>,
    private readonly cancelKata: (uri: vscode.Uri) => Promise<void>,
  ) {
    this.controller.createRunProfile('Run kata', vscode.TestRunProfileKind.Run, (request, token) => this.runRequest(request, token), true);
  }

  /** Shows a `kata/result` report, in the Testing-view run that asked for it if there is one. */
  showResult(uri: vscode.Uri, report: RunReport): void {
    const key = uri.toString();
    const requested = this.pending.get(key);
    this.pending.delete(key);
    const run = requested ?? this.controller.createTestRun(new vscode.TestRunRequest(), report.title ?? report.problem, false);
    this.apply(run, uri, report);
    if (requested === undefined) {
      run.end();
    }
  }

  dispose(): void {
    this.controller.dispose();
  }

  private async runRequest(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const files = new Map<string, vscode.TestItem>();
    const requested: readonly vscode.TestItem[] = request.include ?? [...iterate(this.controller.items)];
    for (const item of requested) {
      const file = item.parent ?? item;
      files.set(file.id, file);
    }
    const run = this.controller.createTestRun(request);
    await Promise.all([...files.values()].map(async (file) => {
      const uri = file.uri!;
      file.children.forEach((c) => run.started(c));
      this.pending.set(uri.toString(), run);
      const cancel = token.onCancellationRequested(() => void this.cancelKata(uri));
      try {
        const report = await this.runKata(uri);
        // Normally `kata/result` arrived first and was shown in this run already.
        if (this.pending.get(uri.toString()) === run) {
          this.showResult(uri, report);
        }
      } catch (err) {
        this.pending.delete(uri.toString());
        run.errored(file, new vscode.TestMessage(`kata.run failed: ${err instanceof Error ? err.message : err}`));
      } finally {
        cancel.dispose();
      }
    }));
    run.end();
  }

  private apply(run: vscode.TestRun, uri: vscode.Uri, report: RunReport): void {
    const file = this.fileItem(uri, report);
    const outcomes = reportOutcomes(report);
    // A failure on a line where the inline values show the output stays off the editor: VS Code
    // would draw its message (at the case's line) over the end of that line, over the values.
    const covered = inlineOutputLines(report);
    const items = outcomes.cases.map((c) => {
      const item = this.controller.createTestItem(`${file.id}#${c.id}`, c.label, uri);
      item.range = covered.has(c.line) ? undefined : new vscode.Range(c.line, 0, c.line, 0);
      return [item, c] as const;
    });
    file.children.replace(items.map(([item]) => item));
    for (const [item, c] of items) {
      record(run, item, c, uri, !covered.has(c.line));
    }
    if (outcomes.fileError !== undefined) {
      run.errored(file, testMessage({ text: outcomes.fileError.message }, uri, outcomes.fileError.line));
    }
  }

  private fileItem(uri: vscode.Uri, report: RunReport): vscode.TestItem {
    const id = uri.toString();
    const item = this.controller.items.get(id) ?? this.controller.createTestItem(id, '', uri);
    item.label = report.title ?? report.problem;
    item.description = vscode.workspace.asRelativePath(uri);
    this.controller.items.add(item);
    return item;
  }
}

/** `inEditor`: the message also shows at its line in the editor. */
function record(run: vscode.TestRun, item: vscode.TestItem, c: CaseOutcome, uri: vscode.Uri, inEditor: boolean): void {
  switch (c.outcome) {
    case 'passed':
      return run.passed(item, c.durationMs);
    case 'skipped':
      return run.skipped(item);
    case 'failed':
      return run.failed(item, testMessage(c.message!, uri, c.line, inEditor), c.durationMs);
    case 'errored':
      return run.errored(item, testMessage(c.message!, uri, c.line, inEditor), c.durationMs);
  }
}

function testMessage(message: FailureMessage, uri: vscode.Uri, line: number, inEditor = true): vscode.TestMessage {
  const m = message.expected !== undefined && message.actual !== undefined
    ? vscode.TestMessage.diff(message.text, message.expected, message.actual)
    : new vscode.TestMessage(message.text);
  if (inEditor) {
    m.location = new vscode.Location(uri, new vscode.Position(line, 0));
  }
  return m;
}

function* iterate(items: vscode.TestItemCollection): Generator<vscode.TestItem> {
  for (const [, item] of items) {
    yield item;
  }
}
