/**
 * What the connection commands ask the person: the fields of a new connection, a password (naming the
 * origin it goes to), the confirmation of a workspace-defined connection's origins, and what to do
 * with a password an earlier version saved under a connection's name. Only prompts: the decisions and
 * the state are connections.ts's.
 */
import * as vscode from 'vscode';
import { originText, type ConnectionSettings } from './connectionSettings';

/** What `tsq.addConnection` / `tsq.connectToEmulator` accept for automation (skips the prompts). */
export type ConnectionArgs = Partial<Pick<ConnectionSettings, 'name'>> & Pick<ConnectionSettings, 'url' | 'loadUrl' | 'username'> & { password: string };

/** Undefined for an http(s) URL, else the message shown under the input box. */
export function validateUrl(value: string): string | undefined {
  try {
    const u = new URL(value.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'The URL must start with http:// or https://';
  } catch {
    return 'Enter a URL such as https://analytics.example.com';
  }
}

/** `user@host`, with ` (2)`, ` (3)`… when the name is taken. */
export function defaultConnectionName(url: string, username: string, existing: readonly ConnectionSettings[]): string {
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

/**
 * Asks for what `args` does not give of a new connection (URL, user, password, name: four input boxes).
 * @returns the entry (URLs without a trailing slash) and its password, or undefined when the person cancels.
 */
export async function askNewConnection(args: Partial<ConnectionArgs> | undefined, existing: readonly ConnectionSettings[]): Promise<{ entry: ConnectionSettings; password: string } | undefined> {
  const url = args?.url ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (1/4)', prompt: 'Base URL of the Analytics Service', placeHolder: 'https://analytics.example.com', ignoreFocusOut: true, validateInput: validateUrl }));
  if (!url) return undefined;
  const username = args?.username ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (2/4)', prompt: 'User name', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Enter a user name') }));
  if (!username) return undefined;
  const password = args?.password ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (3/4)', prompt: `Password of ${username} (kept in VS Code's secret storage)`, password: true, ignoreFocusOut: true }));
  if (password === undefined) return undefined;
  const defaultName = args?.name ?? defaultConnectionName(url, username, existing);
  const name = args?.name ?? (await vscode.window.showInputBox({ title: 'TSQ: Add Connection (4/4)', prompt: 'A name for this connection', value: defaultName, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Enter a name') }));
  if (!name) return undefined;
  const entry: ConnectionSettings = { name: name.trim(), url: url.trim().replace(/\/+$/, ''), username: username.trim() };
  if (args?.loadUrl) entry.loadUrl = args.loadUrl.trim().replace(/\/+$/, '');
  return { entry, password };
}

/** Asks for the password of `cfg`'s user, naming the origin it will be sent to (and kept for). */
export async function askPassword(cfg: ConnectionSettings): Promise<string | undefined> {
  const origin = originText(cfg.url);
  const load = cfg.loadUrl && originText(cfg.loadUrl) !== origin ? ` and ${originText(cfg.loadUrl)}` : '';
  return vscode.window.showInputBox({
    title: `TSQ: Password for ${cfg.username} at ${origin}`,
    prompt: `Password of ${cfg.username} at ${origin}${load} (connection ${cfg.name}; kept in VS Code's secret storage for this address only)`,
    password: true,
    ignoreFocusOut: true,
  });
}

/**
 * The modal that asks whether a workspace-defined connection may receive a password at `origins`.
 * @param what the sentence naming the settings file, the connection, the origins and the user.
 * @returns true for Trust and Connect.
 */
export async function askTrustOrigins(what: string, origins: readonly string[]): Promise<boolean> {
  const where = origins.join(' and ');
  const trust = 'Trust and Connect';
  const choice = await vscode.window.showWarningMessage(
    `Connect to ${where}?`,
    {
      modal: true,
      detail: `${what}\n\nConnecting sends the user name and a password to ${where}. Continue only if you trust ${origins.length > 1 ? 'these services' : 'this service'}; TSQ remembers your answer for ${origins.length > 1 ? 'these origins' : 'this origin'}.`,
    },
    trust,
  );
  return choice === trust;
}

/** The modal about a password saved under the connection's name by an earlier version: use it for `cfg`'s origin, forget it, or neither. */
export async function askLegacyPassword(cfg: ConnectionSettings): Promise<'use' | 'forget' | undefined> {
  const origin = originText(cfg.url);
  const use = 'Use It for This Service';
  const forget = 'Forget It';
  const choice = await vscode.window.showWarningMessage(
    `Use the saved password of "${cfg.name}" for ${cfg.username} at ${origin}?`,
    { modal: true, detail: `An earlier version of TSQ saved a password for the connection "${cfg.name}" without noting which service it was given for. TSQ now keeps each password for one service address and user name. Use it only if you gave it for ${origin}; otherwise TSQ asks for the password.` },
    use,
    forget,
  );
  return choice === use ? 'use' : choice === forget ? 'forget' : undefined;
}
