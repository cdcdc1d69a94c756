/**
 * The connection settings of the extension: `tsq.connections` and `tsq.activeConnection` read and
 * written, under the trust rules of common/src/trust.ts (credentials.ts `settingsConnections`), and
 * the passwords found in them moved to SecretStorage. The state machine that uses them is
 * connections.ts; the prompts are connectionPrompts.ts.
 */
import * as vscode from 'vscode';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import type { Sourced } from '../../common/src/trust';
import { credentialKey, credentialOrigin, settingsConnections, type InspectedConnections } from './credentials';
import { errorMessage } from './service';
import { splitPasswords } from './settingsMigration';

/** One entry of `tsq.connections`: the connection type the command line's files use too (common/src/connectionConfig.ts); the extension never reads its `passwordCommand`. */
export type { ConnectionSettings };

/** The key of `cfg`'s password, or undefined for a URL that is not http(s) (such a connection cannot log in). */
export function keyOf(cfg: { url: string; username: string }): string | undefined {
  try {
    return credentialKey(cfg.url, cfg.username);
  } catch {
    return undefined;
  }
}

/** The origin of `url` for messages (the URL itself when it has none). */
export function originText(url: string): string {
  try {
    return credentialOrigin(url);
  } catch {
    return url;
  }
}

/** True for a value with the members every `tsq.connections` entry needs. */
export function isConnectionSettings(value: unknown): value is ConnectionSettings {
  const v = value as ConnectionSettings | undefined;
  return !!v && typeof v === 'object' && typeof v.name === 'string' && typeof v.url === 'string' && typeof v.username === 'string';
}

/** `tsq.connections` as the user and the workspace set it; in an untrusted workspace only the user's counts. */
export function inspectConnections(): InspectedConnections {
  const inspected = vscode.workspace.getConfiguration('tsq').inspect<unknown[]>('connections');
  return { globalValue: inspected?.globalValue, workspaceValue: vscode.workspace.isTrusted ? inspected?.workspaceValue : undefined };
}

/** The settings file that holds workspace settings, for messages. */
export function workspaceSettingsFile(): string {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return file.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath : 'the workspace settings';
}

/** The connections in force and the warnings of the trust rules (credentials.ts `settingsConnections`). */
export function readConnections(): { connections: Sourced<ConnectionSettings>[]; warnings: string[] } {
  return settingsConnections(inspectConnections(), workspaceSettingsFile());
}

/** Name of the active connection ('' for none; in an untrusted workspace, the user settings' choice). */
export function readActiveName(): string {
  const config = vscode.workspace.getConfiguration('tsq');
  return (vscode.workspace.isTrusted ? config.get<string>('activeConnection') : config.inspect<string>('activeConnection')?.globalValue) ?? '';
}

/**
 * Sets (or, with undefined, clears) `tsq.activeConnection` in the scope whose value is in force: the
 * workspace's when the workspace sets one (`npm start`'s demo workspace does), else the user's.
 * Writing anywhere else has no effect that the user could see.
 */
export async function setActiveConnection(name: string | undefined): Promise<void> {
  const config = vscode.workspace.getConfiguration('tsq');
  const target = config.inspect('activeConnection')?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('activeConnection', name, target);
}

/**
 * Adds (or replaces by name) a connection in the user settings: a connection the person adds is their
 * own (user level), and shows in every workspace, also one whose settings add connections of their own.
 */
export async function saveConnection(entry: ConnectionSettings): Promise<void> {
  const config = vscode.workspace.getConfiguration('tsq');
  const value = config.inspect<unknown[]>('connections')?.globalValue;
  const current = (Array.isArray(value) ? value : []).filter((c) => !(isConnectionSettings(c) && c.name === entry.name));
  await config.update('connections', [...current, entry], vscode.ConfigurationTarget.Global);
}

/** Removes the connection named `name` from every settings scope that has it. */
export async function deleteConnection(name: string): Promise<void> {
  const config = vscode.workspace.getConfiguration('tsq');
  const inspected = config.inspect<unknown[]>('connections');
  for (const [value, t] of [
    [inspected?.globalValue, vscode.ConfigurationTarget.Global],
    [inspected?.workspaceValue, vscode.ConfigurationTarget.Workspace],
  ] as const) {
    if (Array.isArray(value) && value.some((c) => isConnectionSettings(c) && c.name === name)) {
      await config.update('connections', value.filter((c) => !(isConnectionSettings(c) && c.name === name)), t);
    }
  }
}

/** Moves every `password` found in `tsq.connections` (any scope) to SecretStorage and removes it from settings, with a notice (and a line in `log`). */
export async function migrateSettingsPasswords(secrets: vscode.SecretStorage, log: vscode.LogOutputChannel): Promise<void> {
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
      if (target !== vscode.ConfigurationTarget.Global && (await secrets.get(key)) !== undefined) continue;
      await secrets.store(key, password);
      moved.push(name);
    }
    try {
      await config.update('connections', split.cleaned, target);
    } catch (e) {
      log.error(`Could not remove the password from tsq.connections in ${where}: ${errorMessage(e)}`);
      void vscode.window.showWarningMessage(`TSQ stored the password in the secret storage but could not remove it from tsq.connections in ${where}: ${errorMessage(e)}. Remove it by hand.`);
    }
  }
  if (moved.length) {
    log.info(`Moved the password of ${moved.join(', ')} from settings to the secret storage.`);
    void vscode.window.showInformationMessage(
      `TSQ moved the password of ${moved.join(', ')} from your settings to VS Code's secret storage and removed it from settings.`,
    );
  }
}

