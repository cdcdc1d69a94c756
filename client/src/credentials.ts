/**
 * Where a password may go. Pure (no `vscode`): connections.ts hands in the secret storage, the settings
 * as inspected and its records, so unit tests run these rules as they are.
 * - A password's SecretStorage key is the service's normalized origin and the user name
 *   (`credentialKey`), never a connection's name: a connection elsewhere finds none and the person is asked.
 * - A password of an earlier version (`LEGACY_SECRET_PREFIX` + name) moves to the origin the connection
 *   had when last connected (`LastConnection`), else as the user's own settings define it; otherwise the
 *   caller asks. Nothing moves silently.
 * - The connections in force (`settingsConnections`) follow common/src/trust.ts: user settings are user
 *   level, workspace settings project level, whose new connections need the person's confirmation.
 */
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import { connectionOrigins, credentialOrigin, isLoopbackOrigin, mergeConnectionLevels, type ConnectionLevel, type Sourced } from '../../common/src/trust';

export { connectionOrigins, credentialOrigin, isLoopbackOrigin };

/** Secret storage as connections.ts uses it (VS Code's `SecretStorage`). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}


/** Where a connection's user connected last (kept per connection name in the extension's global state). */
export interface LastConnection {
  /** `credentialOrigin` of its `url` then. */
  origin: string;
  username: string;
}

/** Prefix of the keys of earlier versions: `tsq.password/<connection name>`. */
export const LEGACY_SECRET_PREFIX = 'tsq.password/';
/** Prefix of the keys of passwords: `tsq.credential/<origin>/<url-encoded user name>`. */
export const SECRET_PREFIX = 'tsq.credential/';

/** The SecretStorage key of the password of `username` at the origin of `url` (see credentialOrigin). */
export function credentialKey(url: string, username: string): string {
  return `${SECRET_PREFIX}${credentialOrigin(url)}/${encodeURIComponent(username)}`;
}

/** True when the two entries send the same user's password to the same places (url, loadUrl, loadNodes) with the same TLS checks. */
export function sameEndpoint(a: ConnectionSettings, b: ConnectionSettings): boolean {
  const norm = (u: string | undefined): string => (u ?? '').trim().replace(/\/+$/, '');
  return (
    norm(a.url) === norm(b.url) &&
    norm(a.loadUrl) === norm(b.loadUrl) &&
    JSON.stringify(a.loadNodes ?? []) === JSON.stringify(b.loadNodes ?? []) &&
    a.username === b.username &&
    (a.caFile ?? '') === (b.caFile ?? '') &&
    (a.rejectUnauthorized ?? true) === (b.rejectUnauthorized ?? true) &&
    String(a.org ?? '') === String(b.org ?? '')
  );
}

/** The settings scopes of `tsq.connections`, as `WorkspaceConfiguration.inspect` gives them. */
export interface InspectedConnections {
  globalValue?: unknown;
  workspaceValue?: unknown;
}

function entries(value: unknown): ConnectionSettings[] {
  return Array.isArray(value) ? value.filter((v): v is ConnectionSettings => !!v && typeof v === 'object' && typeof (v as ConnectionSettings).name === 'string' && typeof (v as ConnectionSettings).url === 'string' && typeof (v as ConnectionSettings).username === 'string') : [];
}

/**
 * The connections in force from `tsq.connections` as inspected (user and workspace scopes), under the
 * trust rules (common/src/trust.ts `mergeConnectionLevels`): every user entry, then the workspace's
 * entries that do not reuse a user name, without `caFile`, `rejectUnauthorized`, `passwordCommand`,
 * `loadNodes` or a `loadUrl` on another host. `warnings` name `workspaceSource` (the settings file) for each refusal.
 */
export function settingsConnections(inspected: InspectedConnections | undefined, workspaceSource: string): { connections: Sourced<ConnectionSettings>[]; warnings: string[] } {
  const user: Sourced<ConnectionSettings>[] = entries(inspected?.globalValue).map((c) => ({ ...c, level: 'user', source: 'your user settings' }));
  const project: Sourced<ConnectionSettings>[] = entries(inspected?.workspaceValue).map((c) => ({ ...c, level: 'project', source: workspaceSource }));
  return mergeConnectionLevels(user, project);
}

/**
 * The origins of a connection the person has not confirmed yet (empty: it may be used). A user-level
 * connection needs none; a project-level one (workspace settings) each of its origins once.
 * @param confirmed origins the person confirmed before (kept by the caller).
 * @param demoLoopback true when the editor was started with TSQ_DEMO_PASSWORD (npm start, scripts/start.mjs):
 *   then loopback origins count as confirmed, as the person started that emulator themselves.
 */
export function unconfirmedOrigins(cfg: ConnectionSettings, level: ConnectionLevel, confirmed: readonly string[], demoLoopback = false): string[] {
  if (level === 'user') return [];
  return connectionOrigins(cfg).filter((o) => !confirmed.includes(o) && !(demoLoopback && isLoopbackOrigin(o)));
}

/** The outcome of `migrateLegacyPassword`. */
export type LegacyOutcome =
  /** No password under the old key. */
  | { kind: 'none' }
  /** Moved to the key of `origin` and `username` (and the old key deleted). `matches`: that is `cfg`'s own key. */
  | { kind: 'moved'; origin: string; username: string; matches: boolean }
  /** Nothing says where it was given: it stays under the old key until the person decides (`adoptLegacyPassword`). */
  | { kind: 'unknown' };

/**
 * Moves a password kept under the old key of `cfg.name` to the key of the origin it was given for:
 * the recorded last connection of that name, else the person's user-settings entry of that name, never
 * what the workspace says. A password already under the new key is not overwritten.
 * @param last the recorded last connection of `cfg.name`, if any.
 * @param userEntry the user-settings entry named `cfg.name`, if any.
 */
export async function migrateLegacyPassword(secrets: SecretStore, cfg: ConnectionSettings, last: LastConnection | undefined, userEntry: ConnectionSettings | undefined): Promise<LegacyOutcome> {
  const legacyKey = LEGACY_SECRET_PREFIX + cfg.name;
  const legacy = await secrets.get(legacyKey);
  if (!legacy) return { kind: 'none' };
  let target: LastConnection | undefined = last;
  if (!target && userEntry) {
    try {
      target = { origin: credentialOrigin(userEntry.url), username: userEntry.username };
    } catch {
      target = undefined;
    }
  }
  if (!target) return { kind: 'unknown' };
  const key = `${SECRET_PREFIX}${target.origin}/${encodeURIComponent(target.username)}`;
  if ((await secrets.get(key)) === undefined) await secrets.store(key, legacy);
  await secrets.delete(legacyKey);
  let matches: boolean;
  try {
    matches = credentialKey(cfg.url, cfg.username) === key;
  } catch {
    matches = false;
  }
  return { kind: 'moved', origin: target.origin, username: target.username, matches };
}

/**
 * After the person said that the old-key password of `cfg.name` belongs to `cfg`'s origin and user:
 * moves it there and deletes the old key. Returns the password (undefined when there was none).
 */
export async function adoptLegacyPassword(secrets: SecretStore, cfg: ConnectionSettings): Promise<string | undefined> {
  const legacyKey = LEGACY_SECRET_PREFIX + cfg.name;
  const legacy = await secrets.get(legacyKey);
  if (!legacy) return undefined;
  await secrets.store(credentialKey(cfg.url, cfg.username), legacy);
  await secrets.delete(legacyKey);
  return legacy;
}

/** True when a running session of `a` must end because the settings now say `b` (url, loadUrl, username or TLS checks changed). */
export function connectionChanged(a: ConnectionSettings, b: ConnectionSettings): boolean {
  return !sameEndpoint(a, b);
}
