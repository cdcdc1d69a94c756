/**
 * Connections: the `tsq.connections` / `tsq.activeConnection` settings, passwords in SecretStorage
 * (a password found in settings is moved there and removed, with a notice), the connection state
 * (none → connecting → connected | error, or needsConfirmation) with its event, the status bar item,
 * and the commands Add Connection, Connect to Local Emulator, Switch Connection, Sign Out and Remove
 * Connection.
 *
 * Where a password may go (credentials.ts, under the trust rules of common/src/trust.ts that `tsq` and
 * `tsq lsp` apply too): it is kept under the service's origin and the user name, so a connection pointing
 * elsewhere finds none and the person is asked, the prompt naming the origin. Workspace settings may add
 * connections and pick the active one, never redefine one of the user's (the user's wins, with a warning)
 * nor set its TLS fields. A connection they add is used only after the person confirms each of its
 * origins once (a modal naming the origin and the settings file), never in an untrusted workspace, whose
 * settings of connections are ignored; at activation it is not connected and the status bar says it
 * needs confirmation. Editing the active connection's url, loadUrl, username or TLS settings reconnects.
 *
 * A failing connection never deletes the stored secret; only Sign Out and Remove Connection do.
 */
import * as vscode from 'vscode';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import type { Sourced } from '../../common/src/trust';
import { getLog, logRequest } from './log';
import { errorMessage, errorStatus, type ServiceApi } from './service';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { createService, type Service } from './serviceAdapter';
import { httpTimeouts } from './httpSettings';
import { observeRequest } from './connectionHealth';
import { loopbackDemoPassword, splitPasswords } from './settingsMigration';
import {
  adoptLegacyPassword,
  connectionChanged,
  credentialKey,
  credentialOrigin,
  connectionOrigins,
  LEGACY_SECRET_PREFIX,
  migrateLegacyPassword,
  settingsConnections,
  unconfirmedOrigins,
  type InspectedConnections,
  type LastConnection,
} from './credentials';

/**
 * One entry of `tsq.connections`: the fields the command line's connection files share
 * (common/src/connectionConfig.ts), less `passwordCommand`, which settings a workspace can write must
 * never hold (it would run a program of the workspace's choosing).
 */
export type ConnectionConfig = Omit<ConnectionSettings, 'passwordCommand'>;

/** What `tsq.addConnection` / `tsq.connectToEmulator` accept for automation (skips the prompts). */
export interface ConnectionArgs {
  name?: string;
  url: string;
  loadUrl?: string;
  username: string;
  password: string;
}

/** `needsConfirmation`: workspace settings define the active connection and the person has not confirmed its origin yet. */
export type ConnectionStateName = 'none' | 'connecting' | 'connected' | 'error' | 'needsConfirmation';

/** The state the automation API reports. */
export interface ConnectionState {
  name?: string;
  state: ConnectionStateName;
  error?: string;
  /** With needsConfirmation: the origins awaiting confirmation. */
  origins?: string[];
}

/** Defaults of `npm run emulator -- --demo` (emulator/src/main.ts). */
export const EMULATOR_DEFAULTS = { name: 'Local emulator', url: 'http://127.0.0.1:8088', username: 'tsadmin', password: 'admin' } as const;

/** Global state: connection name → where its user last connected (credentials.ts LastConnection). */
const LAST_CONNECTED_KEY = 'tsq.lastConnected';
/** Global state: origins the person confirmed for workspace-defined connections. */
const CONFIRMED_ORIGINS_KEY = 'tsq.confirmedOrigins';

/** The key of `cfg`'s password, or undefined for a URL that is not http(s) (such a connection cannot log in). */
function keyOf(cfg: { url: string; username: string }): string | undefined {
  try {
    return credentialKey(cfg.url, cfg.username);
  } catch {
    return undefined;
  }
}

/** The origin of `url` for messages (the URL itself when it has none). */
function originText(url: string): string {
  try {
    return credentialOrigin(url);
  } catch {
    return url;
  }
}

/** `tsq.connections` as the user and the workspace set it; in an untrusted workspace only the user's counts. */
function inspectConnections(): InspectedConnections {
  const inspected = vscode.workspace.getConfiguration('tsq').inspect<unknown[]>('connections');
  return { globalValue: inspected?.globalValue, workspaceValue: vscode.workspace.isTrusted ? inspected?.workspaceValue : undefined };
}

/** The settings file that holds workspace settings, for messages. */
function workspaceSettingsFile(): string {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return file.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath : 'the workspace settings';
}

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
  private service: { name: string; cfg: ConnectionConfig; api: Service } | undefined;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private connectSeq = 0;
  /** Name of the connection whose stored password the service refused (401) last. */
  private rejectedPassword: string | undefined;
  private inFlight: { name: string; cfg: ConnectionConfig | undefined; promise: Promise<boolean> } | undefined;
  /** Name of the connection signed out of: nothing connects it again without the user asking. */
  private signedOut: string | undefined;

  /** Origins whose confirmation prompt was offered as a notification in this window (once each). */
  private readonly offered = new Set<string>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly globalState: vscode.Memento,
  ) {
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
          // a changed url, loadUrl, user name or TLS setting of the active connection ends its session
          const changed = !!(this.service && cfg && this.service.name === cfg.name && connectionChanged(this.service.cfg, cfg));
          if (this.service && (this.service.name !== active || !cfg || changed)) this.dropService();
          if (!cfg) {
            if (this.state.state !== 'none' || this.state.name) this.setState({ state: 'none' });
          } else if (this.state.name !== cfg.name || changed || this.state.state === 'needsConfirmation') {
            if (changed) getLog().info(`The settings of ${cfg.name} changed (now ${cfg.username} at ${cfg.url}); reconnecting.`);
            void this.connect({ interactive: false, showErrors: true });
          }
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // the workspace's connections now count: follow them (a workspace-defined one still needs confirmation)
        if (this.activeConfig() && this.state.state !== 'connected') void this.connect({ interactive: false, showErrors: true });
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

  /** Warnings of the trust rules already logged and shown in this window (once each). */
  private readonly warned = new Set<string>();

  /**
   * The connections in force: the user settings' entries, then those the workspace adds (only in a
   * trusted workspace) under the trust rules (credentials.ts `settingsConnections`). A workspace entry
   * refused or cleaned is said once in the log and in a warning naming the settings file.
   */
  connections(): Sourced<ConnectionConfig>[] {
    const { connections, warnings } = settingsConnections(inspectConnections(), workspaceSettingsFile());
    for (const w of warnings) {
      if (this.warned.has(w)) continue;
      this.warned.add(w);
      getLog().warn(w);
      void vscode.window.showWarningMessage(`TSQ: ${w}`);
    }
    return connections;
  }

  /** Name of the active connection ('' for none; in an untrusted workspace, the user settings' choice). */
  activeName(): string {
    const config = vscode.workspace.getConfiguration('tsq');
    return (vscode.workspace.isTrusted ? config.get<string>('activeConnection') : config.inspect<string>('activeConnection')?.globalValue) ?? '';
  }

  /** The active connection's settings, or undefined. */
  activeConfig(): Sourced<ConnectionConfig> | undefined {
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

  /** The service of the active connection when connected, without connecting. */
  currentService(): ServiceApi | undefined {
    return this.state.state === 'connected' ? this.service?.api : undefined;
  }

  /** Moves every `password` found in `tsq.connections` (any scope) to SecretStorage and removes it from settings, with a notice. */
  async migratePasswords(): Promise<void> {
    type Scope = { config: vscode.WorkspaceConfiguration; value: unknown; target: vscode.ConfigurationTarget; where: string };
    const root = vscode.workspace.getConfiguration('tsq');
    const inspected = root.inspect<unknown[]>('connections');
    const scopes: Scope[] = [{ config: root, value: inspected?.globalValue, target: vscode.ConfigurationTarget.Global, where: 'user settings' }];
    // an untrusted workspace's settings are not acted on at all
    if (vscode.workspace.isTrusted) scopes.push({ config: root, value: inspected?.workspaceValue, target: vscode.ConfigurationTarget.Workspace, where: 'workspace settings' });
    // folder settings are their own scope only in a multi-root workspace; in a single-folder one they are
    // the workspace settings above, and writing them with the WorkspaceFolder target fails
    for (const folder of vscode.workspace.workspaceFile && vscode.workspace.isTrusted ? vscode.workspace.workspaceFolders ?? [] : []) {
      const config = vscode.workspace.getConfiguration('tsq', folder.uri);
      scopes.push({ config, value: config.inspect<unknown[]>('connections')?.workspaceFolderValue, target: vscode.ConfigurationTarget.WorkspaceFolder, where: `settings of ${folder.name}` });
    }
    const moved: string[] = [];
    for (const { config, value, target, where } of scopes) {
      const split = splitPasswords(value);
      if (!split.changed) continue;
      // the secrets first: if writing settings fails, no password is lost. Each is kept for the origin and
      // user of its own entry; one from workspace settings never replaces a password the person stored.
      for (const { name, url, username, password } of split.credentials) {
        const key = keyOf({ url, username });
        if (!key) continue;
        if (target !== vscode.ConfigurationTarget.Global && (await this.secrets.get(key)) !== undefined) continue;
        await this.secrets.store(key, password);
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
    if (!(await this.confirmOrigins(cfg, opts.interactive))) return false;
    if (seq !== this.connectSeq) return false;
    let password = await this.secrets.get(key);
    if (!password) password = await this.legacyPassword(cfg, key, opts.interactive);
    // after Sign Out the person is asked again, never handed the demo password behind their back
    const demoPassword = password || this.signedOut === cfg.name ? undefined : loopbackDemoPassword(cfg.url, process.env.TSQ_DEMO_PASSWORD);
    if (demoPassword) {
      // npm start's demo connection to a local emulator (scripts/start.mjs): keep it like a typed password
      await this.secrets.store(key, demoPassword);
      password = demoPassword;
      getLog().info(`Stored the demo password of ${cfg.name} (${cfg.url}) from TSQ_DEMO_PASSWORD in the secret storage.`);
    }
    if ((!password || this.rejectedPassword === cfg.name) && opts.interactive) {
      password = await askPassword(cfg);
      if (password === undefined) return false;
      await this.secrets.store(key, password);
      this.rejectedPassword = undefined;
    }
    if (!password) {
      this.setState({ name: cfg.name, state: 'error', error: `No password is stored for ${cfg.username} at ${originText(cfg.url)} (connection ${cfg.name}). Run "TSQ: Switch Connection" to enter it.` });
      return false;
    }
    this.setState({ name: cfg.name, state: 'connecting' });
    const api = createService(cfg, async () => (await this.secrets.get(key)) ?? '', (r) => {
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
              await this.secrets.store(key, again);
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
    this.service = { name: cfg.name, cfg, api };
    if (this.signedOut === cfg.name) this.signedOut = undefined;
    // another connection's sessions end; the same connection's old client may still be finishing a call
    if (previous && (previous.name !== cfg.name || connectionChanged(previous.cfg, cfg))) void previous.api.logout();
    // where this connection's user last connected: an old-key password of this name belongs there (credentials.ts)
    const last = this.globalState.get<Record<string, LastConnection>>(LAST_CONNECTED_KEY, {});
    await this.globalState.update(LAST_CONNECTED_KEY, { ...last, [cfg.name]: { origin: credentialOrigin(cfg.url), username: cfg.username } });
    getLog().info(`Connected to ${cfg.name} (${cfg.url}) as ${cfg.username}.`);
    this.setState({ name: cfg.name, state: 'connected' });
    return true;
  }

  /**
   * True when `cfg` may be used: the user settings define it, or the person confirmed each of its
   * origins before (once per origin, kept in global state). Otherwise, when `interactive`, asks in a
   * modal naming the origins and the settings file; when not, sets the state needsConfirmation and
   * offers the question once per origin as a notification. Nothing is sent anywhere before.
   */
  private async confirmOrigins(cfg: Sourced<ConnectionConfig>, interactive: boolean): Promise<boolean> {
    let missing: string[];
    try {
      missing = unconfirmedOrigins(cfg, cfg.level, this.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []), !!process.env.TSQ_DEMO_PASSWORD);
    } catch {
      return true; // not an http(s) URL: doConnect refuses it
    }
    if (missing.length === 0) return true;
    const where = missing.join(' and ');
    const file = workspaceSettingsFile();
    const what = `The workspace settings (${file}) define the connection "${cfg.name}" to ${where} as ${cfg.username}.`;
    const needs = (): void => {
      this.dropService();
      this.setState({ name: cfg.name, state: 'needsConfirmation', origins: missing, error: `${what} TSQ sends no password there until you confirm it: click the TSQ status bar item or run "TSQ: Switch Connection".` });
    };
    if (!interactive) {
      needs();
      if (missing.some((o) => !this.offered.has(o))) {
        for (const o of missing) this.offered.add(o);
        getLog().warn(`${what} Not connecting until you confirm it.`);
        void vscode.window.showWarningMessage(`${what} TSQ did not connect: settings in a folder can point your password anywhere. Review before connecting.`, 'Review…').then((choice) => {
          if (choice) void this.connect({ interactive: true });
        });
      }
      return false;
    }
    const trust = 'Trust and Connect';
    const choice = await vscode.window.showWarningMessage(
      `Connect to ${where}?`,
      {
        modal: true,
        detail: `${what}\n\nConnecting sends the user name and a password to ${where}. Continue only if you trust ${missing.length > 1 ? 'these services' : 'this service'}; TSQ remembers your answer for ${missing.length > 1 ? 'these origins' : 'this origin'}.`,
      },
      trust,
    );
    if (choice !== trust) {
      needs();
      return false;
    }
    const confirmed = this.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []);
    await this.globalState.update(CONFIRMED_ORIGINS_KEY, [...new Set([...confirmed, ...missing])]);
    getLog().info(`Confirmed ${where} for connections defined in workspace settings (${file}).`);
    return true;
  }

  /**
   * A password an earlier version kept under the connection's name: moved to the origin it was given
   * for (credentials.ts migrateLegacyPassword) and returned when that is `cfg`'s. When nothing says
   * where it was given, asks (only when `interactive`) whether it belongs to `cfg`'s origin and user.
   */
  private async legacyPassword(cfg: ConnectionConfig, key: string, interactive: boolean): Promise<string | undefined> {
    const records = this.globalState.get<Record<string, LastConnection>>(LAST_CONNECTED_KEY, {});
    const userEntry = (inspectConnections().globalValue as unknown[] | undefined)?.filter(isConnectionConfig).find((c) => c.name === cfg.name);
    const outcome = await migrateLegacyPassword(this.secrets, cfg, records[cfg.name], userEntry);
    if (outcome.kind === 'moved') {
      getLog().info(`Moved the saved password of ${cfg.name} to the key of ${outcome.username} at ${outcome.origin}, where it was given.`);
      return outcome.matches ? this.secrets.get(key) : undefined;
    }
    if (outcome.kind !== 'unknown' || !interactive) return undefined;
    const origin = originText(cfg.url);
    const use = 'Use It for This Service';
    const forget = 'Forget It';
    const choice = await vscode.window.showWarningMessage(
      `Use the saved password of "${cfg.name}" for ${cfg.username} at ${origin}?`,
      { modal: true, detail: `An earlier version of TSQ saved a password for the connection "${cfg.name}" without noting which service it was given for. TSQ now keeps each password for one service address and user name. Use it only if you gave it for ${origin}; otherwise TSQ asks for the password.` },
      use,
      forget,
    );
    if (choice === use) return adoptLegacyPassword(this.secrets, cfg);
    if (choice === forget) await this.secrets.delete(LEGACY_SECRET_PREFIX + cfg.name);
    return undefined;
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
    const key = keyOf(entry);
    if (!key) {
      void vscode.window.showErrorMessage(`TSQ: "${entry.url}" is not an http:// or https:// URL; the connection was not added.`);
      return false;
    }
    await this.secrets.store(key, password);
    if (this.rejectedPassword === entry.name) this.rejectedPassword = undefined;
    // the person typed (or automation gave) this address: it needs no confirmation if saved to workspace settings
    const confirmed = this.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []);
    await this.globalState.update(CONFIRMED_ORIGINS_KEY, [...new Set([...confirmed, ...connectionOrigins(entry)])]);
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
    const key = keyOf(cfg);
    if (key) await this.secrets.delete(key);
    await this.secrets.delete(LEGACY_SECRET_PREFIX + cfg.name);
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
    const removed = this.connections().find((c) => c.name === target);
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
    const icon = { none: '$(debug-disconnect)', connecting: '$(sync~spin)', connected: '$(database)', error: '$(error)', needsConfirmation: '$(shield)' }[s.state];
    this.statusItem.text = `${icon} TSQ${name ? `: ${name}` : ''}${s.state === 'needsConfirmation' ? ' — needs confirmation' : ''}`;
    this.statusItem.tooltip = name ? `TSQ connection ${name}: ${s.state}${s.error ? `\n${s.error}` : ''}\nClick to switch connection.` : 'TSQ: no connection. Click to add one.';
    this.statusItem.backgroundColor =
      s.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : s.state === 'needsConfirmation' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    // connection health (connectionHealth.ts): reconnecting, unreachable, needs password
    const h = this.health;
    if (h && name && s.state === 'connected') {
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

/** Asks for the password of `cfg`'s user, naming the origin it will be sent to (and kept for). */
async function askPassword(cfg: ConnectionConfig): Promise<string | undefined> {
  const origin = originText(cfg.url);
  const load = cfg.loadUrl && originText(cfg.loadUrl) !== origin ? ` and ${originText(cfg.loadUrl)}` : '';
  return vscode.window.showInputBox({
    title: `TSQ: Password for ${cfg.username} at ${origin}`,
    prompt: `Password of ${cfg.username} at ${origin}${load} (connection ${cfg.name}; kept in VS Code's secret storage for this address only)`,
    password: true,
    ignoreFocusOut: true,
  });
}
