/**
 * Navigation over the workspace index (workspaceIndex.ts): definition, references, document highlight,
 * rename and workspace symbols as LSP shapes, and the read-only `tsq:` document of a column no file of
 * the workspace declares. A rename edits every use — `.tsq` brackets, TML `search_query` strings and a
 * definition TML's column `name` — written for each YAML scalar's quoting so that the YAML stays valid
 * and reads back the new name.
 *
 * Pure: no `vscode`, no LSP server, no I/O.
 */
import { DocumentHighlightKind, SymbolKind, type DocumentHighlight, type Location, type Range, type SymbolInformation, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver-types';
import { isWritableColumnName } from '../language/queryText';
import type { Column } from '../model';
import { escapeFor } from '../tml/answerTml';
import type { ColumnUse, IndexedFile } from './indexedFile';
import { positionIn, type IndexedReference, type NavigationTarget, type WorkspaceIndex } from './workspaceIndex';

/** The URI scheme of the server's read-only documents (`tsq/virtualDocument`). */
export const VIRTUAL_SCHEME = 'tsq';

/** The LSP range of a span of an indexed file. */
export function rangeIn(file: IndexedFile, start: number, end: number): Range {
  return { start: positionIn(file, start), end: positionIn(file, end) };
}

/** The locations of references, in the index's order. */
export function locationsOf(refs: readonly IndexedReference[]): Location[] {
  return refs.map((r) => ({ uri: r.file.uri, range: rangeIn(r.file, r.use.start, r.use.end) }));
}

/** The `tsq:` URI of the read-only document of a column (or, without `column`, of a data source). */
export function virtualUri(dataSource: string, column?: string): string {
  return `${VIRTUAL_SCHEME}:/${encodeURIComponent(dataSource)}${column === undefined ? '' : `/${encodeURIComponent(column)}`}.md`;
}

/** The data source and column a `tsq:` URI names (`virtualUri`), or undefined for another URI. */
export function parseVirtualUri(uri: string): { dataSource: string; column?: string } | undefined {
  const m = /^tsq:\/([^/]*?)(?:\/([^/]*?))?\.md$/.exec(uri);
  if (!m) return undefined;
  try {
    return { dataSource: decodeURIComponent(m[1]!), ...(m[2] !== undefined ? { column: decodeURIComponent(m[2]) } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The text of the read-only document of a column of a data source: its data source, data type, kind,
 * aggregation, formula and description (those known: the catalog's column, the workspace's declaration),
 * and how many references the workspace has; of a data source without `column`, its columns.
 */
export function virtualDocumentText(dataSource: string, column: string | undefined, known: { column?: Column; columns?: readonly Column[]; info?: ColumnUse['info']; references: number }): string {
  if (column === undefined) {
    const list = (known.columns ?? []).map((c) => `- \`[${c.name}]\` ${c.dataType} ${c.kind}${c.description ? ` — ${c.description}` : ''}`);
    return [`# ${dataSource}`, '', 'A data source of the connection (no file of the workspace declares it).', '', `References in the workspace: ${known.references}`, '', ...(list.length ? ['## Columns', '', ...list] : ['Its columns are not known (no connection).']), ''].join('\n');
  }
  const c = known.column;
  const info = known.info ?? {};
  const rows: [string, string | undefined][] = [
    ['Data source', dataSource],
    ['Data type', c?.dataType ?? info.dataType],
    ['Kind', c?.kind ?? info.kind],
    ['Aggregation', info.aggregation],
    ['Formula', info.formula],
    ['Description', c?.description ?? info.description],
  ];
  const lines = rows.map(([k, v]) => `- **${k}**: ${v ?? 'not known'}`);
  return [`# [${c?.name ?? column}]`, '', ...lines, `- **References in the workspace**: ${known.references}`, ''].join('\n');
}

/** The highlights of a target in one file: its uses (Read) and its declaration (Write). */
export function highlightsIn(index: WorkspaceIndex, uri: string, target: NavigationTarget): DocumentHighlight[] {
  return index.references(target, true).filter((r) => r.file.uri === uri).map((r) => ({ range: rangeIn(r.file, r.use.start, r.use.end), kind: r.use.declaration ? DocumentHighlightKind.Write : DocumentHighlightKind.Read }));
}

/** The workspace symbols whose name matches `query` (workspaceIndex.ts `symbols`), as LSP `SymbolInformation`. */
export function workspaceSymbols(index: WorkspaceIndex, query: string): SymbolInformation[] {
  const kinds = { dataSource: SymbolKind.Class, answer: SymbolKind.Object, liveboard: SymbolKind.Module } as const;
  const details = { dataSource: 'data source', answer: 'answer', liveboard: 'liveboard' } as const;
  return index.symbols(query).map((o) => ({ name: o.name, kind: kinds[o.kind], containerName: details[o.kind], location: { uri: o.file.uri, range: rangeIn(o.file, o.start, o.end) } }));
}

/** Why a rename is refused: a name that cannot be written, or one another column of the data source has. */
export class RenameRefused extends Error {}

/** YAML words a plain scalar would read as another type (YAML 1.2 core schema, and 1.1's booleans). */
const PLAIN_WORDS = /^(true|false|null|yes|no|on|off|~|[-+.\d].*)$/i;

/** Whether a name can stand as a whole plain scalar (`name: Total Sales`) and read back the same string. */
function plainSafe(name: string): boolean {
  return /^[A-Za-z_][\w ()/.-]*$/.test(name) && !/\s$/.test(name) && !PLAIN_WORDS.test(name);
}

/**
 * The edits that rename the column of `target` to `newName` over every reference the index has (its
 * declarations included): `[name]` in `.tsq` files, each use inside a TML `search_query` escaped for its
 * scalar's quoting (a plain scalar that the new name would break is rewritten double-quoted, whole), a
 * definition's `name` likewise. `otherColumns` are the names the data source has besides (the workspace's
 * declarations, the catalog's).
 * @throws RenameRefused when `newName` cannot be written in a query or another column has it.
 */
export function renameColumn(index: WorkspaceIndex, target: Extract<NavigationTarget, { kind: 'column' }>, newName: string, otherColumns: readonly string[]): WorkspaceEdit {
  const name = newName.trim();
  if (!isWritableColumnName(name) || name.includes('::')) throw new RenameRefused(`${JSON.stringify(newName)} cannot be a column name: a name is not empty and holds no [, ], :: or line break.`);
  const old = target.column.trim().toLowerCase();
  const clash = otherColumns.find((c) => c.trim().toLowerCase() === name.toLowerCase() && c.trim().toLowerCase() !== old);
  if (clash !== undefined) throw new RenameRefused(`The data source ${target.dataSource} already has a column ${clash}: renaming ${target.column} to ${name} would make them one.`);
  const changes: Record<string, TextEdit[]> = {};
  const byFile = new Map<IndexedFile, ColumnUse[]>();
  for (const r of index.references(target, true)) {
    const list = byFile.get(r.file) ?? [];
    list.push(r.use as ColumnUse);
    byFile.set(r.file, list);
  }
  for (const [file, uses] of byFile) changes[file.uri] = fileEdits(file, uses, name);
  return { changes };
}

/** The edits of one file's uses (see `renameColumn`). */
function fileEdits(file: IndexedFile, uses: ColumnUse[], name: string): TextEdit[] {
  const edit = (start: number, end: number, newText: string): TextEdit => ({ range: rangeIn(file, start, end), newText });
  if (file.kind === 'tsq') return uses.map((u) => edit(u.start, u.end, name));
  const out: TextEdit[] = [];
  const byScalar = new Map<number, ColumnUse[]>();
  for (const u of uses) {
    if (u.scalar === undefined) {
      // a definition's `name`: quoted as it was, or plain when the new name stays a plain string
      const plain = u.quote === undefined || u.quote === 'PLAIN';
      out.push(edit(u.start, u.end, plain ? (plainSafe(name) ? name : JSON.stringify(name)) : escapeFor(u.quote, name)));
      continue;
    }
    byScalar.set(u.scalar, [...(byScalar.get(u.scalar) ?? []), u]);
  }
  for (const [i, list] of byScalar) {
    const s = file.scalars[i]!;
    const breaksPlain = s.type === 'PLAIN' && /[:#]/.test(name);
    if (!breaksPlain) {
      for (const u of list) out.push(edit(u.start, u.end, escapeFor(s.type, name)));
      continue;
    }
    let value = s.value;
    for (const u of [...list].sort((a, b) => b.valueStart! - a.valueStart!)) value = value.slice(0, u.valueStart) + name + value.slice(u.valueEnd);
    out.push(edit(s.start, s.end, JSON.stringify(value)));
  }
  return out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}
