/**
 * Connections: the `tsq.connections` / `tsq.activeConnection` settings, passwords in SecretStorage
 * (a password found in settings is moved there and removed, with a notice), the connection state
 * (none → connecting → connected | error) with its event, the status bar item, and the commands Add
 * Connection, Connect to Local Emulator, Switch Connection, Sign Out and Remove Connection.
 *
 * A failing connection never deletes the stored secret; only Sign Out and Remove Connection do.
 */
import * as vscode from 'vscode';
import { getLog, logRequest } from './log';
import { errorMessage, errorStatus, type ServiceApi } from './service';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { createService, type Service } from './serviceAdapter';
import { httpTimeouts } from './httpSettings';
import { observeRequest } from './connectionHealth';
import { loopbackDemoPassword, splitPasswords } from './settingsMigration';

/** One entry of `tsq.connections`. */
export interface ConnectionConfig {
  name: string;
  /** Base URL of the service (public API). */
  url: string;
  /** Base URL of the data-load API when it differs. */
  loadUrl?: string;
  username: string;
  /** Path of a PEM file of extra certificate authorities. */
  caFile?: string;
  rejectUnauthorized?: boolean;
}

/** What `tsq.addConnection` / `tsq.connectToEmulator` accept for automation (skips the prompts). */
export interface ConnectionArgs {
  name?: string;
  url: string;
  loadUrl?: string;
  username: string;
  password: string;
}

export type ConnectionStateName = 'none' | 'connecting' | 'connected' | 'error';

/** The state the automation API reports. */
export interface ConnectionState {
  name?: string;
  state: ConnectionStateName;
  error?: string;
}

/** Defaults of `npm run emulator -- --demo` (emulator/src/main.ts). */
export const EMULATOR_DEFAULTS = { name: 'Local emulator', url: 'http://127.0.0.1:8088', username: 'tsadmin', password: 'admin' } as const;

const SECRET_PREFIX = 'tsq.password/';

/**
 * The settings scope whose value of `tsq.<key>` is in force: the workspace's when the workspace sets
 * one (`npm start`'s demo workspace does), else the user's. Writing anywhere else has no effect that
 * the user could see.
 */
function effectiveTarget(config: vscode.WorkspaceConfiguration, key: string): vscode.ConfigurationTarget {
  return config.inspect(key)?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

/** Sets (or, with undefined, clears) `tsq.activeConnection` where it is in force (see effectiveTarget). */
async function setActiveConnection(name: string | undefined): Promise<void> {
  const config = vscode.workspace.getConfiguration('tsq');
  await config.update('activeConnection', name, effectiveTarget(config, 'activeConnection'));
}

export class ConnectionManager implements vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<ConnectionState>();
  /** Fires on every state change and on a switch of the active connection. */
  readonly onDidChange = this.changeEmitter.event;
  private state: ConnectionState = { state: 'none' };
  private service: { name: string; api: Service } | undefined;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private connectSeq = 0;
  /** Name of the connection whose stored password the service refused (401) last. */
  private rejectedPassword: string | undefined;
  private inFlight: { name: string; promise: Promise<boolean> } | undefined;
  /** Name of the connection signed out of: nothing connects it again without the user asking. */
  private signedOut: string | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.statusItem = vscode.window.createStatusBarItem('tsq.connection', vscode.StatusBarAlignment.Left, 50);
    this.statusItem.name = 'TSQ Connection';
    this.statusItem.command = 'tsq.switchConnection';
    this.disposables.push(
      this.statusItem,
      this.changeEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tsq.connections')) void this.migratePasswords();
        if (e.affectsConfiguration('tsq.connections') || e.affectsConfiguration('tsq.activeConnection')) {
          // settings edited by hand (or by the commands below): follow the active connection
          const active = this.activeName();
          const cfg = this.activeConfig();
          if (this.service && (this.service.name !== active || !cfg)) this.dropService();
          if (!cfg) {
            if (this.state.state !== 'none' || this.state.name) this.setState({ state: 'none' });
          } else if (this.state.name !== cfg.name) {
            void this.connect({ interactive: false, showErrors: true });
          }
        }
      }),
    );
    this.updateStatusItem();
    this.statusItem.show();
    void vscode.commands.executeCommand('setContext', 'tsq.connectionState', this.state.state);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The current state (for the automation API and the status bar). */
  getState(): ConnectionState {
    return { ...this.state };
  }

  /** All configured connections. */
  connections(): ConnectionConfig[] {
    const list = vscode.workspace.getConfiguration('tsq').get<unknown[]>('connections') ?? [];
    return list.filter(isConnectionConfig);
  }

  /** Name of the active connection ('' for none). */
  activeName(): string {
    return vscode.workspace.getConfiguration('tsq').get<string>('activeConnection') ?? '';
  }

  /** The active connection's settings, or undefined. */
  activeConfig(): ConnectionConfig | undefined {
    const name = this.activeName();
    return name ? this.connections().find((c) => c.name === name) : undefined;
  }

  /**
   * The service of the active connection, connecting first when needed.
   * @throws Error when there is no active connection or connecting fails.
   */
  async getService(): Promise<ServiceApi> {
    const cfg = this.activeConfig();
    if (!cfg) throw new Error('No TSQ connection is active. Run "TSQ: Add Connection" or "TSQ: Switch Connection".');
    if (this.service?.name === cfg.name && this.state.state === 'connected') return this.service.api;
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

  /** The service of the active connection when connected, without connecting. */
  currentService(): ServiceApi | undefined {
    return this.state.state === 'connected' ? this.service?.api : undefined;
  }

  /** Moves every `password` found in `tsq.connections` (any scope) to SecretStorage and removes it from settings, with a notice. */
  async migratePasswords(): Promise<void> {
    type Scope = { config: vscode.WorkspaceConfiguration; value: unknown; target: vscode.ConfigurationTarget; where: string };
    const root = vscode.workspace.getConfiguration('tsq');
    const inspected = root.inspect<unknown[]>('connections');
    const scopes: Scope[] = [
      { config: root, value: inspected?.globalValue, target: vscode.ConfigurationTarget.Global, where: 'user settings' },
      { config: root, value: inspected?.workspaceValue, target: vscode.ConfigurationTarget.Workspace, where: 'workspace settings' },
    ];
    // folder settings are their own scope only in a multi-root workspace; in a single-folder one they are
    // the workspace settings above, and writing them with the WorkspaceFolder target fails
    for (const folder of vscode.workspace.workspaceFile ? vscode.workspace.workspaceFolders ?? [] : []) {
      const config = vscode.workspace.getConfiguration('tsq', folder.uri);
      scopes.push({ config, value: config.inspect<unknown[]>('connections')?.workspaceFolderValue, target: vscode.ConfigurationTarget.WorkspaceFolder, where: `settings of ${folder.name}` });
    }
    const moved: string[] = [];
    for (const { config, value, target, where } of scopes) {
      const split = splitPasswords(value);
      if (!split.changed) continue;
      // the secrets first: if writing settings fails, no password is lost
      for (const [name, password] of split.moved) {
        await this.secrets.store(SECRET_PREFIX + name, password);
        moved.push(name);
      }
      try {
        await config.update('connections', split.cleaned, target);
      } catch (e) {
        getLog().error(`Could not remove the password from tsq.connections in ${where}: ${errorMessage(e)}`);
        void vscode.window.showWarningMessage(`TSQ stored the password in the secret storage but could not remove it from tsq.connections in ${where}: ${errorMessage(e)}. Remove it by hand.`);
      }
    }
    if (moved.length) {
      getLog().info(`Moved the password of ${moved.join(', ')} from settings to the secret storage.`);
      void vscode.window.showInformationMessage(
        `TSQ moved the password of ${moved.join(', ')} from your settings to VS Code's secret storage and removed it from settings.`,
      );
    }
  }

  /**
   * Connects the active connection: logs in to the public API with the stored password (asking for it
   * when none is stored and `interactive`). A wrong password (401) shows a clear message with a retry
   * that asks for the password again. Resolves true when connected.
   */
  connect(opts: { interactive: boolean; showErrors?: boolean }): Promise<boolean> {
    // concurrent callers (the language server's first requests, the tree, activation) share one login
    const name = this.activeName();
    if (!opts.interactive && this.inFlight && this.inFlight.name === name) return this.inFlight.promise;
    const promise = this.doConnect(opts).finally(() => {
      if (this.inFlight?.promise === promise) this.inFlight = undefined;
    });
    this.inFlight = { name, promise };
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
    let password = await this.secrets.get(SECRET_PREFIX + cfg.name);
    // after Sign Out the person is asked again, never handed the demo password behind their back
    const demoPassword = password || this.signedOut === cfg.name ? undefined : loopbackDemoPassword(cfg.url, process.env.TSQ_DEMO_PASSWORD);
    if (demoPassword) {
      // npm start's demo connection to a local emulator (scripts/start.mjs): keep it like a typed password
      await this.secrets.store(SECRET_PREFIX + cfg.name, demoPassword);
      password = demoPassword;
      getLog().info(`Stored the demo password of ${cfg.name} (${cfg.url}) from TSQ_DEMO_PASSWORD in the secret storage.`);
    }
    if ((!password || this.rejectedPassword === cfg.name) && opts.interactive) {
      password = await askPassword(cfg);
      if (password === undefined) return false;
      await this.secrets.store(SECRET_PREFIX + cfg.name, password);
      this.rejectedPassword = undefined;
    }
    if (!password) {
      this.setState({ name: cfg.name, state: 'error', error: `No password is stored for ${cfg.name}. Run "TSQ: Switch Connection" to enter it.` });
      return false;
    }
    this.setState({ name: cfg.name, state: 'connecting' });
    const api = createService(cfg, async () => (await this.secrets.get(SECRET_PREFIX + cfg.name)) ?? '', (r) => {
      logRequest(r);
      observeRequest(r);
    }, httpTimeouts());
    try {
      await api.login();
    } catch (e) {
      if (seq !== this.connectSeq) return false;
      const status = errorStatus(e);
      const message =
        status === 401
          ? `The service at ${cfg.url} did not accept the user name "${cfg.username}" with the stored password (${errorMessage(e)}).`
          : `Could not connect to ${cfg.name} at ${cfg.url}: ${errorMessage(e)}`;
      getLog().error(message);
      if (status === 401) this.rejectedPassword = cfg.name;
      this.setState({ name: cfg.name, state: 'error', error: message });
      if (opts.interactive || opts.showErrors) {
        const actions = status === 401 ? ['Enter Password', 'Show Log'] : ['Retry', 'Show Log'];
        void vscode.window.showErrorMessage(message, ...actions).then(async (choice) => {
          if (choice === 'Show Log') getLog().show();
          else if (choice === 'Retry') await this.connect(opts);
          else if (choice === 'Enter Password') {
            const again = await askPassword(cfg);
            if (again !== undefined) {
              await this.secrets.store(SECRET_PREFIX + cfg.name, again);
              this.rejectedPassword = undefined;
              await this.connect({ interactive: true });
            }
          }
        });
      }
      return false;
    }
    if (seq !== this.connectSeq) return false;
    if (this.rejectedPassword === cfg.name) this.rejectedPassword = undefined;
    const previous = this.service;
    this.service = { name: cfg.name, api };
    if (this.signedOut === cfg.name) this.signedOut = undefined;
    // another connection's sessions end; the same connection's old client may still be finishing a call
    if (previous && previous.name !== cfg.name) void previous.api.logout();
    getLog().info(`Connected to ${cfg.name} (${cfg.url}) as ${cfg.username}.`);
    this.setState({ name: cfg.name, state: 'connected' });
    return true;
  }

  /** Replaces the stored password of the active connection (after Change Password of the signed-in user). */
  async storePassword(password: string): Promise<void> {
    const cfg = this.activeConfig();
    if (cfg) await this.secrets.store(SECRET_PREFIX + cfg.name, password);
  }

  /** Adds (or replaces) a connection, stores its password, makes it active and connects. Prompts for what `args` does not give. */
  async addConnection(args?: Partial<ConnectionArgs>): Promise<boolean> {
    const automated = !!(args && args.url && args.username && args.password !== undefined);
    const url = args?.url ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (1/4)', prompt: 'Base URL of the Analytics Service', placeHolder: 'https://analytics.example.com', ignoreFocusOut: true, validateInput: validateUrl }));
    if (!url) return false;
    const username = args?.username ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (2/4)', prompt: 'User name', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Enter a user name') }));
    if (!username) return false;
    const password = args?.password ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (3/4)', prompt: `Password of ${username} (kept in VS Code's secret storage)`, password: true, ignoreFocusOut: true }));
    if (password === undefined) return false;
    const defaultName = args?.name ?? defaultConnectionName(url, username, this.connections());
    const name = args?.name ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (4/4)', prompt: 'A name for this connection', value: defaultName, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Enter a name') }));
    if (!name) return false;
    const entry: ConnectionConfig = { name: name.trim(), url: url.trim().replace(/\/+$/, ''), username: username.trim() };
    if (args?.loadUrl) entry.loadUrl = args.loadUrl.trim().replace(/\/+$/, '');
    await this.secrets.store(SECRET_PREFIX + entry.name, password);
    if (this.rejectedPassword === entry.name) this.rejectedPassword = undefined;
    await this.saveConnection(entry);
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
    await this.secrets.delete(SECRET_PREFIX + cfg.name);
    this.signedOut = cfg.name;
    getLog().info(`Signed out of ${cfg.name}; its password was removed from the secret storage.`);
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
    const config = vscode.workspace.getConfiguration('tsq');
    const inspected = config.inspect<unknown[]>('connections');
    for (const [value, t] of [
      [inspected?.globalValue, vscode.ConfigurationTarget.Global],
      [inspected?.workspaceValue, vscode.ConfigurationTarget.Workspace],
    ] as const) {
      if (Array.isArray(value) && value.some((c) => isConnectionConfig(c) && c.name === target)) {
        await config.update('connections', value.filter((c) => !(isConnectionConfig(c) && c.name === target)), t);
      }
    }
    await this.secrets.delete(SECRET_PREFIX + target);
    if (this.activeName() === target) {
      this.dropService();
      await setActiveConnection(undefined);
      this.setState({ state: 'none' });
    }
  }

  /**
   * Adds (or replaces by name) a connection in the settings scope whose `tsq.connections` is in force:
   * the workspace's when it sets one (a workspace array replaces the user's, so a connection saved
   * to user settings would never show there), else the user's.
   */
  private async saveConnection(entry: ConnectionConfig): Promise<void> {
    const config = vscode.workspace.getConfiguration('tsq');
    const target = effectiveTarget(config, 'connections');
    const inspected = config.inspect<unknown[]>('connections');
    const value = target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue;
    const current = (Array.isArray(value) ? value : []).filter((c) => !(isConnectionConfig(c) && c.name === entry.name));
    await config.update('connections', [...current, entry], target);
  }

  /** Ends the current service's sessions (in the background) and forgets it. */
  private dropService(): void {
    const old = this.service;
    this.service = undefined;
    if (old) void old.api.logout();
  }

  /** What connection health (connectionHealth.ts) adds to the status bar item; undefined: nothing. */
  private health: { text: string; tooltip: string; warning: boolean } | undefined;

  /** Shows the connection's health in the status bar item (reconnecting, unreachable, needs password), or clears it. */
  showHealth(health: { text: string; tooltip: string; warning: boolean } | undefined): void {
    this.health = health;
    this.updateStatusItem();
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    void vscode.commands.executeCommand('setContext', 'tsq.connectionState', state.state);
    this.updateStatusItem();
    this.changeEmitter.fire(this.getState());
  }

  private updateStatusItem(): void {
    const s = this.state;
    const name = s.name ?? (this.activeName() || undefined);
    const icon = { none: '$(debug-disconnect)', connecting: '$(sync~spin)', connected: '$(database)', error: '$(error)' }[s.state];
    this.statusItem.text = `${icon} TSQ${name ? `: ${name}` : ''}`;
    this.statusItem.tooltip = name ? `TSQ connection ${name}: ${s.state}${s.error ? `\n${s.error}` : ''}\nClick to switch connection.` : 'TSQ: no connection. Click to add one.';
    this.statusItem.backgroundColor = s.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    const h = this.health;
    if (h && name) {
      this.statusItem.text = `${h.text} TSQ: ${name}`;
      this.statusItem.tooltip = `TSQ connection ${name}: ${h.tooltip}`;
      if (h.warning) this.statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    }
  }
}

function isConnectionConfig(value: unknown): value is ConnectionConfig {
  const v = value as ConnectionConfig | undefined;
  return !!v && typeof v === 'object' && typeof v.name === 'string' && typeof v.url === 'string' && typeof v.username === 'string';
}

function validateUrl(value: string): string | undefined {
  try {
    const u = new URL(value.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'The URL must start with http:// or https://';
  } catch {
    return 'Enter a URL such as https://analytics.example.com';
  }
}

function defaultConnectionName(url: string, username: string, existing: ConnectionConfig[]): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    /* keep the text */
  }
  const base = `${username}@${host}`;
  let name = base;
  for (let i = 2; existing.some((c) => c.name === name); i++) name = `${base} (${i})`;
  return name;
}

async function askPassword(cfg: ConnectionConfig): Promise<string | undefined> {
  return vscode.window.showInputBox({ title: `TSQ: Password for ${cfg.name}`, prompt: `Password of ${cfg.username} at ${cfg.url} (kept in VS Code's secret storage)`, password: true, ignoreFocusOut: true });
}
