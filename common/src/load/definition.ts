/**
 * The load definition (docs/service-interface.md §2.2) the Load CSV command builds: targets typed as `database.schema.table`,
 * the preview of sniffed rows laid onto the target's columns with mismatches flagged (column count, values
 * that will not parse, the `flexible` option), a one-line summary of the format, and the
 * `<file>.load.json` file saved next to a CSV and read back by Load Again.
 *
 * Pure: no `vscode`, no I/O.
 */
import * as z from 'zod';
import { LOAD_DEFINITION_SCHEMA, type LoadDefinition } from '../api/loadApi';
import { describeSeparator, type TargetColumn } from './sniff';
import { fullFormat, valueCheck, type FullFormat } from './values';
import { isRecord, messageOf } from '../guards';

/** A load target (docs/service-interface.md §2.2 `target`). */
export type LoadTarget = LoadDefinition['target'];

/** Whether `label` names an encoding `TextDecoder` reads (a WHATWG encoding label). */
function isEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** What `<file>.load.json` holds: a load definition, plus the file's encoding (a TSQ member, not sent to the service). */
const SAVED_DEFINITION_SCHEMA = LOAD_DEFINITION_SCHEMA.extend({
  /** A saved definition names its database (`tsq load FILE` and Load CSV Again load into it). */
  target: LOAD_DEFINITION_SCHEMA.shape.target.extend({ database: z.string().min(1) }),
  /** WHATWG encoding label of the CSV file (default utf-8). Not part of docs/service-interface.md §2.2: removed before StartLoad. */
  encoding: z.string().refine(isEncoding, { error: (issue) => `${JSON.stringify(issue.input)} is not an encoding name (e.g. utf-8, windows-1252)` }).optional(),
});

/** What `<file>.load.json` holds (`SAVED_DEFINITION_SCHEMA`'s type). */
export type SavedLoadDefinition = z.infer<typeof SAVED_DEFINITION_SCHEMA>;

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
    formatError = messageOf(e);
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

/** Splits a saved definition into the load definition sent to StartLoad and the file's encoding (its members normalised: `normaliseDefinition`). */
export function fromSaved(saved: SavedLoadDefinition): { definition: LoadDefinition; encoding: string } {
  const { encoding, ...rest } = checkedDefinition(SAVED_DEFINITION_SCHEMA, normaliseDefinition(saved), 'the load definition');
  return { definition: rest, encoding: encoding ?? 'utf-8' };
}

/**
 * The flat members of the StartLoad example request and their place in the nested form
 * (docs/service-interface.md §2.2: "an example request to StartLoad also shows a flat body form. Its
 * members are target_database, target_schema, target_table, field_separator and empty_target, used in
 * place of the nested members"). A service reads them too (the emulator does, over the nested ones), so
 * a saved definition is normalised before anything is decided from it.
 */
export const FLAT_DEFINITION_MEMBERS = {
  target_database: ['target', 'database'],
  target_schema: ['target', 'schema'],
  target_table: ['target', 'table'],
  field_separator: ['format', 'field_separator'],
  empty_target: ['load_options', 'empty_target'],
} as const satisfies Record<string, readonly [keyof LoadDefinition, string]>;

/** The members each nested part may hold, read from the schema (docs/service-interface.md §2.2); deeper parts are checked by the schema. */
const KNOWN_MEMBERS: Record<string, readonly string[]> = {
  '': [...Object.keys(SAVED_DEFINITION_SCHEMA.shape), '$schema', ...Object.keys(FLAT_DEFINITION_MEMBERS)],
  target: Object.keys(LOAD_DEFINITION_SCHEMA.shape.target.shape),
  format: Object.keys(LOAD_DEFINITION_SCHEMA.shape.format.unwrap().shape),
  load_options: Object.keys(LOAD_DEFINITION_SCHEMA.shape.load_options.unwrap().shape),
  advanced_options: Object.keys(LOAD_DEFINITION_SCHEMA.shape.advanced_options.unwrap().shape),
};

/** A load definition that TSQ will not use: two forms that disagree, an unknown member, another table than the one chosen, an unconfirmed replace. */
export class LoadDefinitionError extends Error {
  /** `invalid`: the file itself; `otherTable`: it names another table than the one chosen; `replace`: it empties the table and nobody confirmed. */
  constructor(
    readonly kind: 'invalid' | 'otherTable' | 'replace',
    message: string,
  ) {
    super(message);
    this.name = 'LoadDefinitionError';
  }
}

/**
 * A load definition in the nested form only: each flat member (`FLAT_DEFINITION_MEMBERS`) moved to its
 * nested place, `$schema` dropped. Pure; the input is not changed.
 * @throws LoadDefinitionError (`invalid`) when a flat member and its nested member both appear with
 * different values (e.g. `target.table` "cars" and `target_table` "stocks": the message names both), or a
 * member is not one of docs/service-interface.md §2.2 (a member TSQ does not know could mean anything to a
 * service, so it is never passed on).
 */
export function normaliseDefinition(raw: Record<string, unknown>, where = 'the load definition'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (k !== '$schema' && !(k in FLAT_DEFINITION_MEMBERS)) out[k] = v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : v;
  for (const [part, names] of Object.entries(KNOWN_MEMBERS)) {
    const o = part ? out[part] : raw;
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
    const unknown = Object.keys(o).filter((k) => !names.includes(k));
    if (unknown.length) throw new LoadDefinitionError('invalid', `${where}: ${unknown.map((k) => `"${part ? `${part}.` : ''}${k}"`).join(', ')} ${unknown.length === 1 ? 'is not a member' : 'are not members'} of a load definition (${part ? `${part} holds ${names.join(', ')}` : 'target, format, load_options, advanced_options'}); remove ${unknown.length === 1 ? 'it' : 'them'}.`);
  }
  for (const [flat, [part, member]] of Object.entries(FLAT_DEFINITION_MEMBERS)) {
    if (!(flat in raw)) continue;
    const value = raw[flat];
    const section = (out[part] && typeof out[part] === 'object' && !Array.isArray(out[part]) ? out[part] : {}) as Record<string, unknown>;
    const nested = section[member];
    const same = (a: unknown, b: unknown) => (typeof a === 'string' && typeof b === 'string' && part === 'target' ? a.toLowerCase() === b.toLowerCase() : a === b);
    if (nested !== undefined && !same(nested, value)) {
      if (part === 'target') {
        const texts = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) as unknown as LoadTarget;
        const nestedTarget = texts(section);
        const flatTarget = texts({ ...section, ...Object.fromEntries(Object.entries(FLAT_DEFINITION_MEMBERS).filter(([f, [p]]) => p === 'target' && f in raw).map(([f, [, m]]) => [m, raw[f]])) });
        throw new LoadDefinitionError('invalid', `${where} names two tables: ${targetText(nestedTarget)} (target) and ${targetText(flatTarget)} (${flat} ${JSON.stringify(value)} in place of target.${member} ${JSON.stringify(nested)}); keep one of them.`);
      }
      throw new LoadDefinitionError('invalid', `${where} names ${part}.${member} ${JSON.stringify(nested)} and ${flat} ${JSON.stringify(value)}, which disagree; keep one of them.`);
    }
    out[part] = { ...section, [member]: value };
  }
  return out;
}

/** Whether two load targets name the same table: names compared without case, as the service does; a schema left out matches any. */
export function sameTarget(a: LoadTarget, b: LoadTarget): boolean {
  return a.database.toLowerCase() === b.database.toLowerCase() && a.table.toLowerCase() === b.table.toLowerCase() && (!a.schema || !b.schema || a.schema.toLowerCase() === b.schema.toLowerCase());
}

/** What the person chose for a load, and how they say yes to a replace. */
export interface LoadChoice {
  /**
   * The table the person chose (`tsq load --table`, the quick pick, the `table` of `load_csv`); undefined
   * when they chose the saved definition itself (`tsq load FILE` with its `<file>.load.json`, Load CSV Again).
   */
  target?: LoadTarget;
  /**
   * true: the person asked for a replace (`--replace`, `"replace": true`, a confirmation already given):
   * the load empties the table. false or undefined: a definition that empties the table is refused.
   * `'ask'`: the caller asks the person when `GuardedLoad.empties` is true (VS Code's confirmation).
   */
  replace?: boolean | 'ask';
  /** What the definition is called in messages, e.g. `the saved definition cars.csv.load.json`. */
  source: string;
  /** How the person confirms a replace, for the refusal, e.g. `run again with --replace to confirm`. */
  confirm: string;
}

/** The outcome of `guardLoad`. */
export interface GuardedLoad {
  /** The definition to send: the nested members of docs/service-interface.md §2.2 only, `target` the chosen one, `load_options.empty_target` set. */
  definition: LoadDefinition;
  /** True when the load empties the target first (`load_options.empty_target`). */
  empties: boolean;
}

/**
 * THE definition guard of every front end (`tsq load`, `load_csv` of `tsq mcp`, Load CSV and Load CSV
 * Again in VS Code): decides from the one normalised form (`normaliseDefinition`) which table a load
 * writes and whether it empties it first.
 * - The target is the person's choice: a definition naming another table is refused, naming both.
 * - Emptying needs `choice.replace` (true, or `'ask'` and then the caller's confirmation).
 * @throws LoadDefinitionError `otherTable`, `replace`, or `invalid` (from `normaliseDefinition`).
 */
export function guardLoad(definition: LoadDefinition, choice: LoadChoice): GuardedLoad {
  const d = checkedDefinition(LOAD_DEFINITION_SCHEMA, normaliseDefinition(definition, choice.source), choice.source);
  if (choice.target && !sameTarget(d.target, choice.target)) {
    throw new LoadDefinitionError('otherTable', `${choice.source} loads into ${targetText(d.target)}, not into ${targetText(choice.target)}, the table you chose. TSQ loads only into the table you chose: fix the definition's target, or choose ${targetText(d.target)}.`);
  }
  const target = choice.target ?? d.target;
  const asked = d.load_options?.empty_target === true;
  if (asked && choice.replace !== true && choice.replace !== 'ask') {
    throw new LoadDefinitionError('replace', `${choice.source} empties ${targetText(target)} before loading (load_options.empty_target); ${choice.confirm}.`);
  }
  const empties = choice.replace === true || asked;
  return {
    definition: {
      target: { database: target.database, ...(target.schema ? { schema: target.schema } : {}), table: target.table },
      ...(d.format ? { format: d.format } : {}),
      load_options: { ...d.load_options, empty_target: empties },
      ...(d.advanced_options ? { advanced_options: d.advanced_options } : {}),
    },
    empties,
  };
}

/**
 * Reads the text of a `<file>.load.json`: its flat members moved to the nested form (`normaliseDefinition`),
 * then checked.
 * @throws Error saying what is wrong (not JSON, no target, a member of the wrong type, two forms that
 * disagree, an unknown member) — the file is left as it is.
 */
export function parseSavedDefinition(text: string, where = 'the load definition'): SavedLoadDefinition {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not valid JSON: ${messageOf(e)}`, { cause: e });
  }
  if (!isRecord(v)) throw new Error(`${where} must be a JSON object with target, format, load_options and advanced_options (see the load definition of the data-load API)`);
  return checkedDefinition(SAVED_DEFINITION_SCHEMA, normaliseDefinition(v, where), where);
}

/**
 * A normalised definition checked against `schema` (`LOAD_DEFINITION_SCHEMA`, or the saved form's), with the first problem said with its
 * member's path (`format.field_separator must be one character`, `load_options.empty_target must be a boolean`).
 * @throws LoadDefinitionError (`invalid`) naming the member
 */
function checkedDefinition<S extends z.ZodType>(schema: S, o: Record<string, unknown>, where: string): z.output<S> {
  const r = schema.safeParse(o);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.path[0] === 'target') throw new LoadDefinitionError('invalid', `${where} needs target.database and target.table (strings; target.schema optional)`);
  const path = issue.path.join('.');
  const kinds: Record<string, string> = { string: 'a string', boolean: 'a boolean', number: 'a number', object: 'an object' };
  if (issue.code === 'invalid_type' && kinds[issue.expected]) throw new LoadDefinitionError('invalid', `${where}: ${path} must be ${kinds[issue.expected]}`);
  if (issue.code === 'unrecognized_keys') throw new LoadDefinitionError('invalid', `${where}: ${issue.keys.map((k) => `"${path ? `${path}.` : ''}${k}"`).join(', ')} ${issue.keys.length === 1 ? 'is not a member' : 'are not members'} of a load definition; remove ${issue.keys.length === 1 ? 'it' : 'them'}.`);
  throw new LoadDefinitionError('invalid', `${where}: ${path} ${issue.message}`);
}
