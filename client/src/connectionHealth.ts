/**
 * Connection health: whether the active connection's service answers, shown in the status bar and
 * healed in the background. The states and when each is entered: `ConnectionHealth`.
 */
import * as vscode from 'vscode';
import type { RequestLogInfo } from '../../common/src/api';
import type { ConnectionSettings, ConnectionManager } from './connections';
import type { TsqClient } from './context';
import { errorMessage, errorStatus } from './service';

/** The health of the active connection. */
export type HealthStateName = 'idle' | 'connected' | 'reconnecting' | 'unreachable' | 'needsPassword';

/** What `ConnectionHealth.state` reports (also to the automation API). */
export interface HealthState {
  state: HealthStateName;
  /** Failed tries since the service stopped answering. */
  tries: number;
  /** When the next try is made (epoch ms), while reconnecting or unreachable. */
  nextTry?: number;
  /** What failed last, for the tooltip. */
  lastError?: string;
}

/** Options of `ConnectionHealth` (the defaults suit a person; tests shorten them). */
export interface HealthOptions {
  /** Wait before the first try, in ms (default 1000); doubled after each failed try. */
  firstDelayMs?: number;
  /** Longest wait between tries, in ms (default 30000). */
  maxDelayMs?: number;
  /** Failed tries after which the state reads unreachable (default 3). */
  unreachableAfter?: number;
}

/**
 * Watches the active connection's requests, retries its session in the background and shows its health.
 *
 * - Every service request is observed (the connection manager's `onDidRequest`, fed by the client's request log hook). A
 *   request that got no answer (a network failure or a deadline, not a cancel) turns a connected
 *   connection into **reconnecting**: the session is tried again (a login) after 1 s, 2 s, 4 s, … up to
 *   `maxDelayMs`; after `unreachableAfter` failed tries the state reads **unreachable** (the tries go on).
 *   The status bar says which, with the time of the next try.
 * - A 401 on a login means the stored password was refused: **needs password**, and no more tries
 *   (the person enters it with Switch Connection).
 * - Any answer from the service while reconnecting means it is back: **connected**; the catalog is
 *   refreshed and the language server told (`tsq/catalogChanged`, through TSQ: Refresh Catalog), so
 *   open documents are validated again without an edit.
 * - An edited `url` (or another setting) of the active connection ends the tries against the old one;
 *   the connection manager connects again with the new settings.
 */
export class ConnectionHealth implements vscode.Disposable {
  private current: HealthState = { state: 'idle', tries: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly opts: Required<HealthOptions>;
  /** The settings the connection was made with, to notice an edit. */
  private lastConfig: string | undefined;
  private readonly changed = new vscode.EventEmitter<HealthState>();
  /** Fires on every change of the health state. */
  readonly onDidChange = this.changed.event;

  private readonly connections: ConnectionManager;
  private readonly log: vscode.LogOutputChannel;

  /**
   * @param client the connections it watches and the log it reports to.
   * @param onRecovered called when the service answers again (or the connection was made anew after an
   *   edit): refreshes the catalog and tells the language server.
   */
  constructor(client: Pick<TsqClient, 'connections' | 'log'>, private readonly onRecovered: () => Promise<void>, opts: HealthOptions = {}) {
    const connections = (this.connections = client.connections);
    this.log = client.log;
    this.opts = { firstDelayMs: opts.firstDelayMs ?? 1000, maxDelayMs: opts.maxDelayMs ?? 30_000, unreachableAfter: opts.unreachableAfter ?? 3 };
    this.lastConfig = fingerprint(connections.activeConfig());
    this.disposables.push(
      this.changed,
      connections.onDidRequest((info) => this.observe(info)),
      connections.onDidChange((s) => {
        if (s.state === 'connected' && this.current.state === 'idle') this.set({ state: 'connected', tries: 0 });
        if (s.state === 'none') this.stop('idle');
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tsq.connections') || e.affectsConfiguration('tsq.activeConnection')) this.settingsEdited();
      }),
    );
  }

  /** The health now. */
  get state(): HealthState {
    return { ...this.current };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.connections.showHealth(undefined);
    for (const d of this.disposables) d.dispose();
  }

  private observe(info: RequestLogInfo): void {
    if (info.failure === 'aborted') return;
    if (info.failure === 'network' || info.failure === 'timeout') {
      this.failed(`${info.operation} (${info.method} ${info.path}): ${info.failure === 'timeout' ? 'no answer in time' : 'the service could not be reached'}`);
      return;
    }
    if ((info.operation === 'login' || info.operation === 'loadLogin') && info.status === 401) {
      this.stop('needsPassword');
      return;
    }
    // any answer, even an error status, means the service is there
    if (info.status > 0 && (this.current.state === 'reconnecting' || this.current.state === 'unreachable')) this.recovered();
  }

  private failed(what: string): void {
    if (!this.connections.activeConfig()) return;
    if (this.current.state === 'reconnecting' || this.current.state === 'unreachable') {
      this.current.lastError = what;
      return;
    }
    this.log.warn(`The service stopped answering (${what}); trying to reconnect in the background.`);
    this.set({ state: 'reconnecting', tries: 0, lastError: what });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(this.opts.maxDelayMs, this.opts.firstDelayMs * 2 ** this.current.tries);
    const state: HealthStateName = this.current.tries >= this.opts.unreachableAfter ? 'unreachable' : 'reconnecting';
    this.set({ ...this.current, state, nextTry: Date.now() + delay });
    this.timer = setTimeout(() => void this.tryAgain(), delay);
  }

  /** One background try: a login on the connection (made anew when it is not connected). */
  private async tryAgain(): Promise<void> {
    this.timer = undefined;
    if (this.current.state !== 'reconnecting' && this.current.state !== 'unreachable') return;
    try {
      const api = this.connections.currentService();
      if (api) await api.login();
      else if (!(await this.connections.connect({ interactive: false }))) throw new Error(this.connections.getState().error ?? 'could not connect');
    } catch (e) {
      if (errorStatus(e) === 401) {
        this.stop('needsPassword');
        return;
      }
      if (this.current.state !== 'reconnecting' && this.current.state !== 'unreachable') return;
      this.current.tries++;
      this.current.lastError = errorMessage(e);
      this.schedule();
      return;
    }
    if (this.current.state === 'reconnecting' || this.current.state === 'unreachable') this.recovered();
  }

  private recovered(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const tries = this.current.tries;
    this.set({ state: 'connected', tries: 0 });
    // requests still waiting on connections taken during the outage: sent again, or failed at once
    this.connections.currentClient()?.serviceBack();
    this.log.info(`The service answers again${tries ? ` (after ${tries} failed ${tries === 1 ? 'try' : 'tries'})` : ''}; refreshing the catalog.`);
    this.onRecovered().catch((e: unknown) => this.log.warn(`Refreshing the catalog failed: ${errorMessage(e)}`));
  }

  private stop(state: 'idle' | 'needsPassword'): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.current.state !== state) this.set({ state, tries: 0 });
  }

  /**
   * The active connection's settings changed: the connection manager makes the connection anew with
   * them (an edited `url` takes effect; client/src/connections.ts), and the catalog is refreshed when it
   * is connected. The tries against the old settings stop here.
   */
  private settingsEdited(): void {
    const cfg = this.connections.activeConfig();
    const print = fingerprint(cfg);
    const before = this.lastConfig;
    this.lastConfig = print;
    if (!cfg || !before || print === before) return;
    this.stop('idle');
  }

  private set(state: HealthState): void {
    this.current = state;
    this.connections.showHealth(statusOf(state));
    this.changed.fire(this.state);
  }
}

/** The status bar's words for a health state (undefined: the connection's own). */
function statusOf(h: HealthState): { text: string; tooltip: string; warning: boolean } | undefined {
  const at = h.nextTry ? new Date(h.nextTry).toLocaleTimeString() : undefined;
  const why = h.lastError ? `\nLast failure: ${h.lastError}` : '';
  switch (h.state) {
    case 'reconnecting':
      return { text: `$(sync~spin) reconnecting${at ? ` (next try ${at})` : ''}`, tooltip: `The service stopped answering; TSQ tries to sign in again in the background${at ? `, next at ${at}` : ''}.${why}`, warning: false };
    case 'unreachable':
      return { text: `$(warning) unreachable${at ? ` (next try ${at})` : ''}`, tooltip: `The service does not answer after ${h.tries} tries. TSQ keeps trying${at ? `, next at ${at}` : ''}; diagnostics use the last known columns meanwhile. Check the URL and the network, or run TSQ: Switch Connection.${why}`, warning: true };
    case 'needsPassword':
      return { text: '$(key) needs password', tooltip: 'The service refused the stored password. Click to enter it (TSQ: Switch Connection).', warning: true };
    default:
      return undefined;
  }
}

function fingerprint(cfg: ConnectionSettings | undefined): string | undefined {
  return cfg ? JSON.stringify({ name: cfg.name, url: cfg.url, loadUrl: cfg.loadUrl, username: cfg.username, caFile: cfg.caFile, rejectUnauthorized: cfg.rejectUnauthorized }) : undefined;
}
