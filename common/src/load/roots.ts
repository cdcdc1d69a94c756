/**
 * Which files an agent may have loaded: `load_csv` of `tsq mcp` (cli/src/mcp.ts) loads only a regular file
 * under one of the server's roots (the folder it was started in, `--root DIR`, and the roots the MCP
 * client lists with `roots/list`, MCP specification 2025-06-18 "Roots"). An agent steered by a cell's text
 * must not load `~/.ssh/id_rsa` into a table and read it back, nor hang the server on `/dev/zero`.
 * Symbolic links are resolved before the check, so a link under a root that points outside it is refused.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';

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

/**
 * The real path of a file an agent asked to load, after checking it.
 * @param path the tool's `path`; a relative one is taken from `base`.
 * @param roots the folders it may be under (resolved through their links; one that does not exist counts for nothing).
 * @param base the folder a relative `path` starts from (the server's working folder).
 * @returns the path with every link resolved: load that one, not `path`.
 * @throws LoadPathError when the file does not exist, is outside every root, or is not a regular file
 * (a device such as `/dev/zero`, a pipe, a socket, a folder).
 */
export async function loadableFile(path: string, roots: readonly string[], base: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(resolve(base, path));
  } catch (e) {
    throw new LoadPathError(`${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
  const realRoots = (await Promise.all(roots.map((r) => realpath(resolve(base, r)).catch(() => undefined)))).filter((r): r is string => !!r);
  if (!realRoots.some((r) => inside(r, real))) {
    throw new LoadPathError(`${path} is outside the folders this server may load from (${realRoots.join(', ') || 'none'}). Ask the user to move the file there, or to start tsq mcp with --root for its folder.`);
  }
  const st = await stat(real);
  if (!st.isFile()) throw new LoadPathError(`${path} is not a regular file (a device, a pipe, a socket or a folder): load_csv loads regular files only.`);
  return real;
}
