/**
 * Connections outside VS Code: the `tsq` command line and the language server started by another editor
 * read the same connection files and password sources.
 *
 * Where a connection comes from, first match wins:
 * 1. `--url` and `--user` (with `--load-url`, `--ca-file`, `--insecure`): a connection given in full;
 * 2. `--connection NAME`: the connection of that name in the connection files;
 * 3. (command line only) the files' default: their `default` (or `tsq.activeConnection`) member, or the
 *    only connection when there is one.
 *
 * Connection files, read in this order (a name found in an earlier file wins):
 * - `--config FILE` when given (then only that file);
 * - `tsq.json` in the working folder or the nearest folder above it that has one;
 * - `$XDG_CONFIG_HOME/tsq/connections.json` (default `~/.config/tsq/connections.json`).
 *
 * A file is JSON: `{ "connections": [ … ], "default": "name", "defaultDataSource": "…" }`, or the keys
 * of VS Code's settings (`tsq.connections`, `tsq.activeConnection`, `tsq.defaultDataSource`), or a bare
 * array of connections. A connection has the fields of the extension's `tsq.connections` setting
 * (package.json `contributes.configuration`): `name`, `url`, `loadUrl`, `username`, `caFile`,
 * `rejectUnauthorized`; and, outside VS Code only, `passwordCommand`: an argument vector whose standard
 * output is the password (e.g. `["secret-tool", "lookup", "service", "tsq", "user", "tsadmin"]` reads the
 * desktop keychain). A `password` member is never used: passwords do not belong in files.
 *
 * The password: the `TSQ_PASSWORD` environment variable, else the connection's `passwordCommand`, else
 * (command line on a terminal only) an interactive prompt. Never a flag, never printed, never logged.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** One connection, with the fields of the extension's `tsq.connections` entries. */
export interface ConnectionSettings {
  name: string;
  /** Base URL of the service, e.g. `http://127.0.0.1:8088`. */
  url: string;
  /** Base URL of the data-load API when it differs from `url` (a cluster: port 8442). */
  loadUrl?: string;
  username: string;
  /** PEM file of extra certificate authorities. */
  caFile?: string;
  /** False accepts self-signed certificates (default true). */
  rejectUnauthorized?: boolean;
  /** Argument vector run (without a shell) to print the password on its standard output. */
  passwordCommand?: string[];
}

/** What a connection file holds. */
export interface ConnectionFile {
  path: string;
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

/** Where files are looked for; the process's own by default. */
export interface ConfigEnvironment {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The connection files that exist, in reading order (see the module comment). */
export function connectionFilePaths(flags: Pick<ConnectionFlags, 'config'>, where: ConfigEnvironment = {}): string[] {
  const cwd = where.cwd ?? process.cwd();
  const env = where.env ?? process.env;
  if (flags.config) {
    const path = resolve(cwd, flags.config);
    if (!existsSync(path)) throw new ConnectionConfigError(`The connection file ${path} (--config) does not exist.`);
    return [path];
  }
  const out: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'tsq.json');
    if (existsSync(candidate)) {
      out.push(candidate);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const configHome = env.XDG_CONFIG_HOME || join(where.home ?? homedir(), '.config');
  const user = join(configHome, 'tsq', 'connections.json');
  if (existsSync(user)) out.push(user);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * Reads one connection file (format in the module comment).
 * @throws ConnectionConfigError when it cannot be read, is not JSON, or a connection lacks `name`, `url` or `username`.
 */
export function readConnectionFile(path: string): ConnectionFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConnectionConfigError(`The connection file ${path} cannot be read: ${(e as Error).message}. Fix the file or name another with --config.`);
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
    if (c.password !== undefined) warnings.push(`${path}: the "password" of connection "${name}" is ignored; passwords do not belong in files. Use TSQ_PASSWORD or "passwordCommand", and remove it from the file.`);
    const out: ConnectionSettings = { name, url, username };
    if (str(c.loadUrl)) out.loadUrl = str(c.loadUrl);
    if (str(c.caFile)) out.caFile = resolve(dirname(path), str(c.caFile)!);
    if (typeof c.rejectUnauthorized === 'boolean') out.rejectUnauthorized = c.rejectUnauthorized;
    if (c.passwordCommand !== undefined) {
      if (!Array.isArray(c.passwordCommand) || c.passwordCommand.length === 0 || !c.passwordCommand.every((a) => typeof a === 'string')) {
        throw new ConnectionConfigError(`"passwordCommand" of connection "${name}" in ${path} must be a non-empty array of strings (a program and its arguments).`);
      }
      out.passwordCommand = [...(c.passwordCommand as string[])];
    }
    return out;
  });
  const file: ConnectionFile = { path, connections, warnings };
  const def = str(root.default) ?? str(root['tsq.activeConnection']) ?? str(root.activeConnection);
  if (def) file.default = def;
  const ds = str(root.defaultDataSource) ?? str(root['tsq.defaultDataSource']);
  if (ds) file.defaultDataSource = ds;
  const diagnostics = root.diagnostics;
  const disabled = isObject(diagnostics) ? diagnostics.disabled : root['tsq.diagnostics.disabled'];
  if (Array.isArray(disabled)) file.disabledDiagnostics = disabled.filter((d): d is string => typeof d === 'string');
  return file;
}

/** A resolved connection and the files read on the way. */
export interface ResolvedConnection {
  connection: ConnectionSettings;
  /** Where it came from: `--url`, or the file that holds it. */
  source: string;
  files: ConnectionFile[];
}

/**
 * Resolves the connection of a run (order in the module comment). Flags given beside a named connection
 * (`--user`, `--load-url`, `--ca-file`, `--insecure`) override its fields.
 * @param allowDefault use the files' default connection when none is named (the command line: true;
 *   the language server started by an editor: false, it connects only when told to).
 * @returns undefined when no connection was given and there is no default.
 * @throws ConnectionConfigError for `--url` without `--user`, an unknown name, a malformed file.
 */
export function resolveConnection(flags: ConnectionFlags, opts: ConfigEnvironment & { allowDefault: boolean }): ResolvedConnection | undefined {
  const files = connectionFilePaths(flags, opts).map(readConnectionFile);
  const override = (c: ConnectionSettings): ConnectionSettings => ({
    ...c,
    ...(flags.user ? { username: flags.user } : {}),
    ...(flags.loadUrl ? { loadUrl: flags.loadUrl } : {}),
    ...(flags.caFile ? { caFile: resolve(opts.cwd ?? process.cwd(), flags.caFile) } : {}),
    ...(flags.insecure ? { rejectUnauthorized: false } : {}),
  });
  if (flags.url) {
    if (flags.connection) throw new ConnectionConfigError('Give either --url (with --user) or --connection, not both.');
    if (!flags.user) throw new ConnectionConfigError('--url needs --user: the user name to log in with (the password comes from TSQ_PASSWORD or a prompt).');
    return { connection: override({ name: flags.url, url: flags.url, username: flags.user }), source: '--url', files };
  }
  const find = (name: string) => {
    for (const f of files) {
      const c = f.connections.find((x) => x.name === name) ?? f.connections.find((x) => x.name.toLowerCase() === name.toLowerCase());
      if (c) return { connection: override(c), source: f.path, files };
    }
    return undefined;
  };
  if (flags.connection) {
    const found = find(flags.connection);
    if (found) return found;
    const known = files.flatMap((f) => f.connections.map((c) => c.name));
    const where = files.length ? files.map((f) => f.path).join(', ') : 'no connection file (tsq.json here or above, or ~/.config/tsq/connections.json)';
    throw new ConnectionConfigError(`There is no connection named "${flags.connection}" in ${where}.${known.length ? ` Known: ${known.join(', ')}.` : ''} Add it there, or give --url and --user.`);
  }
  if (!opts.allowDefault) return undefined;
  for (const f of files) {
    if (f.default) {
      const found = find(f.default);
      if (!found) throw new ConnectionConfigError(`The default connection "${f.default}" of ${f.path} is not among its connections.`);
      return found;
    }
  }
  const all = files.flatMap((f) => f.connections.map((connection) => ({ connection, source: f.path })));
  if (all.length === 1) return { connection: override(all[0].connection), source: all[0].source, files };
  if (all.length > 1) throw new ConnectionConfigError(`Several connections are defined (${all.map((a) => a.connection.name).join(', ')}): choose one with --connection NAME, or set "default" in ${files[0].path}.`);
  return undefined;
}

/** Options of `readPassword`. */
export interface PasswordSources {
  env?: NodeJS.ProcessEnv;
  /** Asks the person (the command line on a terminal); omitted where nobody can be asked. */
  prompt?: (question: string) => Promise<string>;
}

/**
 * The password of a connection: `TSQ_PASSWORD`, else its `passwordCommand`'s standard output (the last
 * newline dropped), else `prompt`.
 * @throws MissingPasswordError when none of them gives one; Error when `passwordCommand` fails (its exit
 *   code in the message, never its output).
 */
export async function readPassword(connection: ConnectionSettings, sources: PasswordSources = {}): Promise<string> {
  const env = sources.env ?? process.env;
  if (env.TSQ_PASSWORD !== undefined && env.TSQ_PASSWORD !== '') return env.TSQ_PASSWORD;
  if (connection.passwordCommand) {
    const [file, ...args] = connection.passwordCommand;
    return new Promise<string>((resolvePassword, reject) => {
      execFile(file, args, { encoding: 'utf8', timeout: 60_000, windowsHide: true }, (error, stdout) => {
        if (error) {
          const code = (error as { code?: unknown }).code;
          reject(new Error(`The passwordCommand of connection "${connection.name}" (${file}) failed${code !== undefined ? ` (${String(code)})` : ''}; run it yourself to see why.`));
        } else resolvePassword(stdout.replace(/\r?\n$/, ''));
      });
    });
  }
  if (sources.prompt) return sources.prompt(`Password of ${connection.username} at ${connection.url}: `);
  throw new MissingPasswordError(`No password for ${connection.username} at ${connection.url}: set the TSQ_PASSWORD environment variable, or give the connection a "passwordCommand".`);
}
