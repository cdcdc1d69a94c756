/**
 * A column written with its table path, `[airports_2::city]` (the token form, docs/service-notes.md §2.11),
 * as validation, hover and completion read it. On a model, whose columns carry their table path and source
 * column (common/src/model.ts `Column.tablePath`/`sourceColumn`), it is the model's column of that path's
 * column, as searchdata answers it; on a data source without paths, the column of that name.
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { Column } from '../model';
import { splitColumnPath, TABLE_PATH_SEPARATOR } from '../language/keywords';

/** `path::column` in lower case, spaces around either part dropped: the key a path name is looked up by. */
function pathKey(path: string, column: string): string {
  return `${path.trim()}${TABLE_PATH_SEPARATOR}${column.trim()}`.toLowerCase();
}

/** The `path::column` name of a model's column (`airports_2::city`), or undefined for a column without a path. */
export function pathNameOf(c: Column): string | undefined {
  return c.tablePath !== undefined && c.sourceColumn !== undefined ? `${c.tablePath}${TABLE_PATH_SEPARATOR}${c.sourceColumn}` : undefined;
}

/** Whether any column carries a table path: the data source is a model, and `[x::column]` names a path. */
export function hasTablePaths(columns: readonly Column[]): boolean {
  return columns.some((c) => pathNameOf(c) !== undefined);
}

/** The lower-case `path::column` keys of a model's columns → the columns (empty on a data source without paths). */
export function indexPaths(columns: readonly Column[]): Map<string, Column[]> {
  const byPath = new Map<string, Column[]>();
  for (const c of columns) {
    if (c.tablePath === undefined || c.sourceColumn === undefined) continue;
    const k = pathKey(c.tablePath, c.sourceColumn);
    const list = byPath.get(k);
    if (list) list.push(c);
    else byPath.set(k, [c]);
  }
  return byPath;
}

/**
 * The columns a name with a table path means, or undefined when the name has no path: on a model (a
 * non-empty `byPath`, from `indexPaths`) those of that path's column, `[]` when none; otherwise those
 * `byName` gives for the column's name (today's rule on a table).
 */
export function columnsOfPath(name: string, byPath: ReadonlyMap<string, Column[]>, byName: (lowerName: string) => Column[] | undefined): Column[] | undefined {
  const { path, column } = splitColumnPath(name);
  if (path === undefined) return undefined;
  if (byPath.size === 0) return byName(column.trim().toLowerCase());
  return byPath.get(pathKey(path, column)) ?? [];
}

/** The column `[name]` means (by name, any case, then by table path), or undefined. */
export function findColumnByName(columns: readonly Column[], name: string): Column | undefined {
  const key = name.trim().toLowerCase();
  const own = columns.find((c) => c.name.toLowerCase() === key);
  if (own) return own;
  const byName = (k: string): Column[] | undefined => {
    const c = columns.find((x) => x.name.toLowerCase() === k);
    return c ? [c] : undefined;
  };
  const found = columnsOfPath(name, indexPaths(columns), byName);
  return found?.length === 1 ? found[0] : undefined;
}

/**
 * What completion offers after `[path::` on a model: the columns of that path (any case), each with the
 * name to insert after the separator, and the offset of that name in `typed`; undefined when `typed` has no
 * path, or the data source no paths (the ordinary column items then apply).
 */
export function pathCompletion(columns: readonly Column[], typed: string): { offset: number; columns: { column: Column; name: string }[] } | undefined {
  const at = typed.lastIndexOf(TABLE_PATH_SEPARATOR);
  if (at <= 0 || !hasTablePaths(columns)) return undefined;
  const path = typed.slice(0, at).trim().toLowerCase();
  const list = columns.filter((c) => c.tablePath?.toLowerCase() === path && c.sourceColumn !== undefined).map((c) => ({ column: c, name: c.sourceColumn! }));
  return { offset: at + TABLE_PATH_SEPARATOR.length, columns: list };
}
