/**
 * Connections outside VS Code: `tsq`, `tsq lsp` and the agent tools read the same connection files and
 * password sources, under the trust rules of trust.ts. First match wins: `--url` and `--user` (with
 * `--load-url`, `--ca-file`, `--insecure`); `--connection NAME` (a user-level one wins over a project's);
 * (command line only) the project file's `default`, else the user file's, else the only connection.
 * Files: user level `--config FILE` (then the only file read), else `$XDG_CONFIG_HOME/tsq/connections.json`;
 * project level `tsq.json` found upward (trust.ts `findProjectFile`). A file is `{ connections, default,
 * defaultDataSource }`, VS Code's `tsq.*` keys, or a bare array; a connection has the fields of the
 * `tsq.connections` setting, plus, at user level only, `passwordCommand` (an argument vector printing the
 * password). The password (`TSQ_PASSWORD`, else `passwordCommand`, else a terminal prompt), a token (`TSQ_TOKEN`)
 * or a secret key (`TSQ_SECRET_KEY`): never a flag or a file, never logged, only for an approved connection.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { AnalyticsServiceClientOptions, ApiVersionSetting } from './api';
import { terminalSafe } from './terminalText';
import { ApprovalStore, credentialTargets, findProjectFile, mergeConnectionLevels, userConfigHome, type ConnectionLevel, type Sourced } from './trust';
import { messageOf, memberOf } from './guards';

/** One connection, with the fields of the extension's `tsq.connections` entries. */
export interface ConnectionSettings {
  name: string;
  /** Base URL of the service, e.g. `http://127.0.0.1:8088`. */
  url: string;
  /** Base URL of the data-load API when it differs from `url` (a cluster: port 8442). */
  loadUrl?: string;
  username: string;
  /** PEM file of extra certificate authorities (user level only). */
  caFile?: string;
  /** False accepts self-signed certificates (default true; user level only). */
  rejectUnauthorized?: boolean;
  /** Argument vector run (without a shell) to print the password on its standard output (user level only). */
  passwordCommand?: string[];
  /** Which public API generation to speak: `auto` (default: asks the service once), `v1` or `v2` (common/src/api/serviceToday.ts). */
  apiVersion?: ApiVersionSetting;
  /**
   * Hosts besides those of `url` and `loadUrl` that a StartLoad `node_address` may move a load cycle to; the
   * data-load login goes there (user level only: common/src/trust.ts). Other hosts are refused (common/src/api/loadApi.ts).
   */
  loadNodes?: string[];
  /** Keep a load cycle on the connection's address whatever `node_address` says (docs/service-notes.md §4.4). */
  ignoreNodeRedirect?: boolean;
  /** The Org every call runs in, by id or name (common/src/api/orgs.ts); absent: the user's own. A number in the file is read as its digits. */
  org?: string;
}

/** What a connection file holds. */
export interface ConnectionFile {
  path: string;
  /** `user` for the person's own files, `project` for a `tsq.json` found from the working folder. */
  level: ConnectionLevel;
  /** The bytes read (what an approval's hash covers). */
  text: string;
  connections: ConnectionSettings[];
  /** The connection used when none is named (command line only). */
  default?: string;
  /** Data source of queries with no `@datasource` (the extension's `tsq.defaultDataSource`). */
  defaultDataSource?: string;
  /** Diagnostic codes to silence (the extension's `tsq.diagnostics.disabled`). */
  disabledDiagnostics?: string[];
  /** Problems found in the file that did not stop it from being read (a `password` member ignored, …). */
  warnings: string[];
}

/** The connection options of the command line and of the language server. */
export interface ConnectionFlags {
  url?: string;
  user?: string;
  loadUrl?: string;
  caFile?: string;
  /** Accept self-signed certificates. */
  insecure?: boolean;
  connection?: string;
  config?: string;
  /** `--api-version auto|v1|v2`: overrides the connection's `apiVersion`. */
  apiVersion?: string;
  /** `--org ID|NAME`: the Org to run in, overriding the connection's `org`. */
  org?: string;
}

/** A wrong connection option or connection file: a usage error, with what to do in the message. */
export class ConnectionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionConfigError';
  }
}

/** The password could not be found: no `TSQ_PASSWORD`, no `passwordCommand`, no terminal to ask on. */
export class MissingPasswordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingPasswordError';
  }
}

/**
 * A connection of a project file that the person has not approved: no credential may go to it. The
 * message says which file, which origins and users, and how to approve (`tsq trust`).
 */
export class UnapprovedConnectionError extends Error {
  constructor(
    message: string,
    /** The project file that defines the connection. */
    readonly file: string,
    /** `origin user` pairs that would receive a credential. */
    readonly targets: string[],
  ) {
    super(message);
    this.name = 'UnapprovedConnectionError';
  }
}

/** Where files are looked for; the process's own by default. */
export interface ConfigEnvironment {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The user's own connection file: `$XDG_CONFIG_HOME/tsq/connections.json` (trust.ts `userConfigHome`: an absolute `XDG_CONFIG_HOME` only). */
export function userConnectionsPath(where: ConfigEnvironment = {}): string {
  return join(userConfigHome(where.env ?? process.env, where.home ?? homedir()), 'tsq', 'connections.json');
}

/** The connection files that exist, with their level (see the module comment), and warnings of files skipped. */
export function connectionFilePaths(flags: Pick<ConnectionFlags, 'config'>, where: ConfigEnvironment = {}): { path: string; level: ConnectionLevel }[] {
  return locateConnectionFiles(flags, where).files;
}

function locateConnectionFiles(flags: Pick<ConnectionFlags, 'config'>, where: ConfigEnvironment): { files: { path: string; level: ConnectionLevel }[]; warnings: string[] } {
  const cwd = where.cwd ?? process.cwd();
  if (flags.config) {
    const path = resolve(cwd, flags.config);
    if (!existsSync(path)) throw new ConnectionConfigError(`The connection file ${path} (--config) does not exist.`);
    return { files: [{ path, level: 'user' }], warnings: [] };
  }
  const files: { path: string; level: ConnectionLevel }[] = [];
  const warnings: string[] = [];
  const project = findProjectFile(cwd, where.home ?? homedir());
  if (project.path) files.push({ path: project.path, level: 'project' });
  if (project.skipped) warnings.push(`${project.skipped.path} is not read: ${project.skipped.reason} (a file that is not yours could point your password anywhere).`);
  const user = userConnectionsPath(where);
  if (existsSync(user)) files.push({ path: user, level: 'user' });
  return { files, warnings };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * Reads one connection file (format in the module comment). A project-level file's connections are
 * read as written; `mergeConnectionLevels` (trust.ts) applies what a project may do.
 * @throws ConnectionConfigError when it cannot be read, is not JSON, or a connection lacks `name`, `url` or `username`.
 */
export function readConnectionFile(path: string, level: ConnectionLevel = 'user'): ConnectionFile {
  let json: unknown;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    json = JSON.parse(text);
  } catch (e) {
    throw new ConnectionConfigError(`The connection file ${path} cannot be read: ${messageOf(e)}. Fix the file or name another with --config.`);
  }
  const root = Array.isArray(json) ? { connections: json } : isObject(json) ? json : undefined;
  if (!root) throw new ConnectionConfigError(`The connection file ${path} must hold a JSON object with "connections" (or an array of connections).`);
  const list = root.connections ?? root['tsq.connections'] ?? [];
  if (!Array.isArray(list)) throw new ConnectionConfigError(`"connections" in ${path} must be an array.`);
  const warnings: string[] = [];
  const connections = list.map((c, i): ConnectionSettings => {
    if (!isObject(c)) throw new ConnectionConfigError(`Connection ${i + 1} in ${path} is not an object.`);
    const name = str(c.name);
    const url = str(c.url);
    const username = str(c.username);
    if (!name || !url || !username) throw new ConnectionConfigError(`Connection ${i + 1} in ${path} needs "name", "url" and "username" (the fields of the extension's tsq.connections).`);
    if (c.password !== undefined) warnings.push(`${path}: the "password" of connection "${terminalSafe(name)}" is ignored; passwords do not belong in files. Use TSQ_PASSWORD or "passwordCommand", and remove it from the file.`);
    const out: ConnectionSettings = { name, url, username };
    if (str(c.loadUrl)) out.loadUrl = str(c.loadUrl);
    if (str(c.caFile)) out.caFile = resolve(dirname(path), str(c.caFile)!);
    if (typeof c.rejectUnauthorized === 'boolean') out.rejectUnauthorized = c.rejectUnauthorized;
    if (c.apiVersion !== undefined) out.apiVersion = apiVersionOf(c.apiVersion, `"apiVersion" of connection "${name}" in ${path}`);
    if (c.loadNodes !== undefined) {
      if (!Array.isArray(c.loadNodes) || !c.loadNodes.every((h) => typeof h === 'string' && h.trim())) throw new ConnectionConfigError(`"loadNodes" of connection "${name}" in ${path} must be an array of host names.`);
      out.loadNodes = (c.loadNodes as string[]).map((h) => h.trim());
    }
    if (typeof c.ignoreNodeRedirect === 'boolean') out.ignoreNodeRedirect = c.ignoreNodeRedirect;
    if (c.org !== undefined) out.org = orgOf(c.org, `"org" of connection "${terminalSafe(name)}" in ${path}`);
    if (c.passwordCommand !== undefined) {
      if (!Array.isArray(c.passwordCommand) || c.passwordCommand.length === 0 || !c.passwordCommand.every((a) => typeof a === 'string')) {
        throw new ConnectionConfigError(`"passwordCommand" of connection "${terminalSafe(name)}" in ${path} must be a non-empty array of strings (a program and its arguments).`);
      }
      out.passwordCommand = [...(c.passwordCommand as string[])];
    }
    return out;
  });
  const file: ConnectionFile = { path, level, text, connections, warnings };
  const def = str(root.default) ?? str(root['tsq.activeConnection']) ?? str(root.activeConnection);
  if (def) file.default = def;
  const ds = str(root.defaultDataSource) ?? str(root['tsq.defaultDataSource']);
  if (ds) file.defaultDataSource = ds;
  const diagnostics = root.diagnostics;
  const disabled = isObject(diagnostics) ? diagnostics.disabled : root['tsq.diagnostics.disabled'];
  if (Array.isArray(disabled)) file.disabledDiagnostics = disabled.filter((d): d is string => typeof d === 'string');
  return file;
}

/** The connection files in force and the connections they define under the trust rules. */
export interface LoadedConnections {
  /** Project file first (when there is one), then the user's. */
  files: ConnectionFile[];
  /** User-level connections, then the project's that do not shadow them (trust.ts `mergeConnectionLevels`). */
  connections: Sourced<ConnectionSettings>[];
  /** The files' warnings, those of the merge (a shadowing name, a dropped field) and of files skipped. */
  warnings: string[];
}

/**
 * Reads the connection files of a run (see the module comment) and merges them under the trust rules.
 * @throws ConnectionConfigError for a malformed file or a `--config` file that does not exist.
 */
export function loadConnections(flags: Pick<ConnectionFlags, 'config'>, where: ConfigEnvironment = {}): LoadedConnections {
  const located = locateConnectionFiles(flags, where);
  const files = located.files.map((f) => readConnectionFile(f.path, f.level));
  const sourced = (f: ConnectionFile) => f.connections.map((c) => ({ ...c, level: f.level, source: f.path }));
  const merged = mergeConnectionLevels(
    files.filter((f) => f.level === 'user').flatMap(sourced),
    files.filter((f) => f.level === 'project').flatMap(sourced),
  );
  return { files, connections: merged.connections, warnings: [...located.warnings, ...files.flatMap((f) => f.warnings), ...merged.warnings] };
}

/** A resolved connection and the files read on the way. */
export interface ResolvedConnection {
  connection: ConnectionSettings;
  /** Where it came from: `--url`, or the file that holds it. */
  source: string;
  /** `user` for `--url` and the person's own files, `project` for a project file's connection. */
  level: ConnectionLevel;
  files: ConnectionFile[];
  /** Every warning of the files read (print them). */
  warnings: string[];
  /** True when a credential may go to the connection: user level, or a project file approved as it is now. */
  approved: boolean;
  /** For a project file's connection that is not approved: true when an earlier version of the file was. */
  changedSinceApproval?: boolean;
  /**
   * For a project file's connection that is not approved: true when the file is approved as it is, but
   * not this entry (a connection of the user's own of that name was used instead when it was approved).
   */
  notInApproval?: boolean;
}

/** `origin user` pairs of a connection (trust.ts `credentialTargets`); none when its URL is not one (then nothing is approved). */
function targetsOrNone(c: ConnectionSettings): string[] {
  try {
    return credentialTargets(c);
  } catch {
    return [];
  }
}

/**
 * Resolves the connection of a run (order in the module comment). Flags given beside a named connection
 * (`--user`, `--load-url`, `--ca-file`, `--insecure`) override its fields: they are the person's own.
 * @param allowDefault use the files' default connection when none is named (the command line: true;
 *   the language server started by an editor: false, it connects only when told to).
 * @returns undefined when no connection was given and there is no default.
 * @throws ConnectionConfigError for `--url` without `--user`, an unknown name, a malformed file.
 */
export function resolveConnection(flags: ConnectionFlags, opts: ConfigEnvironment & { allowDefault: boolean }): ResolvedConnection | undefined {
  const loaded = loadConnections(flags, opts);
  const { files, warnings } = loaded;
  const override = (c: ConnectionSettings): ConnectionSettings => ({
    ...c,
    ...(flags.user ? { username: flags.user } : {}),
    ...(flags.loadUrl ? { loadUrl: flags.loadUrl } : {}),
    ...(flags.caFile ? { caFile: resolve(opts.cwd ?? process.cwd(), flags.caFile) } : {}),
    ...(flags.insecure ? { rejectUnauthorized: false } : {}),
    ...(flags.apiVersion ? { apiVersion: apiVersionOf(flags.apiVersion, '--api-version') } : {}),
    ...(flags.org !== undefined ? { org: orgOf(flags.org, '--org') } : {}),
  });
  const approvals = new ApprovalStore(opts);
  const resolved = (c: Sourced<ConnectionSettings>): ResolvedConnection => {
    const { level, source, ...connection } = c;
    const file = files.find((f) => f.path === source);
    // a project entry is approved one by one: the file as it is, and this entry among those approved
    const state = level === 'user' ? 'approved' : file ? approvals.entryApproval(file.path, file.text, { name: connection.name, targets: targetsOrNone(connection) }) : 'never';
    const approved = state === 'approved';
    const out: ResolvedConnection = { connection: override(connection), source, level, files, warnings, approved };
    if (!approved) {
      out.changedSinceApproval = state === 'changed';
      if (state === 'not-in-approval') out.notInApproval = true;
    }
    return out;
  };
  if (flags.url) {
    if (flags.connection) throw new ConnectionConfigError('Give either --url (with --user) or --connection, not both.');
    if (!flags.user) throw new ConnectionConfigError('--url needs --user: the user name to log in with (the password comes from TSQ_PASSWORD or a prompt).');
    return { connection: override({ name: flags.url, url: flags.url, username: flags.user }), source: '--url', level: 'user', files, warnings, approved: true };
  }
  const find = (name: string) => {
    const c = loaded.connections.find((x) => x.name === name) ?? loaded.connections.find((x) => x.name.toLowerCase() === name.toLowerCase());
    return c && resolved(c);
  };
  if (flags.connection) {
    const found = find(flags.connection);
    if (found) return found;
    const known = loaded.connections.map((c) => terminalSafe(c.name));
    const where = files.length ? files.map((f) => f.path).join(', ') : 'no connection file (tsq.json here or above, or ~/.config/tsq/connections.json)';
    throw new ConnectionConfigError(`There is no connection named "${flags.connection}" in ${where}.${known.length ? ` Known: ${known.join(', ')}.` : ''} Add it there, or give --url and --user.`);
  }
  if (!opts.allowDefault) return undefined;
  for (const f of files) {
    if (f.default) {
      const found = find(f.default);
      if (!found) throw new ConnectionConfigError(`The default connection "${terminalSafe(f.default)}" of ${terminalSafe(f.path)} is not among its connections.`);
      return found;
    }
  }
  if (loaded.connections.length === 1) return resolved(loaded.connections[0]);
  if (loaded.connections.length > 1) throw new ConnectionConfigError(`Several connections are defined (${loaded.connections.map((c) => terminalSafe(c.name)).join(', ')}): choose one with --connection NAME, or set "default" in ${files[0].path}.`);
  return undefined;
}

/** The command that approves the project file `file` (run in its folder). */
export function approvalHint(file: string): string {
  return `review ${file}, then run "tsq trust" in ${dirname(file)} to approve it`;
}

/**
 * Throws unless a credential may go to the resolved connection (trust.ts): user level, given on the
 * command line, or defined by a project file that `tsq trust` approved with its current bytes.
 * @throws UnapprovedConnectionError (the command line exits 3; `tsq lsp` reads no catalog and says why).
 */
export function requireApproval(resolved: ResolvedConnection): void {
  if (resolved.approved) return;
  const c = resolved.connection;
  let targets: string[];
  try {
    targets = credentialTargets(c);
  } catch {
    targets = [`${c.url} ${c.username}`];
  }
  const changed = resolved.changedSinceApproval
    ? ' It changed since you approved it.'
    : resolved.notInApproval
      ? ' When you approved the file, your own connection of that name was used instead, so this entry was not part of that approval.'
      : '';
  const safe = terminalSafe;
  throw new UnapprovedConnectionError(
    `The connection "${safe(c.name)}" comes from ${safe(resolved.source)}, a file of this project, not from you.${changed} TSQ sends no password or token to ${targets.map((t) => safe(t).replace(' ', ' as ')).join(' and ')} until you approve it: ${safe(approvalHint(resolved.source))}. Or use your own connection (~/.config/tsq/connections.json, or --url and --user).`,
    resolved.source,
    targets,
  );
}

/** Checks an Org value: a non-empty name, or an id (a whole number, or its digits). @throws ConnectionConfigError naming `where` */
export function orgOf(v: unknown, where: string): string {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  throw new ConnectionConfigError(`${where} must name an Org: its id (a whole number) or its name, not ${JSON.stringify(v)}.`);
}

/** Checks an `apiVersion` value. @throws ConnectionConfigError naming `where` for anything but auto, v1, v2. */
function apiVersionOf(v: unknown, where: string): ApiVersionSetting {
  if (v === 'auto' || v === 'v1' || v === 'v2') return v;
  throw new ConnectionConfigError(`${where} must be "auto", "v1" or "v2", not ${JSON.stringify(v)}.`);
}

/**
 * The environment's secrets (TSQ_PASSWORD, TSQ_TOKEN, TSQ_SECRET_KEY), each as given and trimmed, empty
 * ones left out: for redaction (common/src/redaction.ts), never for a request.
 */
export function secretsInEnvironment(env: NodeJS.ProcessEnv): string[] {
  return [env.TSQ_PASSWORD, env.TSQ_TOKEN, env.TSQ_SECRET_KEY].flatMap((v) => (v ? [v, v.trim()] : [])).filter((v) => v !== '');
}

/**
 * A bearer credential of an approved connection from the environment: `TSQ_TOKEN` (a token the person
 * got elsewhere, e.g. with single sign-on or multi-factor authentication) or `TSQ_SECRET_KEY` (the
 * trusted-authentication secret key). Same gate as the password: nothing is read for a connection that
 * is not approved.
 * @throws UnapprovedConnectionError for a project connection not approved.
 */
export function readBearerSecret(resolved: ResolvedConnection, name: 'TSQ_TOKEN' | 'TSQ_SECRET_KEY', env: NodeJS.ProcessEnv = process.env): string | undefined {
  requireApproval(resolved);
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** Options of `readPassword`. */
export interface PasswordSources {
  env?: NodeJS.ProcessEnv;
  /** Asks the person (the command line on a terminal); omitted where nobody can be asked. */
  prompt?: (question: string) => Promise<string>;
}

/**
 * The password of an approved connection: `TSQ_PASSWORD`, else its `passwordCommand`'s standard output
 * (the last newline dropped), else `prompt`. Nothing is read, run or asked for a connection that is not
 * approved (`requireApproval`).
 * @throws UnapprovedConnectionError for a project connection not approved; MissingPasswordError when no
 *   source gives a password; Error when `passwordCommand` fails (its exit code in the message, never its output).
 */
export async function readPassword(resolved: ResolvedConnection, sources: PasswordSources = {}): Promise<string> {
  requireApproval(resolved);
  const connection = resolved.connection;
  const env = sources.env ?? process.env;
  if (env.TSQ_PASSWORD !== undefined && env.TSQ_PASSWORD !== '') return env.TSQ_PASSWORD;
  // a project file's passwordCommand never gets here: mergeConnectionLevels drops it
  if (connection.passwordCommand && resolved.level === 'user') {
    const [file, ...args] = connection.passwordCommand;
    return new Promise<string>((resolvePassword, reject) => {
      execFile(file, args, { encoding: 'utf8', timeout: 60_000, windowsHide: true }, (error, stdout) => {
        if (error) {
          const code = memberOf(error, 'code');
          reject(new Error(`The passwordCommand of connection "${connection.name}" (${file}) failed${code !== undefined ? ` (${String(code)})` : ''}; run it yourself to see why.`));
        } else resolvePassword(stdout.replace(/\r?\n$/, ''));
      });
    });
  }
  if (sources.prompt) return sources.prompt(`Password of ${terminalSafe(connection.username)} at ${terminalSafe(connection.url)}: `);
  throw new MissingPasswordError(`No password for ${terminalSafe(connection.username)} at ${terminalSafe(connection.url)}: set the TSQ_PASSWORD environment variable, or give the connection a "passwordCommand".`);
}

/**
 * The options of an `AnalyticsServiceClient` (common/src/api) for a resolved connection: its addresses,
 * TLS settings and a password read once, at the first login, by `readPassword`.
 * @throws UnapprovedConnectionError at once, before any request, for a connection not approved.
 */
export function serviceClientOptions(resolved: ResolvedConnection, sources: PasswordSources = {}): AnalyticsServiceClientOptions {
  requireApproval(resolved);
  const s = resolved.connection;
  let password: Promise<string> | undefined;
  return {
    url: s.url,
    loadUrl: s.loadUrl,
    username: s.username,
    caFile: s.caFile,
    rejectUnauthorized: s.rejectUnauthorized,
    loadNodes: s.loadNodes,
    ignoreNodeRedirect: s.ignoreNodeRedirect,
    // asked once per client: a wrong password fails rather than asking again
    getPassword: () => (password ??= readPassword(resolved, sources)),
    apiVersion: s.apiVersion ?? 'auto',
    ...(s.org !== undefined ? { org: s.org } : {}),
    ...bearerOptions(resolved, sources.env ?? process.env),
  };
}

/** The client's `bearer` option from TSQ_TOKEN or TSQ_SECRET_KEY, read behind the trust gate (`readBearerSecret`); none when neither is set. */
function bearerOptions(resolved: ResolvedConnection, env: NodeJS.ProcessEnv): Pick<AnalyticsServiceClientOptions, 'bearer'> {
  if (readBearerSecret(resolved, 'TSQ_TOKEN', env) !== undefined) return { bearer: { getToken: () => readBearerSecret(resolved, 'TSQ_TOKEN', env) ?? '' } };
  if (readBearerSecret(resolved, 'TSQ_SECRET_KEY', env) !== undefined) return { bearer: { getSecretKey: () => readBearerSecret(resolved, 'TSQ_SECRET_KEY', env) ?? '' } };
  return {};
}
