/**
 * The kata language server's lifecycle: resolve the interpreter, check that it can import
 * infrakata.server, start `<python> -m infrakata.server` over stdio, and restart it one
 * restart at a time.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  State,
} from 'vscode-languageclient/node';
import { importCheckArgs, Interpreter, resolveInterpreter, serverCommand, ServerUnavailable, unavailableMessage } from './interpreter';
import { activeInterpreter } from './python';
import { BenchmarkParams, ResultParams } from './report';
import { Serial } from './serial';
import { ServerSettings, validateSettings } from './settings';
import { ServerState } from './status';

const SECTION = 'infrakata';

export class KataServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly restarts = new Serial(() => this.restartNow());
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly resultEmitter = new vscode.EventEmitter<ResultParams>();
  private readonly benchmarkEmitter = new vscode.EventEmitter<BenchmarkParams>();
  readonly onDidChangeState = this.stateEmitter.event;
  /** `kata/result`: after every grading run. */
  readonly onResult = this.resultEmitter.event;
  /** `kata/benchmarkResult`: after a benchmark. */
  readonly onBenchmark = this.benchmarkEmitter.event;
  state: ServerState = { kind: 'stopped' };
  private warned = new Set<string>();

  constructor(private readonly output: vscode.LogOutputChannel) {}

  /** (Re)starts the server; concurrent calls share one restart after the one in flight. */
  restart(): Promise<void> {
    return this.restarts.request();
  }

  /** Runs a server command (`workspace/executeCommand`). */
  async execute<T>(command: string, args: unknown[]): Promise<T> {
    if (this.client === undefined || this.state.kind !== 'running') {
      throw new Error(`the kata server is not running (${this.state.kind}); see the infrakata output`);
    }
    return this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as Promise<T>;
  }

  /** Sends the current settings (`workspace/didChangeConfiguration`, section `infrakata`). */
  async sendSettings(): Promise<void> {
    if (this.client?.state === State.Running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.readSettings() } });
    }
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.stateEmitter.dispose();
    this.resultEmitter.dispose();
    this.benchmarkEmitter.dispose();
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.output.info(`server: ${state.kind}${'message' in state ? `: ${state.message}` : ''}`);
    this.stateEmitter.fire(state);
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      await client.dispose(2000).catch((err) => this.output.warn(`stopping the server: ${err}`));
    }
    this.setState({ kind: 'stopped' });
  }

  private async restartNow(): Promise<void> {
    await this.stop();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const interpreter = await resolveInterpreter(
      vscode.workspace.getConfiguration(SECTION).get<string>('python', ''),
      { workspaceFolder: folder },
      () => activeInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri).catch((err) => {
        this.output.warn(`the Python extension gave no interpreter: ${err}`);
        return undefined;
      }),
    );
    const python = interpreter.command.join(' ');
    this.output.info(`python: ${python} (from ${interpreter.source})`);
    this.setState({ kind: 'starting', python });
    const unavailable = await checkImport(interpreter);
    if (unavailable !== undefined) {
      const message = unavailableMessage(interpreter, unavailable, findCheckout());
      this.setState({ kind: 'failed', message });
      void showFailure(message);
      return;
    }
    const { command, args } = serverCommand(interpreter);
    // `python -m` puts its working folder first on sys.path: never the workspace, whose files (a numpy.py,
    // an infrakata/) would be imported by the grader. The extension's own folder holds no Python.
    const client = new LanguageClient(SECTION, 'infrakata', { command, args, options: { cwd: TRUSTED_CWD } }, this.clientOptions());
    client.onNotification('kata/result', (params: ResultParams) => this.resultEmitter.fire(params));
    client.onNotification('kata/benchmarkResult', (params: BenchmarkParams) => this.benchmarkEmitter.fire(params));
    client.onDidChangeState(({ newState }) => {
      // The client restarts a crashed server by itself a few times; report when it gives up.
      if (newState === State.Stopped && this.client === client) {
        this.setState({ kind: 'failed', message: 'The kata server stopped; see the infrakata output. Run "Kata: Restart Language Server" to start it again.' });
      }
    });
    this.client = client;
    try {
      await client.start();
      this.setState({ kind: 'running', python });
    } catch (err) {
      const message = `infrakata: the server (${command} ${args.join(' ')}) did not start: ${err instanceof Error ? err.message : err}`;
      this.setState({ kind: 'failed', message });
      void showFailure(message);
    }
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: 'file', language: 'python' }],
      outputChannel: this.output,
      initializationOptions: () => ({ [SECTION]: this.readSettings() }),
      middleware: {
        workspace: {
          // A server that pulls its settings gets the validated, path-resolved ones too.
          configuration: (params, token, next) => {
            if (params.items.every((item) => item.section !== SECTION)) {
              return next(params, token);
            }
            const current = this.readSettings();
            return params.items.map((item) => (item.section === SECTION ? current : null));
          },
        },
      },
    };
  }

  /**
   * Reads and validates the settings; a bad value is told to the user once (not again on each
   * read while it stays the same) and its default applies.
   */
  private readSettings(): ServerSettings {
    const config = vscode.workspace.getConfiguration(SECTION);
    const folders = vscode.workspace.workspaceFolders ?? [];
    const perFolder = folders.length > 0
      ? folders.map((f) => ({ folder: f.uri.fsPath, value: vscode.workspace.getConfiguration(SECTION, f.uri).get('problemPaths') }))
      : [{ value: config.get('problemPaths') }];
    const { settings, problems } = validateSettings(
      {
        gradeOn: config.get('gradeOn'),
        debounceMs: config.get('debounceMs'),
        watchFiles: config.get('watchFiles'),
        isolation: config.get('isolation'),
        inlineValues: config.get('inlineValues'),
      },
      perFolder,
    );
    for (const problem of problems.filter((p) => !this.warned.has(p))) {
      this.output.warn(problem);
      void vscode.window.showWarningMessage(problem);
    }
    this.warned = new Set(problems);
    return settings;
  }
}


/** Where the server's Python starts: the extension's own (bundled) folder, never the workspace. */
const TRUSTED_CWD = __dirname;

/** Undefined when `python -c "import infrakata.server"` works, else why not. */
function checkImport(interpreter: Interpreter): Promise<ServerUnavailable | undefined> {
  const { command, args } = importCheckArgs(interpreter);
  return new Promise((resolve) => {
    execFile(command, args, { cwd: TRUSTED_CWD, timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err === null) {
        resolve(undefined);
      } else if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        resolve({ kind: 'not found' });
      } else {
        resolve({ kind: 'import failed', stderr: stderr || err.message });
      }
    });
  });
}

/** A workspace folder holding an infrakata source checkout, for `pip install -e`. */
function findCheckout(): string | undefined {
  return vscode.workspace.workspaceFolders
    ?.map((f) => f.uri.fsPath)
    .find((dir) => {
      try {
        return /^name\s*=\s*["']infrakata["']/m.test(fs.readFileSync(path.join(dir, 'pyproject.toml'), 'utf8'));
      } catch {
        return false;
      }
    });
}

async function showFailure(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'infrakata.python');
  } else if (choice === 'Show Output') {
    await vscode.commands.executeCommand('infrakata.showOutput');
  }
}
