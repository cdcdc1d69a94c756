/**
 * Query text written for a person from a data source's columns: the `@datasource` line, a column as
 * `[name]`, the starter query of New Query on This Data Source and the query of Preview Data. One place
 * for every front end, so that a name the search language cannot hold is left out the same way
 * everywhere. Source of the rules: docs/service-interface.md §8 (search query limits 4 and 5: column names cannot
 * contain `[` or `]`; values, and so `@datasource '…'`, cannot contain quotes) and the lexer
 * (common/src/language/lexer.ts: a column name ends at the first `]` or line break; a quote inside the
 * brackets is part of the name). Pure: no I/O.
 */
import type { Column } from '../model';

/** Rows Preview Data shows: the first this many rows of the answer (as "Select Top 1000" of SQL tools). */
export const PREVIEW_ROWS = 1000;

/**
 * Whether a column name can be written as `[name]` and read back as the same name: not empty, and no
 * `[`, `]` or line break (docs/service-interface.md §8.4; the lexer ends a name at `]` or a line break).
 * A quote (`it's`) is fine inside the brackets.
 */
export function isWritableColumnName(name: string): boolean {
  return name.trim() !== '' && !/[[\]\r\n]/.test(name);
}

/**
 * A column as the search language writes it, `[name]`.
 * @throws Error when the name cannot be written (see `isWritableColumnName`): a `]` would end the
 *   column early and the rest would be read as other tokens.
 */
export function columnText(name: string): string {
  if (!isWritableColumnName(name)) throw new Error(`The column name ${JSON.stringify(name)} cannot be written in a query: column names cannot contain [, ] or line breaks (docs/service-interface.md §8.4).`);
  return `[${name}]`;
}

/**
 * A data source's `@datasource` line: its name quoted, or its GUID when the name holds a quote or a line
 * break (docs/service-interface.md §8, limit 5: quoted text cannot contain quotes).
 */
export function datasourceLine(name: string, id: string): string {
  return `@datasource '${/['\r\n]/.test(name) || !name.trim() ? id : name}'`;
}

/**
 * The starter query of New Query on This Data Source: the `@datasource` line, then the first attribute
 * and the first measure of the data source (catalog order) that can be written, e.g.
 * `@datasource 'Flights'\n[origin] [delay]`. Columns that cannot be written are skipped; with none, the
 * text is the `@datasource` line and an empty line.
 * @returns the text, ending after the columns (where the cursor goes).
 */
export function starterQuery(dataSource: { id: string; name: string }, columns: readonly Column[]): string {
  const writable = columns.filter((c) => isWritableColumnName(c.name));
  const picked = [writable.find((c) => c.kind === 'ATTRIBUTE'), writable.find((c) => c.kind === 'MEASURE')].filter((c): c is Column => !!c);
  return `${datasourceLine(dataSource.name, dataSource.id)}\n${picked.map((c) => columnText(c.name)).join(' ')}`;
}

/**
 * The query of Preview Data: every column of the data source that can be written, in catalog order,
 * `[a] [b] [c]`. Its rows are limited by the caller (searchdata's `batchsize`, `PREVIEW_ROWS`).
 * @returns the query and the names left out (they hold `[`, `]` or a line break).
 * @throws Error when no column can be written (an empty data source, or only unwritable names).
 */
export function previewQuery(columns: readonly Column[]): { query: string; skipped: string[] } {
  const skipped = columns.filter((c) => !isWritableColumnName(c.name)).map((c) => c.name);
  const written = columns.filter((c) => isWritableColumnName(c.name));
  if (!written.length) throw new Error(columns.length ? `No column of this data source can be written in a query (${skipped.map((s) => JSON.stringify(s)).join(', ')}): column names cannot contain [, ] or line breaks.` : 'This data source has no columns to preview.');
  return { query: written.map((c) => columnText(c.name)).join(' '), skipped };
}
