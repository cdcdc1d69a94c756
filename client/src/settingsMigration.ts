/**
 * Moving passwords out of `tsq.connections`. Pure (no `vscode`): connections.ts reads each settings
 * scope, calls `splitPasswords`, stores the passwords in SecretStorage and writes the cleaned list back.
 */

/** The result of `splitPasswords`. */
export interface SplitPasswords {
  /** The entries without their `password` member, in the same order (entries without one unchanged). */
  cleaned: unknown[];
  /** `[connection name, password]` for every entry that had a non-empty string password and a name. */
  moved: [string, string][];
  /** The same entries with the url and user name the password was given for (those without both are left out). */
  credentials: { name: string; url: string; username: string; password: string }[];
  /** True when any entry had a `password` member (even empty or unnamed): the list must be written back. */
  changed: boolean;
}

/** Takes every `password` member out of a `tsq.connections` value. A value that is not an array gives no change. */
export function splitPasswords(value: unknown): SplitPasswords {
  if (!Array.isArray(value)) return { cleaned: [], moved: [], credentials: [], changed: false };
  const moved: [string, string][] = [];
  const credentials: SplitPasswords['credentials'] = [];
  let changed = false;
  const cleaned = value.map((entry) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry) || !('password' in entry)) return entry;
    changed = true;
    const { password, ...rest } = entry as Record<string, unknown>;
    if (typeof password === 'string' && password && typeof rest.name === 'string' && rest.name) {
      moved.push([rest.name, password]);
      if (typeof rest.url === 'string' && typeof rest.username === 'string') credentials.push({ name: rest.name, url: rest.url, username: rest.username, password });
    }
    return rest;
  });
  return { cleaned, moved, credentials, changed };
}


/**
 * The password that `npm start` (scripts/start.mjs) hands the extension for its demo connection:
 * the environment variable `TSQ_DEMO_PASSWORD`, honoured only for a connection whose URL is an
 * http(s) URL on the loopback interface (localhost, 127.0.0.0/8, [::1]), i.e. a local emulator, so
 * that a password in the environment can never be sent to a remote service. Undefined otherwise.
 * @param url the connection's base URL; an unparsable one gives undefined.
 * @param envPassword the value of TSQ_DEMO_PASSWORD (undefined or empty: none).
 */
export function loopbackDemoPassword(url: string, envPassword: string | undefined): string | undefined {
  if (!envPassword) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const host = parsed.hostname.toLowerCase();
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return loopback ? envPassword : undefined;
}
