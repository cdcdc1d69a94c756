/**
 * Which files an agent may have loaded: `load_csv` of `tsq mcp` (cli/src/mcp.ts) loads only a regular file
 * under one of the server's roots (`--root DIR`, the roots the MCP client lists with `roots/list`, MCP
 * specification 2025-06-18 "Roots", and the folder it was started in unless that is `/`, the home folder
 * or a folder above it: `startFolderRoot`). An agent steered by a cell's text must not load
 * `~/.ssh/id_rsa` into a table and read it back, nor hang the server on `/dev/zero`. Below a root, no
 * hidden folder or file (a path component starting with `.`: `.ssh`, `.aws`, `.config`, `.env`) is read
 * unless it is a root itself, and no file with more than one hard link (another name, perhaps outside
 * every root, for the same bytes).
 * The file is opened once and checked through its handle, and the load reads that handle (a file put in
 * its place later is never read); linked folders are resolved before the check, a linked file refused.
 */
import { constants, realpathSync, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { errnoCode, messageOf } from '../guards';

/** A path `load_csv` will not read; the message says why and what the person can do. */
export class LoadPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadPathError';
  }
}

/** Whether `path` (resolved) is `root` or inside it. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path` (links resolved), or `path` resolved when it does not exist. */
function realOrResolved(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}

/**
 * Whether the folder a server was started in may serve as a root of `load_csv`: not a file system root
 * (`/`, `C:\`), not the home folder, not a folder above it (`/home`), compared with their links resolved.
 * An MCP client may start its servers in any of those, and then "under the start folder" is every key,
 * token and configuration of the user.
 * @param folder the start folder (`process.cwd()`).
 * @param home the home folder (`os.homedir()`).
 * @returns `{ root }` with the folder resolved when it counts; otherwise `{ why }`, a sentence saying why it does not.
 */
export function startFolderRoot(folder: string, home: string): { root: string } | { why: string } {
  const start = realOrResolved(folder);
  const h = realOrResolved(home);
  if (parse(start).root === start) return { why: `the folder tsq mcp was started in (${start}) is the root of the file system, which is no root for load_csv` };
  if (inside(start, h)) return { why: `the folder tsq mcp was started in (${start}) is the home folder or above it, which is no root for load_csv` };
  return { root: start };
}

/** The first component of `rel` (a relative path below a root) that starts with `.`, or undefined. */
function hiddenComponent(rel: string): string | undefined {
  return rel === '' ? undefined : rel.split(sep).find((c) => c.startsWith('.'));
}

/** A file `load_csv` may load, open: load from `handle` (never by `path` again), then close it. */
export interface LoadableFile {
  /** Where the file was when it was checked: its folder with every link resolved, and its own name. */
  readonly path: string;
  /** The file, opened once; the caller closes it. */
  readonly handle: FileHandle;
  /** Its size in bytes when it was checked. */
  readonly size: number;
}

/** Open for reading; never through a link as the last component; never waiting for a pipe's writer. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens a file an agent asked to load, and checks the file it opened: there is no moment between the check
 * and the read when another file or a link could be put in its place (the load reads the handle).
 * The last component of `path` may not be a symbolic link (opened with `O_NOFOLLOW`; the folders above it
 * may be links, resolved); the opened file must be a regular file with one hard link (`fstat` of the
 * handle: `nlink` 1) and be the entry of that name in its resolved folder (same device and inode), and it
 * must be under a root with no component below that root starting with `.` (a hidden folder or file),
 * unless a root names that hidden folder itself.
 * @param path the tool's `path`; a relative one is taken from `base`.
 * @param roots the folders it may be under (resolved through their links; one that does not exist counts for nothing).
 * @param base the folder a relative `path` starts from (the server's working folder).
 * @returns the open file (the caller closes `handle`).
 * @throws LoadPathError when the file does not exist or cannot be opened, its last component is a symbolic
 * link, it was replaced while it was checked, it is outside every root (or there is no root), it is in a
 * hidden folder or is a hidden file below its root, it is not a regular file (a device such as
 * `/dev/zero`, a pipe, a socket, a folder), or it has more than one hard link; nothing stays open then.
 */
export async function openLoadableFile(path: string, roots: readonly string[], base: string): Promise<LoadableFile> {
  const abs = resolve(base, path);
  const link = () => new LoadPathError(`${path} is a symbolic link: load_csv loads a file by its own name, not through a link. Give the path of the file itself.`);
  let handle: FileHandle;
  try {
    handle = await open(abs, OPEN_FLAGS);
  } catch (e) {
    const code = errnoCode(e);
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD), EFTYPE (NetBSD)
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE') throw link();
    throw new LoadPathError(`${path} cannot be read (${code ?? messageOf(e)}).`);
  }
  try {
    const st = await handle.stat();
    let real: string;
    let entry: Stats | undefined;
    try {
      real = join(await realpath(dirname(abs)), basename(abs));
      entry = await lstat(real);
    } catch {
      entry = undefined;
      real = abs;
    }
    if (entry?.isSymbolicLink()) throw link();
    if (!entry || entry.dev !== st.dev || entry.ino !== st.ino) throw new LoadPathError(`${path} was replaced while it was checked: nothing was loaded. Try again once the file stays in place.`);
    const realRoots = (await Promise.all(roots.map((r) => realpath(resolve(base, r)).catch(() => undefined)))).filter((r): r is string => !!r);
    const under = realRoots.filter((r) => inside(r, real));
    if (under.length === 0) {
      throw new LoadPathError(`${path} is outside the folders this server may load from (${realRoots.join(', ') || 'none'}). Ask the user to move the file there, or to start tsq mcp with --root for its folder.`);
    }
    const hidden = under.map((r) => hiddenComponent(relative(r, real)));
    if (hidden.every((c) => c !== undefined)) {
      throw new LoadPathError(`${path} is in a hidden folder or is a hidden file (${hidden[0]}) below the folder it is under: load_csv does not read those (keys and credentials live there). If it should, ask the user to name that folder itself with --root.`);
    }
    if (!st.isFile()) throw new LoadPathError(`${path} is not a regular file (a device, a pipe, a socket or a folder): load_csv loads regular files only.`);
    if (st.nlink > 1) throw new LoadPathError(`${path} has ${st.nlink} hard links: load_csv does not load a file that has another name (it may be a file from outside the roots). Ask the user to copy the file instead.`);
    return { path: real, handle, size: st.size };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** The largest saved load definition `readLoadableText` reads (bytes): a definition is a few hundred. */
export const MAX_DEFINITION_BYTES = 64 * 1024;

/**
 * The text of a small file beside one an agent loads (its saved `<file>.load.json`), read under the rule of
 * `openLoadableFile`: no link as its name, a regular file, under a root, read from the handle it was checked
 * through. Nothing of a refused file's content is read.
 * @returns the text (UTF-8), or `undefined` when there is no such file.
 * @throws LoadPathError when it may not be read (see `openLoadableFile`) or is larger than `MAX_DEFINITION_BYTES`.
 */
export async function readLoadableText(path: string, roots: readonly string[], base: string): Promise<string | undefined> {
  if (!(await lstat(resolve(base, path)).catch(() => undefined))) return undefined;
  const file = await openLoadableFile(path, roots, base);
  try {
    if (file.size > MAX_DEFINITION_BYTES) throw new LoadPathError(`${path} is larger than ${MAX_DEFINITION_BYTES} bytes: it is not a load definition.`);
    return await file.handle.readFile({ encoding: 'utf8' });
  } finally {
    await file.handle.close();
  }
}
