/**
 * The status bar item of runs: while a query runs, `TSQ: running <query>` (a click runs TSQ: Cancel
 * Query, which aborts every request of the run); after, the rows and time of the last run
 * (common/src/results/runStatus.ts), a click shows the results.
 */
import * as vscode from 'vscode';
import { lastRunText, shortQuery, type RunOutcome } from '../../../common/src/results/runStatus';

/** Beside the connection's item (priority 50, connectionStatus.ts), to its right. */
const PRIORITY = 49;

/** The run status item; hidden until the first run. */
export class RunStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tsq.run', vscode.StatusBarAlignment.Left, PRIORITY);
  /** Runs in progress, by a token of each, with what each runs (the newest shows). */
  private readonly running = new Map<symbol, string>();

  constructor(private readonly showResultsCommand: string) {
    this.item.name = 'TSQ Query';
  }

  /** A run starts: the item shows its query until `end` is called with the returned token. */
  start(what: string): symbol {
    const token = Symbol(what);
    this.running.set(token, what);
    this.showRunning(what);
    return token;
  }

  /** A run ended with `outcomes`: the item shows them, unless another run is still going. */
  end(token: symbol, outcomes: readonly RunOutcome[]): void {
    this.running.delete(token);
    const still = [...this.running.values()].pop();
    if (still !== undefined) return this.showRunning(still);
    const text = lastRunText(outcomes);
    if (text === undefined) return this.item.hide();
    const failed = outcomes.some((o) => o.error !== undefined);
    this.item.text = `${failed ? '$(error)' : outcomes.some((o) => o.cancelled) ? '$(circle-slash)' : '$(table)'} TSQ: ${text}`;
    this.item.tooltip = `Last run: ${text}${failed ? ` — ${outcomes.find((o) => o.error)!.error}` : ''}. Click to show the results.`;
    this.item.command = this.showResultsCommand;
    this.item.accessibilityInformation = { label: `TSQ last run: ${text}` };
    this.item.show();
  }

  private showRunning(what: string): void {
    const q = shortQuery(what);
    this.item.text = `$(sync~spin) TSQ: running ${q}`;
    this.item.tooltip = `Running ${shortQuery(what, 200)}. Click to cancel it.`;
    this.item.command = 'tsq.cancelQuery';
    this.item.accessibilityInformation = { label: `TSQ running ${q}, click to cancel` };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
