/**
 * The trust rules for connection sources and credentials, one module for every front end (extension,
 * `tsq`, `tsq lsp`, agent tools). A cloned repository is data, never instructions.
 * - **User level**: VS Code user settings, `~/.config/tsq/connections.json`, `--config`, `--url`/`--user`.
 * - **Project level**: VS Code workspace and folder settings, `tsq.json` found upward (`findProjectFile`).
 * A project-level source may add connections and pick its defaults, nothing more (`projectConnection`):
 * no `passwordCommand`, `caFile`, `rejectUnauthorized` or `loadUrl` on another host, and never a
 * user-level name (`mergeConnectionLevels`: the person's own wins, with a warning). A credential of any
 * kind goes only to a connection the person approved: user level, the command line, or approved once
 * (`tsq trust`, `ApprovalStore` with the file's hash; in VS Code, confirming each origin). A changed
 * file must be approved again.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Where a connection comes from (see the module comment). */
export type ConnectionLevel = 'user' | 'project';

/** The members of one connection entry that a trust decision reads. */
export interface TrustedFields {
  name: string;
  url: string;
  loadUrl?: string;
  username: string;
  caFile?: string;
  rejectUnauthorized?: boolean;
  passwordCommand?: string[];
  /** Hosts a StartLoad `node_address` may move a cycle to (the data-load login goes there). */
  loadNodes?: string[];
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The normalized origin of a service URL: lower-case scheme and host, the port always written out
 * (80 for http, 443 for https), IPv6 hosts in brackets, e.g. `https://analytics.example.com:443`.
 * User info, path, query and fragment do not count: they do not change which server gets a credential.
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

/** The origins a connection sends credentials to: that of `url`, and that of `loadUrl` when it differs. */
export function connectionOrigins(cfg: Pick<TrustedFields, 'url' | 'loadUrl'>): string[] {
  const origins = [credentialOrigin(cfg.url)];
  if (cfg.loadUrl) {
    const load = credentialOrigin(cfg.loadUrl);
    if (load !== origins[0]) origins.push(load);
  }
  return origins;
}

/** True for an origin on the loopback interface (localhost, 127.0.0.0/8, [::1]). */
export function isLoopbackOrigin(origin: string): boolean {
  const host = new URL(origin).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host name of a URL, or undefined when it is not a URL. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url.trim()).hostname;
  } catch {
    return undefined;
  }
}

/**
 * A project-level connection entry as it may be used: `passwordCommand` (it would run a program of the
 * repository's choosing), `caFile` and `rejectUnauthorized` (they weaken TLS) are dropped, and so is a
 * `loadUrl` on another host than `url` (the data-load API of a cluster is the same host on port 8442,
 * seed-interface.md §4; another host would receive the data-load login), and `loadNodes` (hosts a
 * StartLoad `node_address` may move the login to). Each drop is a warning naming
 * `where` (the file or settings scope).
 */
export function projectConnection<T extends TrustedFields>(entry: T, where: string): { connection: T; warnings: string[] } {
  const warnings: string[] = [];
  const out = { ...entry };
  const drop = (field: keyof TrustedFields, why: string) => {
    if (out[field] === undefined) return;
    delete out[field];
    warnings.push(`${where}: "${field}" of connection "${entry.name}" is ignored: ${why}`);
  };
  drop('passwordCommand', 'a project file may not run a program (put it in your own ~/.config/tsq/connections.json).');
  drop('caFile', 'a project file may not change how certificates are checked (put it in your own connections).');
  drop('rejectUnauthorized', 'a project file may not change how certificates are checked (put it in your own connections).');
  drop('loadNodes', 'a project file may not send the data-load login to other hosts (put it in your own connections).');
  if (out.loadUrl !== undefined && hostOf(out.loadUrl) !== hostOf(out.url)) drop('loadUrl', `it is on another host than ${out.url}.`);
  return { connection: out, warnings };
}

/** A connection entry with where it came from. */
export type Sourced<T> = T & {
  level: ConnectionLevel;
  /** The file or settings scope that defines it, for messages. */
  source: string;
};

/**
 * The connections in force: every user-level entry, then each project-level entry cleaned by
 * `projectConnection` and left out (with a warning naming its source) when a user-level entry has its
 * name (compared without case, as names are looked up). Within one level the first entry of a name wins.
 */
export function mergeConnectionLevels<T extends TrustedFields>(user: readonly Sourced<T>[], project: readonly Sourced<T>[]): { connections: Sourced<T>[]; warnings: string[] } {
  const warnings: string[] = [];
  const out: Sourced<T>[] = [];
  const taken = new Map<string, Sourced<T>>();
  for (const c of user) {
    const key = c.name.toLowerCase();
    if (taken.has(key)) continue;
    taken.set(key, c);
    out.push(c);
  }
  for (const raw of project) {
    const key = raw.name.toLowerCase();
    const mine = taken.get(key);
    if (mine) {
      if (mine.level === 'user') warnings.push(`${raw.source}: connection "${raw.name}" is ignored: your own connection of that name (${mine.source}) is used. A project file cannot redefine your connections.`);
      continue;
    }
    const { connection, warnings: w } = projectConnection(raw, raw.source);
    warnings.push(...w);
    const sourced = { ...connection, level: 'project' as const, source: raw.source };
    taken.set(key, sourced);
    out.push(sourced);
  }
  return { connections: out, warnings };
}

/** Why `findProjectFile` left a `tsq.json` out. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * The project's `tsq.json`: in `cwd` or the nearest folder above it, looking no higher than the first
 * folder that holds `.git` (the repository root) or the user's home. A file that the user does not own,
 * or that others may write, is skipped (git's `safe.directory` rule, git-config(1)) and the search stops
 * there. On systems without user ids (Windows) the ownership check is not made.
 * @returns the file's path, or undefined; `skipped` when one was found but not trusted to be the user's.
 */
export function findProjectFile(cwd: string, home: string = homedir()): { path?: string; skipped?: SkippedFile } {
  const stopAt = resolve(home);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'tsq.json');
    if (existsSync(candidate)) {
      const unsafe = unsafeOwnership(candidate);
      return unsafe ? { skipped: { path: candidate, reason: unsafe } } : { path: candidate };
    }
    if (dir === stopAt || existsSync(join(dir, '.git')) || dirname(dir) === dir) return {};
  }
}

/** Why a file may not be the user's own (another owner, writable by group or others), or undefined. */
function unsafeOwnership(path: string): string | undefined {
  if (typeof process.getuid !== 'function') return undefined;
  // stat follows a link: what counts is the file that would be read
  const st = statSync(path);
  if (st.uid !== process.getuid()) return `it is owned by another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return 'others can write it';
  return undefined;
}

/** The SHA-256 of a file's bytes, hex. */
export function fileDigest(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One approved project file, as `ApprovalStore` keeps it. */
export interface Approval {
  /** The file's real path. */
  file: string;
  /** SHA-256 of the file's bytes when approved: any edit asks again. */
  sha256: string;
  /** The origins and users approved, `origin user`, for the record (what `tsq trust` showed). */
  credentials: string[];
  /** When (ISO 8601). */
  approvedAt: string;
}

/**
 * The approvals of project files, kept in the user's configuration folder
 * (`$XDG_CONFIG_HOME/tsq/trusted.json`, default `~/.config/tsq/trusted.json`), written whole to a
 * temporary file and renamed, mode 0600. A project cannot write it: it is outside every project.
 */
export class ApprovalStore {
  readonly path: string;

  constructor(where: { env?: NodeJS.ProcessEnv; home?: string } = {}) {
    const env = where.env ?? process.env;
    const configHome = env.XDG_CONFIG_HOME || join(where.home ?? homedir(), '.config');
    this.path = join(configHome, 'tsq', 'trusted.json');
  }

  /** Every approval kept; an unreadable store reads as none (nothing is approved by accident). */
  list(): Approval[] {
    try {
      const json = JSON.parse(readFileSync(this.path, 'utf8')) as { approvals?: unknown };
      return Array.isArray(json.approvals) ? json.approvals.filter((a): a is Approval => !!a && typeof (a as Approval).file === 'string' && typeof (a as Approval).sha256 === 'string') : [];
    } catch {
      return [];
    }
  }

  /** True when `file` with exactly these bytes was approved. */
  isApproved(file: string, bytes: Buffer | string): boolean {
    const real = realPath(file);
    const digest = fileDigest(bytes);
    return this.list().some((a) => a.file === real && a.sha256 === digest);
  }

  /** True when `file` was approved at some time, whatever its bytes were then. */
  wasApproved(file: string): boolean {
    const real = realPath(file);
    return this.list().some((a) => a.file === real);
  }

  /** Records the approval of `file` with these bytes (replacing an earlier one of the same file). */
  approve(file: string, bytes: Buffer | string, credentials: string[]): Approval {
    const approval: Approval = { file: realPath(file), sha256: fileDigest(bytes), credentials, approvedAt: new Date().toISOString() };
    this.write([...this.list().filter((a) => a.file !== approval.file), approval]);
    return approval;
  }

  /** Removes the approval of `file`; true when there was one. */
  revoke(file: string): boolean {
    const real = realPath(file);
    const all = this.list();
    const kept = all.filter((a) => a.file !== real);
    if (kept.length !== all.length) this.write(kept);
    return kept.length !== all.length;
  }

  private write(approvals: Approval[]): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ approvals }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

/** `origin user` for each origin of a connection: what an approval covers, for messages and the record. */
export function credentialTargets(cfg: Pick<TrustedFields, 'url' | 'loadUrl' | 'username'>): string[] {
  return connectionOrigins(cfg).map((o) => `${o} ${cfg.username}`);
}
