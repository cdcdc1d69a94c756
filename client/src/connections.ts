/**
 * Connections: the state of the active connection (none → connecting → connected | error, or
 * needsConfirmation) with its event, and the commands Add Connection, Connect to Local Emulator, Switch
 * Connection, Sign Out and Remove Connection. Settings: connectionSettings.ts; prompts:
 * connectionPrompts.ts; status bar item: connectionStatus.ts.
 * Passwords follow credentials.ts under the trust rules of common/src/trust.ts (the same as `tsq` and
 * `tsq lsp`): kept per service origin and user name; workspace settings may add connections, never
 * redefine the user's nor set TLS fields, and one they add is used only after the person confirms its
 * origin (never in an untrusted workspace). Editing the active connection's url, loadUrl, username or
 * TLS settings reconnects. A failing connection never deletes the stored secret; only Sign Out and
 * Remove Connection do.
 */
import * as vscode from 'vscode';
import type { Sourced } from '../../common/src/trust';
import { logRequest } from './log';
import type { ClientContext } from './context';
import { errorMessage, errorStatus, type ServiceApi } from './service';
import type { AnalyticsServiceClient, RequestLogInfo } from '../../common/src/api';
import { createService, type Service } from './serviceAdapter';
import { CONFIRMED_ORIGINS_KEY, confirmOrigins } from './originConfirmation';
import { askAndStoreToken, recordLastConnected, storedPassword, tokenKeyOf } from './connectionPasswords';
import { connectionChanged, connectionOrigins, LEGACY_SECRET_PREFIX } from './credentials';
import {
  deleteConnection,
  keyOf,
  migrateSettingsPasswords,
  originText,
  readActiveName,
  readConnections,
  saveConnection,
  setActiveConnection,
  type ConnectionSettings,
} from './connectionSettings';
import { askNewConnection, askPassword, type ConnectionArgs } from './connectionPrompts';
import { ConnectionStatusItem, type ConnectionState, type HealthDisplay } from './connectionStatus';
import { withOrgChoice } from './orgs';

export type { ConnectionSettings } from './connectionSettings';
export type { ConnectionArgs } from './connectionPrompts';
export type { ConnectionState, ConnectionStateName } from './connectionStatus';

/** Defaults of `npm run emulator -- --demo` (emulator/src/main.ts). */
export const EMULATOR_DEFAULTS = { name: 'Local emulator', url: 'http://127.0.0.1:8088', username: 'tsadmin', password: 'admin' } as const;


export class ConnectionManager implements vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<ConnectionState>();
  /** Fires on every state change and on a switch of the active connection. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly requestEmitter = new vscode.EventEmitter<RequestLogInfo>();
  /** Fires when a request of the active connection's service finished (connection health watches them). */
  readonly onDidRequest = this.requestEmitter.event;
  private state: ConnectionState = { state: 'none' };
  private service: { name: string; cfg: ConnectionSettings; api: Service } | undefined;
  private readonly statusItem = new ConnectionStatusItem();
  private readonly disposables: vscode.Disposable[] = [];
  private connectSeq = 0;
  /** Name of the connection whose stored password the service refused (401) last. */
  private rejectedPassword: string | undefined;
  private inFlight: { name: string; cfg: ConnectionSettings | undefined; promise: Promise<boolean> } | undefined;
  /** Name of the connection signed out of: nothing connects it again without the user asking. */
  private signedOut: string | undefined;

  /** Origins whose confirmation prompt was offered as a notification in this window (once each). */
  private readonly offered = new Set<string>();

  private readonly secrets: vscode.SecretStorage;
  private readonly globalState: vscode.Memento;
  private readonly log: vscode.LogOutputChannel;

  /** @param ctx the client's context: its secret storage, global state, log and HTTP deadlines. */
  constructor(private readonly ctx: ClientContext) {
    this.secrets = ctx.extension.secrets;
    this.globalState = ctx.extension.globalState;
    this.log = ctx.log;
    this.disposables.push(
      this.statusItem,
      this.changeEmitter,
      this.requestEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tsq.connections')) void this.migratePasswords();
        if (e.affectsConfiguration('tsq.connections') || e.affectsConfiguration('tsq.activeConnection')) {
          // settings edited by hand (or by the commands below): follow the active connection
          const active = this.activeName();
          const cfg = this.activeConfig();
          // a changed url, loadUrl, user name or TLS setting of the active connection ends its session
          const changed = !!(this.service && cfg && this.service.name === cfg.name && connectionChanged(this.service.cfg, cfg));
          if (this.service && (this.service.name !== active || !cfg || changed)) this.dropService();
          if (!cfg) {
            if (this.state.state !== 'none' || this.state.name) this.setState({ state: 'none' });
          } else if (this.state.name !== cfg.name || changed || this.state.state === 'needsConfirmation') {
            if (changed) this.log.info(`The settings of ${cfg.name} changed (now ${cfg.username} at ${cfg.url}); reconnecting.`);
            void this.connect({ interactive: false, showErrors: true });
          }
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // the workspace's connections now count: follow them (a workspace-defined one still needs confirmation)
        if (this.activeConfig() && this.state.state !== 'connected') void this.connect({ interactive: false, showErrors: true });
      }),
    );
    this.statusItem.render(this.state, this.activeName());
    void vscode.commands.executeCommand('setContext', 'tsq.connectionState', this.state.state);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The current state (for the automation API and the status bar). */
  getState(): ConnectionState {
    return { ...this.state };
  }

  /** Warnings of the trust rules already logged and shown in this window (once each). */
  private readonly warned = new Set<string>();

  /**
   * The connections in force: the user settings' entries, then those the workspace adds (only in a
   * trusted workspace) under the trust rules (credentials.ts `settingsConnections`). A workspace entry
   * refused or cleaned is said once in the log and in a warning naming the settings file.
   */
  connections(): Sourced<ConnectionSettings>[] {
    const { connections, warnings } = readConnections();
    for (const w of warnings) {
      if (this.warned.has(w)) continue;
      this.warned.add(w);
      this.log.warn(w);
      void vscode.window.showWarningMessage(`TSQ: ${w}`);
    }
    return connections;
  }

  /** Name of the active connection ('' for none; in an untrusted workspace, the user settings' choice). */
  activeName(): string {
    return readActiveName();
  }

  /** The active connection's settings, or undefined. */
  activeConfig(): Sourced<ConnectionSettings> | undefined {
    const name = this.activeName();
    // with the Org TSQ: Switch Org… chose for it (orgs.ts)
    return withOrgChoice(this.globalState, name ? this.connections().find((c) => c.name === name) : undefined);
  }

  /**
   * The service of the active connection, connecting first when needed.
   * @throws Error when there is no active connection or connecting fails.
   */
  async getService(): Promise<ServiceApi> {
    const cfg = this.activeConfig();
    if (!cfg) throw new Error('No TSQ connection is active. Run "TSQ: Add Connection" or "TSQ: Switch Connection".');
    if (this.service?.name === cfg.name && !connectionChanged(this.service.cfg, cfg) && this.state.state === 'connected') return this.service.api;
    if (this.state.state === 'needsConfirmation' && this.state.name === cfg.name) throw new Error(this.state.error ?? `The connection ${cfg.name} needs confirmation.`);
    if (this.signedOut === cfg.name) throw new Error(`Signed out of ${cfg.name}. Run "TSQ: Switch Connection" to sign in again.`);
    // a refused password stays refused until the user enters another one: do not ask the service again
    if (this.rejectedPassword === cfg.name && this.state.state === 'error') throw new Error(this.state.error ?? `The password of ${cfg.name} was refused.`);
    const ok = await this.connect({ interactive: false });
    if (!ok || !this.service) throw new Error(this.state.error ?? `Could not connect to ${cfg.name}.`);
    return this.service.api;
  }

  /**
   * The `AnalyticsServiceClient` of the active connection, connecting first when needed (for Run query
   * and Load CSV). Its sessions are made on first use and renewed on 401 by `common/src/api`.
   * @throws Error when there is no active connection or connecting fails.
   */
  async getClient(): Promise<AnalyticsServiceClient> {
    await this.getService();
    return this.service!.api.client;
  }

  /** The `AnalyticsServiceClient` of the active connection when connected, without connecting. */
  currentClient(): AnalyticsServiceClient | undefined {
    return this.state.state === 'connected' ? this.service?.api.client : undefined;
  }

  /** The service of the active connection when connected, without connecting. */
  currentService(): ServiceApi | undefined {
    return this.state.state === 'connected' ? this.service?.api : undefined;
  }

  /**
   * Connects the active connection: logs in to the public API with the stored password (asking for it
   * when none is stored and `interactive`). A wrong password (401) shows a clear message with a retry
   * that asks for the password again. Resolves true when connected.
   */
  connect(opts: { interactive: boolean; showErrors?: boolean }): Promise<boolean> {
    // concurrent callers (the language server's first requests, the tree, activation) share one login
    // (a login to the same connection's old url, user or TLS settings is not shared: it ends unused)
    const name = this.activeName();
    const cfg = this.activeConfig();
    const same = !!this.inFlight && this.inFlight.name === name && (!cfg || !this.inFlight.cfg || !connectionChanged(this.inFlight.cfg, cfg));
    if (!opts.interactive && this.inFlight && same) return this.inFlight.promise;
    const promise = this.doConnect(opts).finally(() => {
      if (this.inFlight?.promise === promise) this.inFlight = undefined;
    });
    this.inFlight = { name, cfg, promise };
    return promise;
  }

  private async doConnect(opts: { interactive: boolean; showErrors?: boolean }): Promise<boolean> {
    const cfg = this.activeConfig();
    if (!cfg) {
      this.dropService();
      this.setState({ state: 'none' });
      return false;
    }
    if (this.signedOut === cfg.name && !opts.interactive && !opts.showErrors) return false;
    const seq = ++this.connectSeq;
    const key = keyOf(cfg);
    if (!key) {
      this.setState({ name: cfg.name, state: 'error', error: `The URL of ${cfg.name} ("${cfg.url}") is not an http:// or https:// URL. Correct it in the setting tsq.connections.` });
      return false;
    }
    // a connection the workspace defines gets nothing before the person confirms where it points
    if (!(await confirmOrigins(cfg, opts.interactive, {
      globalState: this.globalState,
      log: this.log,
      offered: this.offered,
      needsConfirmation: (origins, error) => {
        this.dropService();
        this.setState({ name: cfg.name, state: 'needsConfirmation', origins, error });
      },
      review: () => void this.connect({ interactive: true }),
    }))) return false;
    if (seq !== this.connectSeq) return false;
    // a token the person gave (TSQ: Sign In with Token…) signs in instead of a password
    const token = await this.secrets.get(tokenKeyOf(key));
    let password = token ? undefined : await storedPassword(this.secrets, this.globalState, this.log, cfg, key, { interactive: opts.interactive, signedOut: this.signedOut === cfg.name });
    if (!token && (!password || this.rejectedPassword === cfg.name) && opts.interactive) {
      password = await askPassword(cfg);
      if (password === undefined) return false;
      await this.secrets.store(key, password);
      this.rejectedPassword = undefined;
    }
    if (!token && !password) {
      this.setState({ name: cfg.name, state: 'error', error: `No password is stored for ${cfg.username} at ${originText(cfg.url)} (connection ${cfg.name}). Run "TSQ: Switch Connection" to enter it, or "TSQ: Sign In with Token…".` });
      return false;
    }
    this.setState({ name: cfg.name, state: 'connecting' });
    const bearer = token ? { getToken: async () => (await this.secrets.get(tokenKeyOf(key))) ?? '' } : undefined;
    const api = createService(cfg, async () => (await this.secrets.get(key)) ?? '', (r) => {
      logRequest(this.log, r);
      this.requestEmitter.fire(r);
    }, this.ctx.http, bearer);
    try {
      await api.login();
    } catch (e) {
      if (seq === this.connectSeq) this.loginFailed(cfg, key, e, opts, !!token);
      return false;
    }
    if (seq !== this.connectSeq) return false;
    if (this.rejectedPassword === cfg.name) this.rejectedPassword = undefined;
    const previous = this.service;
    this.service = { name: cfg.name, cfg, api };
    if (this.signedOut === cfg.name) this.signedOut = undefined;
    // another connection's sessions end; the same connection's old client may still be finishing a call
    if (previous && (previous.name !== cfg.name || connectionChanged(previous.cfg, cfg))) void previous.api.logout();
    await recordLastConnected(this.globalState, cfg);
    this.log.info(`Connected to ${cfg.name} (${cfg.url}) as ${cfg.username}.`);
    this.setState({ name: cfg.name, state: 'connected', ...(cfg.org !== undefined ? { org: String(cfg.org) } : {}) });
    return true;
  }

  /** Replaces the stored password of the active connection (after Change Password of the signed-in user). */
  async storePassword(password: string): Promise<void> {
    const cfg = this.activeConfig();
    const key = cfg && keyOf(cfg);
    if (key) await this.secrets.store(key, password);
  }

  /** Adds (or replaces) a connection, stores its password, makes it active and connects. Prompts for what `args` does not give. */
  async addConnection(args?: Partial<ConnectionArgs>): Promise<boolean> {
    const automated = !!(args && args.url && args.username && args.password !== undefined);
    const asked = await askNewConnection(args, this.connections());
    if (!asked) return false;
    const { entry, password } = asked;
    const key = keyOf(entry);
    if (!key) {
      void vscode.window.showErrorMessage(`TSQ: "${entry.url}" is not an http:// or https:// URL; the connection was not added.`);
      return false;
    }
    await this.secrets.store(key, password);
    if (this.rejectedPassword === entry.name) this.rejectedPassword = undefined;
    // the person typed (or automation gave) this address: it needs no confirmation where workspace settings name it too
    const confirmed = this.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []);
    await this.globalState.update(CONFIRMED_ORIGINS_KEY, [...new Set([...confirmed, ...connectionOrigins(entry)])]);
    await saveConnection(entry);
    await setActiveConnection(entry.name);
    this.dropService();
    return this.connect({ interactive: !automated, showErrors: true });
  }

  /** Adds the connection to a local emulator (`npm run emulator -- --demo`) with its demo user, and connects. */
  async connectToEmulator(args?: Partial<ConnectionArgs>): Promise<boolean> {
    return this.addConnection({
      name: args?.name ?? EMULATOR_DEFAULTS.name,
      url: args?.url ?? EMULATOR_DEFAULTS.url,
      loadUrl: args?.loadUrl,
      username: args?.username ?? EMULATOR_DEFAULTS.username,
      password: args?.password ?? EMULATOR_DEFAULTS.password,
    });
  }

  /** Quick pick of the connections (and Add Connection…); connects the chosen one. */
  async switchConnection(): Promise<boolean> {
    const active = this.activeName();
    type Item = vscode.QuickPickItem & { name?: string; action?: 'add' | 'emulator' };
    const items: Item[] = this.connections().map((c) => ({
      label: c.name,
      description: `${c.username} @ ${c.url}`,
      detail: c.name === active ? `active — ${this.state.state}${this.state.error ? `: ${this.state.error}` : ''}` : undefined,
      iconPath: new vscode.ThemeIcon(c.name === active ? 'check' : 'database'),
      name: c.name,
    }));
    items.push({ label: '', kind: vscode.QuickPickItemKind.Separator }, { label: '$(add) Add Connection…', action: 'add' }, { label: '$(vm-connect) Connect to Local Emulator', action: 'emulator' });
    const pick = await vscode.window.showQuickPick(items, { title: 'TSQ: Switch Connection', placeHolder: 'Choose the Analytics Service connection to use' });
    if (!pick) return false;
    if (pick.action === 'add') return this.addConnection();
    if (pick.action === 'emulator') return this.connectToEmulator();
    if (!pick.name) return false;
    await setActiveConnection(pick.name);
    this.dropService();
    return this.connect({ interactive: true });
  }

  /** Says why signing in to `cfg` failed (`e`), in the state and, when the person is there, a message with what to do. */
  private loginFailed(cfg: ConnectionSettings, key: string, e: unknown, opts: { interactive: boolean; showErrors?: boolean }, usingToken: boolean): void {
    const status = errorStatus(e);
    const message =
      status === 401
        ? `The service at ${cfg.url} did not accept ${usingToken ? `the token of "${cfg.username}"` : `the user name "${cfg.username}" with the stored password`} (${errorMessage(e)}).`
        : `Could not connect to ${cfg.name} at ${cfg.url}: ${errorMessage(e)}`;
    this.log.error(message);
    if (status === 401 && !usingToken) this.rejectedPassword = cfg.name;
    this.setState({ name: cfg.name, state: 'error', error: message });
    if (opts.interactive || opts.showErrors) {
      const actions = status === 401 ? [usingToken ? 'Sign In with Token…' : 'Enter Password', 'Show Log'] : ['Retry', 'Show Log'];
      void vscode.window.showErrorMessage(message, ...actions).then(async (choice) => {
        if (choice === 'Show Log') this.log.show();
        else if (choice === 'Retry') await this.connect(opts);
        else if (choice === 'Sign In with Token…') await this.signInWithToken();
        else if (choice === 'Enter Password') {
          const again = await askPassword(cfg);
          if (again !== undefined) {
            await this.secrets.store(key, again);
            this.rejectedPassword = undefined;
            await this.connect({ interactive: true });
          }
        }
      });
    }
  }
  /**
   * TSQ: Sign In with Token…: a bearer token the person gives (an SSO or MFA user's, seed §5 and
   * docs/service-interface.md §10) for the active connection, kept in the secret storage under the
   * connection's origin and user like a password, and used instead of it until Sign Out.
   */
  async signInWithToken(): Promise<boolean> {
    const cfg = this.activeConfig();
    const key = cfg && keyOf(cfg);
    if (!cfg || !key) {
      void vscode.window.showWarningMessage('TSQ: add or pick a connection first (TSQ: Switch Connection), then sign in with a token.');
      return false;
    }
    if (!(await askAndStoreToken(this.secrets, this.log, cfg, key))) return false;
    this.signedOut = undefined;
    return this.connect({ interactive: true });
  }

  /** Logs out of the active connection and forgets its stored password. */
  async signOut(): Promise<void> {
    const cfg = this.activeConfig();
    if (!cfg) {
      void vscode.window.showInformationMessage('TSQ: no connection is active.');
      return;
    }
    this.connectSeq++;
    const api = this.service?.api;
    this.service = undefined;
    if (api) await api.logout();
    const key = keyOf(cfg);
    if (key) await this.secrets.delete(key);
    if (key) await this.secrets.delete(tokenKeyOf(key));
    await this.secrets.delete(LEGACY_SECRET_PREFIX + cfg.name);
    this.signedOut = cfg.name;
    this.log.info(`Signed out of ${cfg.name}; its password was removed from the secret storage.`);
    this.setState({ name: cfg.name, state: 'none' });
    void vscode.window.showInformationMessage(`Signed out of ${cfg.name}. The next connection asks for the password.`);
  }

  /** Removes a connection (picked) after a confirmation, with its stored password. */
  async removeConnection(name?: string): Promise<void> {
    const target =
      name ??
      (await vscode.window.showQuickPick(
        this.connections().map((c) => ({ label: c.name, description: `${c.username} @ ${c.url}` })),
        { title: 'TSQ: Remove Connection', placeHolder: 'Connection to remove' },
      ))?.label;
    if (!target) return;
    const ok = await vscode.window.showWarningMessage(`Remove the connection "${target}" and its stored password?`, { modal: true }, 'Remove');
    if (ok !== 'Remove') return;
    const removed = this.connections().find((c) => c.name === target);
    await deleteConnection(target);
    // the password belongs to the origin and user: keep it while another connection still uses them
    const key = removed && keyOf(removed);
    if (key && !this.connections().some((c) => keyOf(c) === key)) await this.secrets.delete(key);
    await this.secrets.delete(LEGACY_SECRET_PREFIX + target);
    if (this.activeName() === target) {
      this.dropService();
      await setActiveConnection(undefined);
      this.setState({ state: 'none' });
    }
  }

  /** Ends the current service's sessions (in the background) and forgets it. */
  private dropService(): void {
    const old = this.service;
    this.service = undefined;
    if (old) void old.api.logout();
  }

  /** Moves passwords found in `tsq.connections` to the secret storage (connectionSettings.ts). */
  migratePasswords(): Promise<void> {
    return migrateSettingsPasswords(this.secrets, this.log);
  }

  /** Shows the connection's health in the status bar item (reconnecting, unreachable, needs password), or clears it. */
  showHealth(health: HealthDisplay | undefined): void {
    this.statusItem.setHealth(health);
    this.statusItem.render(this.state, this.activeName());
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    void vscode.commands.executeCommand('setContext', 'tsq.connectionState', state.state);
    this.statusItem.render(this.state, this.activeName());
    this.changeEmitter.fire(this.getState());
  }
}
