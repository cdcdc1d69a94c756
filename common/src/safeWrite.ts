/**
 * Writes that never follow a link: the one way TSQ writes a file into a folder a repository can hold
 * (TML export, exported results, `tsq query --out`, `tsq bad-records --out`, saved `.load.json`, Export
 * TML in VS Code). A cloned repository may hold links at any name, so the bytes go to a new temporary
 * file of a name that cannot be guessed, made with exclusive create, then renamed over the target
 * (`writeFileSafely`, `openSafeWriteStream`), and a folder TSQ creates is made one component at a time
 * without following a link (`ensureFolder`). Also here: the file system's limit on a name
 * (`NAME_MAX_BYTES`), `cutToBytes`, which cuts a name to it on a character boundary, and `safeFileName`,
 * which makes a name of the service's a file name. No `vscode`: every front end uses this module.
 */
import { randomBytes } from 'node:crypto';
import { constants, type WriteStream } from 'node:fs';
import { lstat, mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, parse, resolve, sep } from 'node:path';
import { replaceUnsafe } from './terminalText';
import { errnoCode } from './guards';

/**
 * The longest name of one path component, in bytes of UTF-8: 255 on ext4, XFS, Btrfs and APFS
 * (NAME_MAX of limits.h); NTFS counts 255 UTF-16 units, never more than the UTF-8 bytes.
 */
export const NAME_MAX_BYTES = 255;

/** Open flags of the temporary file: write, create, exclusive, and no link followed where the platform says so. */
const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Tries of a fresh random name when one exists already (an EEXIST; 96 random bits make a second try rare). */
const TRIES = 8;

/** A refusal of `ensureFolder`: a component is a link to nothing, or exists and is not a folder. `path` is that component. */
export class UnsafePathError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

/**
 * Creates folder `dir` and any missing parents (like `mkdir -p`) without following a link at a
 * component it creates: each missing component is made by `mkdir` (which fails on an existing name, a
 * link included, and never follows one) and checked with `lstat` afterwards. Below `repository` (where a
 * cloned repository's files are) every component must be a folder itself: a link is refused, not
 * followed; above it, and outside it, a component that already is a folder or a link to one (the user's
 * own layout, e.g. `/tmp` on macOS) is used as it is. A link to nothing is refused anywhere (following
 * it would create its target).
 * @param options.repository the folder whose contents may have come with a repository (default the
 *   current folder); it and its parents are the user's
 * @throws UnsafePathError when a component below `repository` is a link, a component is a link to
 *   nothing or to a non-folder, or a component is a file; the file system's error (EACCES, …) otherwise
 */
export async function ensureFolder(dir: string, options: { repository?: string } = {}): Promise<void> {
  const absolute = resolve(dir);
  const repository = resolve(options.repository ?? '.');
  const inside = repository.endsWith(sep) ? repository : repository + sep;
  const { root } = parse(absolute);
  let here = root;
  for (const part of absolute.slice(root.length).split(sep).filter(Boolean)) {
    here = join(here, part);
    try {
      await mkdir(here);
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST') throw e;
    }
    const st = await lstat(here);
    if (st.isDirectory()) continue;
    if (!st.isSymbolicLink()) throw new UnsafePathError(`${here} is not a folder`, here);
    const target = await stat(here).catch(() => undefined);
    if (!target?.isDirectory()) throw new UnsafePathError(`${here} is a link to ${target ? 'something that is not a folder' : 'nothing'}; tsq does not create a folder through a link`, here);
    if (here.startsWith(inside)) throw new UnsafePathError(`${here} is a link; inside ${repository} tsq writes only through real folders (give the folder it points at, if that is where you want the files)`, here);
  }
}

/** A new temporary file beside `file`, created exclusively under an unguessable name. */
async function openTemporary(file: string, mode: number): Promise<{ handle: FileHandle; temporary: string }> {
  for (let i = 1; ; i++) {
    const temporary = join(dirname(file), `.tsq-${randomBytes(12).toString('base64url')}.part`);
    try {
      return { handle: await open(temporary, EXCLUSIVE, mode), temporary };
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST' || i === TRIES) throw e;
    }
  }
}

/** Options of `writeFileSafely` and `openSafeWriteStream`. */
export interface SafeWriteOptions {
  /** Permission bits of a new file, before the umask (default 0o666, as `fs.writeFile`). */
  mode?: number;
}

/**
 * Writes `data` (a string as UTF-8) to `file` whole. The bytes go to a new temporary file beside the
 * target whose name cannot be guessed (`.tsq-<16 random base64url characters>.part`, from
 * `crypto.randomBytes`), created with exclusive create (`O_CREAT | O_EXCL`, which never follows a link,
 * even a dangling one — POSIX open(2)) and `O_NOFOLLOW` where the platform has it, then renamed over the
 * target. A link at the target's name is replaced by the file, never followed (rename(2) replaces the
 * name, not what a link points at). The temporary file is removed when the write fails, so a half file
 * never has the target's name. The folder must exist.
 * @throws the file system's error (EACCES, ENOENT for a missing folder, ENAMETOOLONG, EISDIR when
 *   `file` is a folder…); the temporary file is removed then and `file` is unchanged
 */
export async function writeFileSafely(file: string, data: string | Uint8Array, options: SafeWriteOptions = {}): Promise<void> {
  const { handle, temporary } = await openTemporary(file, options.mode ?? 0o666);
  try {
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (e) {
    await rm(temporary, { force: true });
    throw e;
  }
}

/** A file being written by `openSafeWriteStream`: write to `stream`, then `commit()` or `abort()`. */
export interface SafeWriteStream {
  /** The temporary file's stream (a `fs.WriteStream`; its `error` events are also `commit()`'s rejection). */
  readonly stream: WriteStream;
  /**
   * Ends the stream, waits until the temporary file is closed, and renames it over the target.
   * @throws the stream's or the rename's error; the temporary file is removed then
   */
  commit(): Promise<void>;
  /** Destroys the stream and removes the temporary file; the target is unchanged. Never throws. */
  abort(): Promise<void>;
}

/**
 * Opens `file` for a streaming write that lands whole or not at all: the stream writes an exclusive
 * temporary file beside it (see the module comment), renamed over `file` by `commit()`, removed by
 * `abort()` (on an error or a cancel). The folder must exist.
 * @param options.encoding the encoding of strings written (default UTF-8)
 * @throws the file system's error when the temporary file cannot be created (EACCES, ENOENT, …)
 */
export async function openSafeWriteStream(file: string, options: SafeWriteOptions & { encoding?: BufferEncoding } = {}): Promise<SafeWriteStream> {
  const { handle, temporary } = await openTemporary(file, options.mode ?? 0o666);
  const stream = handle.createWriteStream({ encoding: options.encoding ?? 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (e) => (failure ??= e));
  const closed = new Promise<void>((done) => stream.once('close', () => done()));
  let settled: Promise<void> | undefined;
  const abort = (): Promise<void> =>
    (settled ??= (async () => {
      if (!stream.closed) stream.destroy();
      await closed;
      await rm(temporary, { force: true });
    })());
  return {
    stream,
    abort,
    commit: () =>
      (settled ??= (async () => {
        if (!stream.writableEnded && !stream.destroyed) stream.end();
        await closed;
        try {
          if (failure) throw failure;
          if (!stream.writableFinished) throw new Error(`the write to ${basename(file)} was cut off`);
          await rename(temporary, file);
        } catch (e) {
          await rm(temporary, { force: true });
          throw e;
        }
      })()),
  };
}

/**
 * The longest start of `text` whose UTF-8 form is at most `maxBytes` bytes, cut between two code points
 * (never inside a UTF-16 surrogate pair, so never inside a UTF-8 sequence). `text` itself when it fits.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * A file name from a name of the service's (an object's, a data source's): path separators and the
 * characters Windows forbids in a name (`/ \ : * ? " < > |`, https://learn.microsoft.com/windows/win32/fileio/naming-a-file)
 * and every character a terminal acts on (`replaceUnsafe`, common/src/terminalText.ts: C0, DEL, C1,
 * U+2028/2029, bidi controls) become `_`, as do leading dots (no hidden file); `_` for an empty name.
 * Not cut: the caller cuts the name with its ending to NAME_MAX_BYTES (`cutToBytes`).
 */
export function safeFileName(name: string): string {
  return replaceUnsafe(name.replace(/[/\\:*?"<>|]/g, '_'), '_').replace(/^\.+/, '_') || '_';
}
