/**
 * Where the password of a connection comes from before the person is asked: the secret storage under
 * the connection's origin and user (credentials.ts), a password an earlier version kept under the
 * connection's name (moved to where it was given), or the demo password of `npm start`'s local emulator.
 */
import * as vscode from 'vscode';
import { loopbackDemoPassword } from './settingsMigration';
import { adoptLegacyPassword, credentialOrigin, LEGACY_SECRET_PREFIX, migrateLegacyPassword, type LastConnection } from './credentials';
import { inspectConnections, isConnectionSettings, originText, type ConnectionSettings } from './connectionSettings';
import { askLegacyPassword } from './connectionPrompts';

/** Global state: connection name → where its user last connected (credentials.ts LastConnection). */
export const LAST_CONNECTED_KEY = 'tsq.lastConnected';

/**
 * The password stored for `cfg` under `key` (its origin and user), or undefined when none is. After
 * Sign Out (`opts.signedOut`) the demo password is never taken: the person is asked again. Asks about
 * an earlier version's password only when `opts.interactive`. What it moves or stores is logged in `log`.
 */
export async function storedPassword(secrets: vscode.SecretStorage, globalState: vscode.Memento, log: vscode.LogOutputChannel, cfg: ConnectionSettings, key: string, opts: { interactive: boolean; signedOut: boolean }): Promise<string | undefined> {
  let password = await secrets.get(key);
  if (!password) password = await legacyPassword(secrets, globalState, log, cfg, key, opts.interactive);
  // after Sign Out the person is asked again, never handed the demo password behind their back
  const demoPassword = password || opts.signedOut ? undefined : loopbackDemoPassword(cfg.url, process.env.TSQ_DEMO_PASSWORD);
  if (demoPassword) {
    // npm start's demo connection to a local emulator (scripts/start.mjs): keep it like a typed password
    await secrets.store(key, demoPassword);
    password = demoPassword;
    log.info(`Stored the demo password of ${cfg.name} (${cfg.url}) from TSQ_DEMO_PASSWORD in the secret storage.`);
  }
  return password;
}

/** Records where `cfg`'s user connected: an old-key password of this name belongs there (credentials.ts). */
export async function recordLastConnected(globalState: vscode.Memento, cfg: ConnectionSettings): Promise<void> {
  const last = globalState.get<Record<string, LastConnection>>(LAST_CONNECTED_KEY, {});
  await globalState.update(LAST_CONNECTED_KEY, { ...last, [cfg.name]: { origin: credentialOrigin(cfg.url), username: cfg.username } });
}

/**
 * A password an earlier version kept under the connection's name: moved to the origin it was given
 * for (credentials.ts migrateLegacyPassword) and returned when that is `cfg`'s. When nothing says
 * where it was given, asks (only when `interactive`) whether it belongs to `cfg`'s origin and user.
 */
async function legacyPassword(secrets: vscode.SecretStorage, globalState: vscode.Memento, log: vscode.LogOutputChannel, cfg: ConnectionSettings, key: string, interactive: boolean): Promise<string | undefined> {
  const records = globalState.get<Record<string, LastConnection>>(LAST_CONNECTED_KEY, {});
  const userEntry = (inspectConnections().globalValue as unknown[] | undefined)?.filter(isConnectionSettings).find((c) => c.name === cfg.name);
  const outcome = await migrateLegacyPassword(secrets, cfg, records[cfg.name], userEntry);
  if (outcome.kind === 'moved') {
    log.info(`Moved the saved password of ${cfg.name} to the key of ${outcome.username} at ${outcome.origin}, where it was given.`);
    return outcome.matches ? secrets.get(key) : undefined;
  }
  if (outcome.kind !== 'unknown' || !interactive) return undefined;
  const choice = await askLegacyPassword(cfg);
  if (choice === 'use') return adoptLegacyPassword(secrets, cfg);
  if (choice === 'forget') await secrets.delete(LEGACY_SECRET_PREFIX + cfg.name);
  return undefined;
}

/** The secret storage key of the bearer token of the origin and user whose password key is `key`. */
export function tokenKeyOf(key: string): string {
  return `token:${key}`;
}

/**
 * Asks for a bearer token for `cfg` (the prompt names the origin it goes to) and keeps it in the secret
 * storage under `tokenKeyOf(key)`. False when the person cancelled. The token is never put in a setting
 * or the log (`log` says only that one was stored).
 */
export async function askAndStoreToken(secrets: vscode.SecretStorage, log: vscode.LogOutputChannel, cfg: ConnectionSettings, key: string): Promise<boolean> {
  const token = await vscode.window.showInputBox({
    title: `TSQ: Sign In with Token to ${originText(cfg.url)}`,
    prompt: `A bearer token of ${cfg.username} at ${originText(cfg.url)} (connection ${cfg.name}), e.g. from the service's REST API playground or your administrator; kept in VS Code's secret storage for this address only`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Paste the token'),
  });
  if (token === undefined) return false;
  await secrets.store(tokenKeyOf(key), token.trim());
  log.info(`Stored a token for ${cfg.username} at ${originText(cfg.url)} (connection ${cfg.name}) in the secret storage.`);
  return true;
}
