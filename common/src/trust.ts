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
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { terminalSafe } from './terminalText';
import { errnoCode, recordOr, memberOf } from './guards';

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
    warnings.push(`${terminalSafe(where)}: "${field}" of connection "${terminalSafe(entry.name)}" is ignored: ${why}`);
  };
  drop('passwordCommand', 'a project file may not run a program (put it in your own ~/.config/tsq/connections.json).');
  drop('caFile', 'a project file may not change how certificates are checked (put it in your own connections).');
  drop('rejectUnauthorized', 'a project file may not change how certificates are checked (put it in your own connections).');
  drop('loadNodes', 'a project file may not send the data-load login to other hosts (put it in your own connections).');
  if (out.loadUrl !== undefined && hostOf(out.loadUrl) !== hostOf(out.url)) drop('loadUrl', `it is on another host than ${terminalSafe(out.url)}.`);
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
      if (mine.level === 'user') warnings.push(`${terminalSafe(raw.source)}: connection "${terminalSafe(raw.name)}" is ignored: your own connection of that name (${terminalSafe(mine.source)}) is used. A project file cannot redefine your connections.`);
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

/**
 * The user's configuration folder: `$XDG_CONFIG_HOME` when it is an absolute path, else `~/.config`. A
 * relative `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory Specification says
 * (https://specifications.freedesktop.org/basedir-spec/latest/): resolved against the working folder it
 * could point into a cloned repository, whose files would then count as the user's own.
 */
export function userConfigHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
}

/** One connection entry of a project file that an approval covers. */
export interface ApprovedConnection {
  /** The entry's name as the file writes it (compared without case). */
  name: string;
  /** `origin user` pairs it may send a credential to (`credentialTargets`), as `tsq trust` showed them. */
  targets: string[];
}

/** One approved project file, as `ApprovalStore` keeps it. */
export interface Approval {
  /** The file's real path. */
  file: string;
  /** SHA-256 of the file's bytes when approved: any edit asks again. */
  sha256: string;
  /** The origins and users approved, `origin user`: every target of `connections`. */
  credentials: string[];
  /**
   * The entries approved, one by one. An entry of the file that is not here (one that a connection of the
   * user's own shadowed when the file was approved) is not approved, even when the shadow goes away.
   * Absent in approvals written before entries were recorded: then an entry is covered when each of its
   * targets is in `credentials` (what those versions showed and approved).
   */
  connections?: ApprovedConnection[];
  /** When (ISO 8601). */
  approvedAt: string;
}

/**
 * What an approval says of one entry of a project file as the file is now: `approved`; `not-in-approval`
 * (the file is approved as it is, but not this entry: it was shadowed by a connection of the user's own
 * when approved); `changed` (an earlier version of the file was approved); `never`.
 */
export type EntryApproval = 'approved' | 'not-in-approval' | 'changed' | 'never';

/** Options of `ApprovalStore`, for the tests and the command line. */
export interface ApprovalStoreOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /**
   * Called while the store's lock is held, between reading `trusted.json` and writing it back (a test
   * pauses here to prove that a concurrent change waits instead of being lost).
   */
  betweenReadAndWrite?: () => void;
  /** Called once when the lock is held by another process and this one starts waiting (told the pid). */
  onWait?: (holder: string) => void;
}

/** How long a change of `trusted.json` waits for another process's lock before giving up (ms). */
const LOCK_WAIT_MS = 10_000;
/** A lock older than this is stale whatever its holder (ms): a change takes milliseconds. */
const LOCK_STALE_MS = 30_000;

/**
 * The approvals of project files, kept in the user's configuration folder
 * (`$XDG_CONFIG_HOME/tsq/trusted.json`, default `~/.config/tsq/trusted.json`), written whole to a
 * temporary file and renamed, mode 0600. A project cannot write it: it is outside every project.
 * Every change (approve, revoke) reads, changes and writes the file under a lock file beside it
 * (`trusted.json.lock`, created exclusively), so that concurrent changes from several processes are
 * applied one after the other and none is lost. A lock whose holder process is gone, or that is older
 * than 30 s, is stale and taken over.
 */
export class ApprovalStore {
  readonly path: string;
  private readonly lockPath: string;

  constructor(private readonly where: ApprovalStoreOptions = {}) {
    this.path = join(userConfigHome(where.env ?? process.env, where.home ?? homedir()), 'tsq', 'trusted.json');
    this.lockPath = `${this.path}.lock`;
  }

  /** Every approval kept; an unreadable store reads as none (nothing is approved by accident). */
  list(): Approval[] {
    try {
      const json = recordOr(JSON.parse(readFileSync(this.path, 'utf8')));
      return Array.isArray(json.approvals) ? json.approvals.filter((a): a is Approval => !!a && typeof memberOf(a, 'file') === 'string' && typeof memberOf(a, 'sha256') === 'string').map(normalizeApproval) : [];
    } catch {
      return [];
    }
  }

  /** True when `file` with exactly these bytes was approved (as a whole: see `entryApproval` for one entry). */
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

  /**
   * Whether the entry `entry` (its name and the targets it has now) of `file` with these bytes is approved.
   * @returns see `EntryApproval`.
   */
  entryApproval(file: string, bytes: Buffer | string, entry: ApprovedConnection): EntryApproval {
    const real = realPath(file);
    const mine = this.list().filter((a) => a.file === real);
    if (!mine.length) return 'never';
    const digest = fileDigest(bytes);
    const current = mine.find((a) => a.sha256 === digest);
    if (!current) return 'changed';
    return approvalCovers(current, entry) ? 'approved' : 'not-in-approval';
  }

  /**
   * Records the approval of `file` with these bytes and exactly these entries (replacing an earlier one of
   * the same file), under the store's lock.
   * @throws Error when another process holds the lock for longer than 10 s.
   */
  approve(file: string, bytes: Buffer | string, connections: readonly ApprovedConnection[]): Approval {
    const approval: Approval = {
      file: realPath(file),
      sha256: fileDigest(bytes),
      credentials: [...new Set(connections.flatMap((c) => c.targets))],
      connections: connections.map((c) => ({ name: c.name, targets: [...c.targets] })),
      approvedAt: new Date().toISOString(),
    };
    this.change((all) => [...all.filter((a) => a.file !== approval.file), approval]);
    return approval;
  }

  /**
   * Removes the approval of `file`, under the store's lock; true when there was one.
   * @throws Error when another process holds the lock for longer than 10 s.
   */
  revoke(file: string): boolean {
    const real = realPath(file);
    let removed = false;
    this.change((all) => {
      const kept = all.filter((a) => a.file !== real);
      removed = kept.length !== all.length;
      return removed ? kept : undefined;
    });
    return removed;
  }

  /** Reads, changes and writes the store under its lock; `edit` returns undefined to leave it as it is. */
  private change(edit: (all: Approval[]) => Approval[] | undefined): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const token = this.lock();
    try {
      const next = edit(this.list());
      this.where.betweenReadAndWrite?.();
      if (next) this.write(next);
    } finally {
      this.unlock(token);
    }
  }

  /** Takes the lock file (created exclusively), waiting for another holder and taking over a stale one. @returns what the lock file holds. */
  private lock(): string {
    const token = `${process.pid} ${hostname()} ${Date.now()} ${randomBytes(6).toString('hex')}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    let told = false;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      try {
        const fd = openSync(this.lockPath, 'wx', 0o600);
        try {
          writeSync(fd, token);
        } finally {
          closeSync(fd);
        }
        return token;
      } catch (e) {
        if (errnoCode(e) !== 'EEXIST') throw e;
      }
      const held = readLock(this.lockPath);
      if (held !== undefined && isStale(held)) {
        this.breakStale(held);
        continue;
      }
      if (!told && held !== undefined) {
        told = true;
        this.where.onWait?.(held.split(' ')[0]);
      }
      if (Date.now() > deadline) throw new Error(`${this.lockPath} is held by another process (${held ?? 'unknown'}); if no tsq is running, delete that file and try again.`);
      sleepSync(delay);
    }
  }

  /** Removes a stale lock, unless another process took it over first (it is renamed away, then checked). */
  private breakStale(held: string): void {
    const aside = `${this.lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
    try {
      renameSync(this.lockPath, aside);
    } catch {
      return; // another process broke it first
    }
    if (readLock(aside) !== held) {
      // it was a fresh lock by then: give it back to its holder
      try {
        linkSync(aside, this.lockPath);
      } catch {
        // a third process holds the lock now; the fresh holder's release leaves it alone (tokens differ)
      }
    }
    rmSync(aside, { force: true });
  }

  /** Releases the lock when it is still this process's own. */
  private unlock(token: string): void {
    if (readLock(this.lockPath) === token) rmSync(this.lockPath, { force: true });
  }

  private write(approvals: Approval[]): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ approvals }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}

/** An approval as read: `credentials` an array of strings, `connections` kept only when well formed. */
function normalizeApproval(a: Approval): Approval {
  const credentials = Array.isArray(a.credentials) ? a.credentials.filter((c): c is string => typeof c === 'string') : [];
  const out: Approval = { file: a.file, sha256: a.sha256, credentials, approvedAt: typeof a.approvedAt === 'string' ? a.approvedAt : '' };
  if (Array.isArray(a.connections)) {
    out.connections = a.connections.filter((c): c is ApprovedConnection => !!c && typeof c.name === 'string' && Array.isArray(c.targets) && c.targets.every((t) => typeof t === 'string'));
  }
  return out;
}

/** True when `approval` covers `entry`: recorded by name with the same targets (or, in an older record, every target approved). */
function approvalCovers(approval: Approval, entry: ApprovedConnection): boolean {
  if (!entry.targets.length) return false;
  if (!approval.connections) return entry.targets.every((t) => approval.credentials.includes(t));
  const name = entry.name.toLowerCase();
  return approval.connections.some((c) => c.name.toLowerCase() === name && c.targets.length === entry.targets.length && entry.targets.every((t) => c.targets.includes(t)));
}

/** The lock file's content, or undefined when there is none (or it cannot be read). */
function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** True when a lock (`pid host epoch-ms nonce`) is stale: older than 30 s, or its holder on this host is gone. */
function isStale(held: string): boolean {
  const [pid, host, at] = held.split(' ');
  const age = Date.now() - Number(at);
  if (!Number.isFinite(age) || age > LOCK_STALE_MS) return true;
  if (host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (e) {
    // EPERM: the process exists (another user's); ESRCH: it is gone
    return errnoCode(e) === 'ESRCH';
  }
}

/** Blocks this thread for `ms` milliseconds (the store's API is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
