/** What the status bar item says, from the server's state and the active file's last report. */
import { RunReport, verdictText } from './report';

export type ServerState =
  | { kind: 'stopped' }
  | { kind: 'starting'; python: string }
  | { kind: 'running'; python: string }
  | { kind: 'failed'; message: string };

export interface StatusView {
  text: string;
  tooltip: string;
  /** Command id run on click. */
  command: string;
}

export function statusView(server: ServerState, report: RunReport | undefined): StatusView {
  switch (server.kind) {
    case 'stopped':
      return { text: '$(circle-slash) kata', tooltip: 'kata server stopped', command: 'infrakata.restartServer' };
    case 'starting':
      return { text: '$(loading~spin) kata', tooltip: `Starting the kata server with ${server.python}`, command: 'infrakata.showOutput' };
    case 'failed':
      return { text: '$(warning) kata', tooltip: server.message, command: 'infrakata.showOutput' };
    case 'running':
      return report === undefined
        ? { text: '$(beaker) kata', tooltip: 'Run the current kata', command: 'infrakata.run' }
        : reportView(report);
  }
}

function reportView(report: RunReport): StatusView {
  const accepted = report.verdict === 'accepted';
  const icon = accepted ? '$(pass-filled)' : '$(error)';
  // A run that never reached the cases (syntax error, forbidden import) has nothing to count.
  const score = report.total > 0 ? `${report.passed}/${report.total}` : verdictText(report.verdict);
  const name = report.title ?? report.problem;
  return {
    text: `${icon} kata ${score}`,
    tooltip: `${name}: ${verdictText(report.verdict)}, ${report.passed}/${report.total} cases passed in ${Math.round(report.time_ms)} ms. Click to run again.`,
    command: 'infrakata.run',
  };
}
