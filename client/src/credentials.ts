/**
 * Where a password may go. Pure (no `vscode`): connections.ts hands in the secret storage, the
 * settings as inspected and the records it keeps, so that unit tests can run these rules as they are.
 *
 * - A password is bound to where it was given: its SecretStorage key is the service's normalized
 *   origin (scheme, host, port) and the user name (`credentialKey`), never a connection's display
 *   name. A connection whose origin or user differs finds no password, and the person is asked.
 * - Passwords of earlier versions were kept under `tsq.password/<connection name>`
 *   (`LEGACY_SECRET_PREFIX`), with no note of the service they were given for. One moves to the key of
 *   the origin the connection pointed at when the person last connected (recorded since, see
 *   `LastConnection`), or, with no record, of the connection as the person's own user settings define
 *   it (the one scope a workspace cannot write). Otherwise nothing moves silently: the caller asks.
 * - A connection that workspace or folder settings define or change (`connectionProvenance`) is used
 *   only after the person confirms each of its origins once; the caller keeps the confirmed origins.
 */
import type { ConnectionSettings } from '../../common/src/connectionConfig';

/** Secret storage as connections.ts uses it (VS Code's `SecretStorage`). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** What a connection needs for its credential: the members of a `tsq.connections` entry. */
export type CredentialTarget = Omit<ConnectionSettings, 'passwordCommand'>;

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

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The normalized origin of a service URL: lower-case scheme and host, the port always written out
 * (80 for http, 443 for https), IPv6 hosts in brackets, e.g. `https://analytics.example.com:443`.
 * User info, path, query and fragment do not count: they do not change which server gets the password.
 * @throws Error for a text that is not an http(s) URL.
 */
export function credentialOrigin(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new Error(`"${url}" is not a URL such as https://analytics.example.com`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`"${url}" is not an http or https URL`);
  // URL already lower-cases scheme and host and writes IDN hosts in punycode
  return `${u.protocol}//${u.hostname}:${u.port || DEFAULT_PORTS[u.protocol]!}`;
}

/** The SecretStorage key of the password of `username` at the origin of `url` (see credentialOrigin). */
export function credentialKey(url: string, username: string): string {
  return `${SECRET_PREFIX}${credentialOrigin(url)}/${encodeURIComponent(username)}`;
}

/** The origins a connection sends its password to: that of `url`, and that of `loadUrl` when it differs. */
export function connectionOrigins(cfg: Pick<CredentialTarget, 'url' | 'loadUrl'>): string[] {
  const origins = [credentialOrigin(cfg.url)];
  if (cfg.loadUrl) {
    const load = credentialOrigin(cfg.loadUrl);
    if (load !== origins[0]) origins.push(load);
  }
  return origins;
}

/** True when the two entries send the same user's password to the same places with the same TLS checks. */
export function sameEndpoint(a: CredentialTarget, b: CredentialTarget): boolean {
  const norm = (u: string | undefined): string => (u ?? '').trim().replace(/\/+$/, '');
  return (
    norm(a.url) === norm(b.url) &&
    norm(a.loadUrl) === norm(b.loadUrl) &&
    a.username === b.username &&
    (a.caFile ?? '') === (b.caFile ?? '') &&
    (a.rejectUnauthorized ?? true) === (b.rejectUnauthorized ?? true)
  );
}

/** The settings scopes of `tsq.connections`, as `WorkspaceConfiguration.inspect` gives them. */
export interface InspectedConnections {
  globalValue?: unknown;
  workspaceValue?: unknown;
}

/** Where a connection comes from, and whether the person must confirm it before it gets a password. */
export interface Provenance {
  /** `user` (user settings), `workspace` (workspace or folder settings) or `unknown` (not found). */
  source: 'user' | 'workspace' | 'unknown';
  /** True when the workspace defines it, or changes where it sends the password, compared with the user settings. */
  workspaceDefined: boolean;
}

function entries(value: unknown): CredentialTarget[] {
  return Array.isArray(value) ? value.filter((v): v is CredentialTarget => !!v && typeof v === 'object' && typeof (v as CredentialTarget).name === 'string' && typeof (v as CredentialTarget).url === 'string' && typeof (v as CredentialTarget).username === 'string') : [];
}

/**
 * Where the connection `cfg` (an entry of the effective `tsq.connections`) comes from. An array setting
 * is not merged across scopes: a workspace value replaces the user's. A workspace entry that repeats a
 * user entry of the same name exactly (`sameEndpoint`) is the person's own.
 */
export function connectionProvenance(inspected: InspectedConnections | undefined, cfg: CredentialTarget): Provenance {
  const user = entries(inspected?.globalValue).find((c) => c.name === cfg.name);
  if (inspected?.workspaceValue !== undefined) {
    const fromWorkspace = entries(inspected.workspaceValue).some((c) => c.name === cfg.name);
    if (fromWorkspace) return { source: 'workspace', workspaceDefined: !(user && sameEndpoint(user, cfg)) };
  }
  if (user) return { source: 'user', workspaceDefined: false };
  return { source: 'unknown', workspaceDefined: true };
}

/**
 * The origins of a workspace-defined connection the person has not confirmed yet (empty: it may be used).
 * @param confirmed origins the person confirmed before (kept by the caller).
 * @param demoLoopback true when the editor was started with TSQ_DEMO_PASSWORD (npm start, scripts/start.mjs):
 *   then loopback origins count as confirmed, as the person started that emulator themselves.
 */
export function unconfirmedOrigins(cfg: CredentialTarget, provenance: Provenance, confirmed: readonly string[], demoLoopback = false): string[] {
  if (!provenance.workspaceDefined) return [];
  return connectionOrigins(cfg).filter((o) => !confirmed.includes(o) && !(demoLoopback && isLoopbackOrigin(o)));
}

/** True for an origin on the loopback interface (localhost, 127.0.0.0/8, [::1]). */
export function isLoopbackOrigin(origin: string): boolean {
  const host = new URL(origin).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
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
export async function migrateLegacyPassword(secrets: SecretStore, cfg: CredentialTarget, last: LastConnection | undefined, userEntry: CredentialTarget | undefined): Promise<LegacyOutcome> {
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
export async function adoptLegacyPassword(secrets: SecretStore, cfg: CredentialTarget): Promise<string | undefined> {
  const legacyKey = LEGACY_SECRET_PREFIX + cfg.name;
  const legacy = await secrets.get(legacyKey);
  if (!legacy) return undefined;
  await secrets.store(credentialKey(cfg.url, cfg.username), legacy);
  await secrets.delete(legacyKey);
  return legacy;
}

/** True when a running session of `a` must end because the settings now say `b` (url, loadUrl, username or TLS checks changed). */
export function connectionChanged(a: CredentialTarget, b: CredentialTarget): boolean {
  return !sameEndpoint(a, b);
}
