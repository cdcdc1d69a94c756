/**
 * The load definition, the body of StartLoad (docs/service-interface.md §2.2): its nested form
 * `{ target, format, load_options, advanced_options }` and the flat form of the documented example request
 * (`target_database`, `target_schema`, `target_table`, `field_separator`, `empty_target`). Both are
 * read into one `LoadDefinition` with every default of docs/service-interface.md §2.2 applied.
 */
import { compileStrptime, type ConvertOptions } from './convert';
import type { RecordFormat } from './records';
import { messageOf } from '../../../common/src/guards';

/** A load definition with the defaults of docs/service-interface.md §2.2 applied. */
export interface LoadDefinition {
  target: { database: string; schema?: string; table: string };
  format: RecordFormat & ConvertOptions & { hasHeaderRow: boolean; flexible: boolean };
  loadOptions: { emptyTarget: boolean; maxIgnoredRows: number };
  advancedOptions: { maxReportedParsingErrors: number };
}

/** Thrown for a load definition that cannot be used; `detail` names the member and the problem. */
export class InvalidLoadDefinition extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Obj, key: string, path: string, dflt: string): string;
function str(o: Obj, key: string, path: string, dflt?: string): string | undefined;
function str(o: Obj, key: string, path: string, dflt?: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'string') throw new InvalidLoadDefinition(`${path}${key} must be a string`);
  return v;
}

/** A boolean; form bodies send `"true"`/`"false"`. */
function bool(o: Obj, key: string, path: string, dflt: boolean): boolean {
  const v = o[key];
  if (v === undefined || v === null || v === '') return dflt;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw new InvalidLoadDefinition(`${path}${key} must be true or false`);
}

/** A non-negative integer; form bodies send digits. */
function count(o: Obj, key: string, path: string, dflt: number): number {
  const v = o[key];
  if (v === undefined || v === null || v === '') return dflt;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidLoadDefinition(`${path}${key} must be an integer of 0 or more`);
  return n;
}

function section(o: Obj, key: string): Obj {
  const v = o[key];
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new InvalidLoadDefinition(`${key} must be an object`);
  return v;
}

function oneChar(v: string, path: string, allowEmpty: boolean): string {
  if (v.length === 1 || (allowEmpty && v === '')) return v;
  throw new InvalidLoadDefinition(`${path} must be ${allowEmpty ? 'empty or ' : ''}one character, not '${v}'`);
}

/**
 * Reads a StartLoad body (already parsed from JSON or a form) into a `LoadDefinition`.
 * Throws `InvalidLoadDefinition` when the body is not an object, the target's database or table is
 * missing, a member has the wrong type, the format type is neither csv nor delimited, a separator,
 * enclosing or escape character is not one character, the separator equals the enclosing character,
 * or a date/time format has an unknown strptime directive.
 */
export function parseLoadDefinition(body: unknown): LoadDefinition {
  if (!isObj(body)) throw new InvalidLoadDefinition('the body must be a JSON object (the load definition)');
  const target = section(body, 'target');
  const format = section(body, 'format');
  const dateTime = section(format, 'date_time');
  const boolean = section(format, 'boolean');
  const loadOptions = section(body, 'load_options');
  const advanced = section(body, 'advanced_options');

  const database = str(body, 'target_database', '') ?? str(target, 'database', 'target.');
  const schema = str(body, 'target_schema', '') ?? str(target, 'schema', 'target.');
  const table = str(body, 'target_table', '') ?? str(target, 'table', 'target.');
  if (!database) throw new InvalidLoadDefinition('target.database is required');
  if (!table) throw new InvalidLoadDefinition('target.table is required');

  const typeText = (str(format, 'type', 'format.') ?? 'csv').toLowerCase();
  if (typeText !== 'csv' && typeText !== 'delimited') throw new InvalidLoadDefinition(`format.type must be csv or delimited, not '${typeText}'`);
  const type = typeText as 'csv' | 'delimited';
  const fieldSeparator = oneChar(str(body, 'field_separator', '') ?? str(format, 'field_separator', 'format.', ','), 'format.field_separator', false);
  const enclosingCharacter = oneChar(str(format, 'enclosing_character', 'format.', '"'), 'format.enclosing_character', true);
  const escapeCharacter = oneChar(str(format, 'escape_character', 'format.', ''), 'format.escape_character', true);
  if (type === 'csv' && enclosingCharacter === fieldSeparator) throw new InvalidLoadDefinition('format.enclosing_character must differ from format.field_separator');
  if (type === 'delimited' && escapeCharacter === fieldSeparator) throw new InvalidLoadDefinition('format.escape_character must differ from format.field_separator');
  if (fieldSeparator === '\n' || fieldSeparator === '\r') throw new InvalidLoadDefinition('format.field_separator cannot be a line break');

  const def: LoadDefinition = {
    target: { database, ...(schema ? { schema } : {}), table },
    format: {
      type,
      fieldSeparator,
      trailingFieldSeparator: bool(format, 'trailing_field_separator', 'format.', false),
      enclosingCharacter,
      escapeCharacter,
      nullValue: str(format, 'null_value', 'format.', '(null)'),
      hasHeaderRow: bool(format, 'has_header_row', 'format.', false),
      flexible: bool(format, 'flexible', 'format.', false),
      convertedToEpoch: bool(dateTime, 'converted_to_epoch', 'format.date_time.', false),
      dateTimeFormat: str(dateTime, 'date_time_format', 'format.date_time.', '%Y%m%d %H:%M:%S'),
      dateFormat: str(dateTime, 'date_format', 'format.date_time.', '%Y%m%d'),
      timeFormat: str(dateTime, 'time_format', 'format.date_time.', '%H:%M:%S'),
      skipSecondFraction: bool(dateTime, 'skip_second_fraction', 'format.date_time.', false),
      useBitValues: bool(boolean, 'use_bit_values', 'format.boolean.', false),
      trueFormat: str(boolean, 'true_format', 'format.boolean.', 'T'),
      falseFormat: str(boolean, 'false_format', 'format.boolean.', 'F'),
    },
    loadOptions: {
      emptyTarget: bool(body, 'empty_target', '', bool(loadOptions, 'empty_target', 'load_options.', false)),
      maxIgnoredRows: count(loadOptions, 'max_ignored_rows', 'load_options.', 0),
    },
    advancedOptions: { maxReportedParsingErrors: count(advanced, 'max_reported_parsing_errors', 'advanced_options.', 100) },
  };
  for (const [key, f] of [
    ['date_time_format', def.format.dateTimeFormat],
    ['date_format', def.format.dateFormat],
    ['time_format', def.format.timeFormat],
  ] as const) {
    try {
      compileStrptime(f);
    } catch (e) {
      throw new InvalidLoadDefinition(`format.date_time.${key}: ${messageOf(e)}`);
    }
  }
  if (def.format.trueFormat.trim().toLowerCase() === def.format.falseFormat.trim().toLowerCase()) {
    throw new InvalidLoadDefinition('format.boolean.true_format and false_format must differ');
  }
  return def;
}
