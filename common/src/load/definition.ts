/**
 * The load definition (docs/service-interface.md §2.2) the Load CSV command builds: targets typed as `database.schema.table`,
 * the preview of sniffed rows laid onto the target's columns with mismatches flagged (column count, values
 * that will not parse, the `flexible` option), a one-line summary of the format, and the
 * `<file>.load.json` file saved next to a CSV and read back by Load Again.
 *
 * Pure: no `vscode`, no I/O.
 */
import type { LoadDefinition } from '../api';
import { describeSeparator, type TargetColumn } from './sniff';
import { fullFormat, valueCheck, type FullFormat } from './values';

/** A load target (docs/service-interface.md §2.2 `target`). */
export type LoadTarget = LoadDefinition['target'];

/** What `<file>.load.json` holds: a load definition, plus the file's encoding (a TSQ member, not sent to the service). */
export interface SavedLoadDefinition extends LoadDefinition {
  /** WHATWG encoding label of the CSV file (default utf-8). Not part of docs/service-interface.md §2.2: removed before StartLoad. */
  encoding?: string;
}

/**
 * Parses `database.schema.table` or `database.table` (schema: the destination's default). Parts may be
 * double-quoted to hold dots (`"my.db".s."t"`).
 * @returns undefined when the text is not such a name.
 */
export function parseTargetText(text: string): LoadTarget | undefined {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")+)"|([^."\s][^."]*?))\s*(\.|$)/y;
  let pos = 0;
  const s = text.trim();
  if (!s) return undefined;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return undefined;
    parts.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2].trim());
    pos = re.lastIndex;
    if (m[3] === '.' && pos >= s.length) return undefined;
  }
  if (parts.length === 3) return { database: parts[0], schema: parts[1], table: parts[2] };
  if (parts.length === 2) return { database: parts[0], table: parts[1] };
  return undefined;
}

/** `database.schema.table` for a person (schema left out when unknown). */
export function targetText(t: LoadTarget): string {
  return [t.database, t.schema, t.table].filter((p): p is string => !!p).map((p) => (/[."\s]/.test(p) ? `"${p.replace(/"/g, '""')}"` : p)).join('.');
}

/** One previewed row: its cells laid onto the target's columns and what will not load. */
export interface PreviewRow {
  /** 1-based record number in the file (header not counted). */
  record: number;
  cells: (string | null)[];
  /** Why the service would refuse this row (empty when it loads). */
  problems: string[];
}

/** The preview of a load. */
export interface Preview {
  /** Column-count mismatch between the file and the target, with what `flexible` does about it; undefined when they match. */
  columnCount?: string;
  /** Header names that differ from the target's columns at the same position. */
  headerMismatches: string[];
  rows: PreviewRow[];
  /** Rows of the preview that will be refused. */
  badRows: number;
}

/**
 * Lays sniffed rows onto the target's columns (by position, as the service does) and checks every value
 * under `format`. Without `flexible` a row whose field count differs from the table's is refused (docs/service-interface.md §2.2
 * "the load proceeds only if the input matches the target schema exactly"); with it extra fields are dropped
 * and missing ones are nulls.
 */
export function previewRows(rows: (string | null)[][], header: string[] | undefined, columns: TargetColumn[], formatIn: LoadDefinition['format'] | FullFormat): Preview {
  const format = fullFormat(formatIn as LoadDefinition['format']);
  let checks: ((v: string | null) => string | undefined)[];
  let formatError: string | undefined;
  try {
    checks = columns.map((c) => valueCheck(c.dataType, format));
  } catch (e) {
    formatError = (e as Error).message;
    checks = columns.map(() => () => undefined);
  }
  const widths = new Set(rows.map((r) => r.length));
  let columnCount: string | undefined;
  if (columns.length && [...widths].some((w) => w !== columns.length)) {
    const w = [...widths].sort((a, b) => a - b).join(' or ');
    columnCount = format.flexible
      ? `the file has ${w} fields per row, the table ${columns.length} columns: flexible is on, so extra fields are dropped and missing ones are null`
      : `the file has ${w} fields per row, the table ${columns.length} columns: such rows will be refused (turn flexible on to drop extra fields and fill missing ones with nulls)`;
  }
  const headerMismatches: string[] = [];
  if (header && columns.length) {
    header.forEach((h, i) => {
      const c = columns[i];
      if (c && h.trim().toLowerCase() !== c.name.toLowerCase()) headerMismatches.push(`field ${i + 1} is "${h}" in the header, the table's column ${i + 1} is ${c.name}`);
    });
  }
  const out: PreviewRow[] = rows.map((r, i) => {
    const problems: string[] = [];
    if (formatError) problems.push(formatError);
    if (columns.length && r.length !== columns.length && !format.flexible) problems.push(`${r.length} fields, the table has ${columns.length} columns`);
    const cells = columns.length ? columns.map((_, c) => (c < r.length ? r[c] : null)) : r;
    columns.forEach((col, c) => {
      if (c >= r.length) return;
      const why = checks[c](r[c]);
      if (why) problems.push(`${col.name}: ${why}`);
    });
    return { record: i + 1, cells, problems };
  });
  return { ...(columnCount ? { columnCount } : {}), headerMismatches, rows: out, badRows: out.filter((r) => r.problems.length).length };
}

/** A short summary of a format and its encoding, e.g. `csv · separator , · enclosed by " · header row · dates %Y-%m-%d · utf-8`. */
export function formatSummary(formatIn: LoadDefinition['format'], encoding = 'utf-8'): string {
  const f = fullFormat(formatIn);
  const parts = [f.type, `separator ${describeSeparator(f.field_separator)}`];
  if (f.type === 'csv') parts.push(f.enclosing_character ? `enclosed by ${f.enclosing_character}` : 'not enclosed');
  else parts.push(`null ${f.null_value === '' ? '(empty)' : f.null_value}`, ...(f.escape_character ? [`escape ${f.escape_character}`] : []));
  parts.push(f.has_header_row ? 'header row' : 'no header');
  if (f.trailing_field_separator) parts.push('trailing separator');
  if (f.date_time.converted_to_epoch && f.type === 'csv') parts.push('dates as epoch seconds');
  else parts.push(`dates ${f.date_time.date_format}`, `date-times ${f.date_time.date_time_format}`);
  parts.push(`times ${f.date_time.time_format}`);
  parts.push(f.boolean.use_bit_values ? 'booleans 0x1/0x0' : `booleans ${f.boolean.true_format}/${f.boolean.false_format}`);
  if (f.flexible) parts.push('flexible');
  parts.push(encoding);
  return parts.join(' · ');
}

/** The path of the saved definition next to a CSV file. */
export function savedDefinitionPath(csvPath: string): string {
  return `${csvPath}.load.json`;
}

/** The definition to save: the docs/service-interface.md §2.2 members, plus `encoding` when not UTF-8. */
export function toSaved(def: LoadDefinition, encoding: string): SavedLoadDefinition {
  return { ...def, ...(encoding.toLowerCase() !== 'utf-8' ? { encoding } : {}) };
}

/** Splits a saved definition into the load definition sent to StartLoad and the file's encoding. */
export function fromSaved(saved: SavedLoadDefinition): { definition: LoadDefinition; encoding: string } {
  const { encoding, ...rest } = saved;
  const { $schema: _schema, ...definition } = rest as LoadDefinition & { $schema?: unknown };
  return { definition, encoding: encoding ?? 'utf-8' };
}

/**
 * Reads the text of a `<file>.load.json`.
 * @throws Error saying what is wrong (not JSON, no target, a member of the wrong type) — the file is left as it is.
 */
export function parseSavedDefinition(text: string, where = 'the load definition'): SavedLoadDefinition {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  const o = v as SavedLoadDefinition;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error(`${where} must be a JSON object with target, format, load_options and advanced_options (see the load definition of the data-load API)`);
  const t = o.target as Partial<LoadTarget> | undefined;
  if (!t || typeof t.database !== 'string' || !t.database || typeof t.table !== 'string' || !t.table || (t.schema !== undefined && typeof t.schema !== 'string')) {
    throw new Error(`${where} needs target.database and target.table (strings; target.schema optional)`);
  }
  const typeOf = (path: string, value: unknown, type: 'string' | 'boolean' | 'number') => {
    if (value !== undefined && typeof value !== type) throw new Error(`${where}: ${path} must be a ${type}`);
  };
  const f = (o.format ?? {}) as Record<string, unknown>;
  for (const k of ['field_separator', 'enclosing_character', 'escape_character', 'null_value']) typeOf(`format.${k}`, f[k], 'string');
  for (const k of ['trailing_field_separator', 'has_header_row', 'flexible']) typeOf(`format.${k}`, f[k], 'boolean');
  if (f.type !== undefined && !/^(csv|delimited)$/i.test(String(f.type))) throw new Error(`${where}: format.type must be csv or delimited`);
  if (typeof f.field_separator === 'string' && f.field_separator.length !== 1) throw new Error(`${where}: format.field_separator must be one character`);
  const lo = (o.load_options ?? {}) as Record<string, unknown>;
  typeOf('load_options.empty_target', lo.empty_target, 'boolean');
  typeOf('load_options.max_ignored_rows', lo.max_ignored_rows, 'number');
  if (typeof lo.max_ignored_rows === 'number' && (!Number.isInteger(lo.max_ignored_rows) || lo.max_ignored_rows < 0)) throw new Error(`${where}: load_options.max_ignored_rows must be a whole number ≥ 0`);
  typeOf('encoding', o.encoding, 'string');
  if (typeof o.encoding === 'string') {
    try {
      new TextDecoder(o.encoding);
    } catch {
      throw new Error(`${where}: encoding "${o.encoding}" is not an encoding name (e.g. utf-8, windows-1252)`);
    }
  }
  return o;
}
