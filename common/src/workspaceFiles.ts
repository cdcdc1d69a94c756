/**
 * The files of a workspace folder that the workspace index reads (`.tsq` and TML files,
 * common/src/languageService/indexedFile.ts `indexedKindOf`), found on disk for the language server and
 * `tsq impact`: bounded — no symbolic link is followed, `node_modules` and dot folders are skipped, at
 * most `MAX_WORKSPACE_FILES` files and `MAX_WORKSPACE_DEPTH` folders deep, a file over `MAX_FILE_BYTES`
 * is left out (a project's files are a stranger's data). Many files are read synchronously in batches
 * (`readWorkspaceFiles`): a small file's read costs a few microseconds, its four round trips through
 * the thread pool of `fs/promises` many times that.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { indexedKindOf } from './languageService/indexedFile';

/** The largest file read, in bytes (the TML reader's own limit, common/src/tml/boundedYaml.ts `TML_LIMITS`). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** The most files found under the folders of one workspace. */
export const MAX_WORKSPACE_FILES = 50_000;
/** How many files `readWorkspaceFiles` reads between two turns of the event loop. */
export const READ_BATCH = 64;
/** The deepest folder descended into, below a workspace folder. */
export const MAX_WORKSPACE_DEPTH = 32;

/** Appends to `out` the path of every indexed file under `root` (see the module comment for the bounds). Never throws. */
export async function workspaceFilesUnder(root: string, out: string[], depth = 0): Promise<void> {
  if (depth > MAX_WORKSPACE_DEPTH || out.length >= MAX_WORKSPACE_FILES) return;
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (out.length >= MAX_WORKSPACE_FILES) return;
    if (e.isSymbolicLink()) continue;
    const path = join(root, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.') && e.name !== 'node_modules') await workspaceFilesUnder(path, out, depth + 1);
    } else if (e.isFile() && indexedKindOf(e.name)) out.push(path);
  }
}

/** The text of a file when it is a regular file of at most `MAX_FILE_BYTES`, else undefined. Never throws. */
export async function readWorkspaceFile(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    if (!s.isFile() || s.size > MAX_FILE_BYTES) return undefined;
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `readWorkspaceFile`, synchronous: one open (non-blocking, so that a FIFO put in a file's place cannot
 * stall the reader), `fstat`, read and close. Never throws.
 */
export function readWorkspaceFileSync(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const s = fstatSync(fd);
    if (!s.isFile() || s.size > MAX_FILE_BYTES) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // closed already: nothing to release
      }
    }
  }
}

/**
 * Reads the files of `paths` (`readWorkspaceFileSync`) and hands each text that reads to `onText`, in
 * order, `batch` files at a time with a turn of the event loop between batches (a server answers its
 * requests meanwhile). Never rejects unless `onText` throws.
 */
export async function readWorkspaceFiles(paths: readonly string[], onText: (path: string, text: string) => void, batch = READ_BATCH): Promise<void> {
  for (let i = 0; i < paths.length; i += batch) {
    if (i > 0) await nextTurn();
    for (const path of paths.slice(i, i + batch)) {
      const text = readWorkspaceFileSync(path);
      if (text !== undefined) onText(path, text);
    }
  }
}
