/**
 * Sniffing a CSV file into the `format` of a load definition (docs/service-interface.md §2.2): encoding and byte-order mark
 * (chardet), field separator (papaparse's delimiter guessing), enclosing character, header row, null
 * marker, trailing separator, and the date, date-time, time and boolean formats of the values — from a
 * sample of the file's first bytes. The sample's rows are split for the preview by the same rules the
 * chunker and the service use (`recordBoundary.ts`).
 *
 * Pure: no `vscode`, no I/O (the caller reads the sample).
 */
import chardet from 'chardet';
import Papa from 'papaparse';
import { isFamily, type ColumnDataType } from '../model';

/** A calendar date type (DATE, DATE_TIME); false for no type. */
const isCalendar = (t: ColumnDataType | undefined): boolean => t !== undefined && isFamily(t, 'date');
import { boundaryFormat, RecordBoundaryScanner, splitText } from './recordBoundary';
import { sequenceLength } from './utf8';
import { defaultFormat, strptimeRegExp, type FullFormat } from './values';
import { messageOf } from '../guards';

/** A column of the load's target table, in table order. */
export interface TargetColumn {
  name: string;
  dataType: ColumnDataType;
}

/** Options of `sniffCsv`. */
export interface SniffOptions {
  /** The file's name (a `.tsv` file prefers the tab as separator). */
  fileName?: string;
  /** True when the sample is the whole file (its last record need not end with a newline). */
  complete?: boolean;
  /** The target's columns: they make the header row and the date/boolean columns easier to tell. */
  targetColumns?: TargetColumn[];
  /** Most rows to parse for the preview (default 20). */
  previewRows?: number;
}

/** What sniffing found. */
export interface SniffResult {
  /** A WHATWG encoding label, e.g. `utf-8`, `windows-1252`, `shift_jis`. */
  encoding: string;
  /** True when the file starts with a UTF-8 byte-order mark (it is not uploaded). */
  bom: boolean;
  /** The sniffed format, every member present. */
  format: FullFormat;
  /** The header row's names when `format.has_header_row`. */
  header?: string[];
  /** The first data rows of the sample (null for a null field). */
  rows: (string | null)[][];
  /** How each guess was made, for the log and the summary. */
  notes: string[];
  /** Why this encoding, in a sentence (for the summary). */
  encodingReason: string;
  /** What a person must know before loading (bytes that are not UTF-8 in the sample…); empty when nothing. */
  warnings: string[];
}

/** Encodings the load pipeline cannot cut at record boundaries byte-wise (not ASCII-compatible). */
const UNSUPPORTED_ENCODING = /^utf-?(16|32)/i;

/** What `detectEncoding` found. */
export interface EncodingGuess {
  /** A WHATWG encoding label. */
  encoding: string;
  bom: boolean;
  /** Why this encoding, in a sentence. */
  reason: string;
  /** Set when the sample holds bytes that are not UTF-8: what that means for the load. */
  warning?: string;
}

/**
 * The encoding of a sample: the byte-order mark when there is one; else UTF-8 when the sample is valid
 * UTF-8; else, when the sample holds at least as many valid multi-byte UTF-8 sequences as bytes that are
 * not UTF-8, still UTF-8 with a warning (a few broken bytes in a UTF-8 file: their records will be bad
 * records); else chardet's best guess that `TextDecoder` knows (fallback `windows-1252`), with a
 * warning naming the first byte that is not UTF-8. Never decides silently: `reason` says why.
 */
export function detectEncoding(sample: Buffer, complete = false): EncodingGuess {
  if (sample.length >= 3 && sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return { encoding: 'utf-8', bom: true, reason: 'the file starts with a UTF-8 byte-order mark' };
  if (sample.length >= 2 && sample[0] === 0xff && sample[1] === 0xfe) return { encoding: 'utf-16le', bom: true, reason: 'the file starts with a UTF-16LE byte-order mark' };
  if (sample.length >= 2 && sample[0] === 0xfe && sample[1] === 0xff) return { encoding: 'utf-16be', bom: true, reason: 'the file starts with a UTF-16BE byte-order mark' };
  let valid = 0;
  let invalid = 0;
  let first = -1;
  for (let i = 0; i < sample.length; ) {
    if (sample[i]! < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(sample, i);
    if (n > 0) {
      valid++;
      i += n;
    } else if (!complete && sample[i]! >= 0xc2 && sample[i]! <= 0xf4 && i + (sample[i]! >= 0xf0 ? 4 : sample[i]! >= 0xe0 ? 3 : 2) > sample.length) {
      break; // a sequence cut by the end of the sample
    } else {
      invalid++;
      if (first < 0) first = i;
      i++;
    }
  }
  if (invalid === 0) return { encoding: 'utf-8', bom: false, reason: valid ? `the sample is valid UTF-8 (${valid} multi-byte characters)` : 'the sample is plain ASCII, read as UTF-8' };
  const where = `byte 0x${sample[first]!.toString(16).toUpperCase()} at offset ${first}`;
  if (valid >= invalid) {
    return {
      encoding: 'utf-8',
      bom: false,
      reason: `the sample is UTF-8 (${valid} multi-byte characters) with ${invalid} byte${invalid === 1 ? '' : 's'} that are not`,
      warning: `${invalid} byte${invalid === 1 ? '' : 's'} of the sample ${invalid === 1 ? 'is' : 'are'} not UTF-8 (first: ${where}): loaded as UTF-8, their records will be refused as bad records. If the file is in another encoding, pick it instead.`,
    };
  }
  let encoding = 'windows-1252';
  let by = 'fallback';
  const guess = chardet.detect(sample);
  if (guess) {
    try {
      // ISO-8859-1 is decoded as windows-1252 by every browser and by Node
      encoding = new TextDecoder(guess).encoding;
      by = `chardet's guess (${guess})`;
    } catch {
      // a name TextDecoder does not know
    }
  }
  return {
    encoding,
    bom: false,
    reason: `${invalid} byte${invalid === 1 ? '' : 's'} of the sample ${invalid === 1 ? 'is' : 'are'} not UTF-8 (first: ${where})${valid ? ` and only ${valid} are UTF-8 characters` : ''}; ${encoding} is ${by}`,
    warning: `The file is not UTF-8 (first: ${where}), so it is read as ${encoding} (${by}). Check the preview's accented letters; pick another encoding if they look wrong.`,
  };
}

/** True when the pipeline can load a file of this encoding (ASCII-compatible: newlines and quotes are single bytes). */
export function isSupportedEncoding(encoding: string): boolean {
  return !UNSUPPORTED_ENCODING.test(encoding);
}

/** The sample cut after its last complete record (so a record cut by the sample's end is left out), by the record rules of `format`. */
export function completeRecords(sample: Buffer, format: FullFormat, complete: boolean): Buffer {
  if (complete) return sample;
  const scanner = new RecordBoundaryScanner(boundaryFormat(format));
  let last = 0;
  for (let pos = 0; ; ) {
    const end = scanner.scanBytes(sample, pos);
    if (end < 0) break;
    last = end;
    pos = end;
  }
  // a lone CR at the very end may be the first half of a CRLF: leave its record out too
  return sample.subarray(0, last);
}

/**
 * Parses text in a format into rows of fields by the rules the chunker and the service share
 * (`recordBoundary.ts`): null for a null field (an unenclosed empty field in `csv`, a field equal to
 * `null_value` in `delimited`). Blank lines are skipped; a trailing separator is dropped when
 * `trailing_field_separator`. At most `limit` rows.
 * @throws Error naming the line of the first malformed record (an enclosed field never closed, text after a closing enclosing character).
 */
export function parseRows(text: string, format: FullFormat, limit = Infinity): (string | null)[][] {
  const records = splitText(text, { ...boundaryFormat(format), nullValue: format.null_value, trailingFieldSeparator: format.trailing_field_separator }, limit);
  const bad = records.find((r) => r.error);
  if (bad) throw new Error(`line ${bad.line}: ${bad.error}`);
  return records.map((r) => r.fields);
}

const SEPARATORS = [',', '\t', '|', ';', '\u001f'];
const NULL_MARKERS = ['\\N', 'NULL', 'null', '(null)'];
const DATE_FORMATS = ['%Y-%m-%d', '%Y/%m/%d', '%m/%d/%Y', '%d/%m/%Y', '%d.%m.%Y', '%b %d %Y', '%d %b %Y', '%Y%m%d'];
const DATE_TIME_FORMATS = [
  '%Y-%m-%d %H:%M:%S',
  '%Y-%m-%dT%H:%M:%S',
  '%Y-%m-%dT%H:%M:%S%z',
  '%Y-%m-%d %H:%M',
  '%Y-%m-%dT%H:%M',
  '%Y/%m/%d %H:%M:%S',
  '%Y/%m/%d %H:%M',
  '%m/%d/%Y %H:%M:%S',
  '%m/%d/%Y %H:%M',
  '%m/%d/%Y %I:%M:%S %p',
  '%m/%d/%Y %I:%M %p',
  '%d/%m/%Y %H:%M:%S',
  '%d.%m.%Y %H:%M:%S',
  '%Y%m%d %H:%M:%S',
];
const TIME_FORMATS = ['%H:%M:%S', '%H:%M', '%I:%M:%S %p', '%I:%M %p'];
const BOOLEAN_PAIRS: [string, string][] = [
  ['T', 'F'],
  ['true', 'false'],
  ['yes', 'no'],
  ['Y', 'N'],
  ['1', '0'],
];
const INT = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Sniffs a sample of a CSV file (its first bytes; `complete` when it is the whole file).
 * Never throws: what cannot be guessed keeps the default of docs/service-interface.md §2.2, and a note says so.
 */
export function sniffCsv(sample: Buffer, opts: SniffOptions = {}): SniffResult {
  const notes: string[] = [];
  const format = defaultFormat();
  const { encoding, bom, reason, warning } = detectEncoding(sample, !!opts.complete);
  const warnings = warning ? [warning] : [];
  notes.push(`encoding ${encoding}: ${reason}`);
  if (!isSupportedEncoding(encoding)) {
    notes.push(`${encoding} files cannot be loaded: save the file as UTF-8`);
    return { encoding, bom, format, rows: [], notes, encodingReason: reason, warnings };
  }
  const body = bom ? sample.subarray(3) : sample;
  const decode = (b: Buffer) => new TextDecoder(encoding).decode(b);

  // separator: papaparse guesses among the usual ones; a .tsv file prefers the tab
  const rough = decode(completeRecords(body, format, !!opts.complete)).slice(0, 256 * 1024);
  const guessed = Papa.parse<string[]>(rough, { delimitersToGuess: SEPARATORS, preview: 100, skipEmptyLines: true });
  let sep = guessed.meta.delimiter || ',';
  if (/\.tsv$/i.test(opts.fileName ?? '') && rough.includes('\t')) sep = '\t';
  format.field_separator = sep;
  notes.push(`separator ${describeSeparator(sep)}`);

  // enclosing character: " unless the fields are enclosed in ' and never in "
  const sepRe = escapeRe(sep);
  const enclosedBy = (q: string) => new RegExp(`(^|${sepRe})${escapeRe(q)}`, 'm').test(rough);
  if (!enclosedBy('"') && enclosedBy("'") && new RegExp(`'(${sepRe}|$)`, 'm').test(rough)) format.enclosing_character = "'";
  const enclosed = enclosedBy(format.enclosing_character);

  const text = decode(completeRecords(body, format, !!opts.complete));
  let rows: (string | null)[][];
  try {
    rows = parseRows(text, format, (opts.previewRows ?? 20) + 200);
  } catch (e) {
    notes.push(`the sample does not parse as csv: ${messageOf(e)}`);
    rows = [];
  }

  // null marker: a whole field of \N, NULL or (null) makes it the delimited format's null_value, when nothing is enclosed
  const counts = new Map<string, number>();
  for (const r of rows) for (const v of r) if (v !== null && NULL_MARKERS.includes(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
  const marker = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (marker !== undefined) {
    if (!enclosed) {
      format.type = 'delimited';
      format.null_value = marker;
      format.escape_character = '';
      notes.push(`null marker ${marker} (format delimited, nothing is enclosed)`);
      rows = parseRows(text, format, (opts.previewRows ?? 20) + 200);
    } else notes.push(`${marker} fields will load as text: the csv format has no null marker, and fields are enclosed`);
  } else if (format.type === 'csv') notes.push('empty fields are nulls (csv)');

  // trailing separator: every row ends with an empty field
  if (rows.length && rows.every((r) => r.length > 1 && (r[r.length - 1] === null || r[r.length - 1] === ''))) {
    format.trailing_field_separator = true;
    for (const r of rows) r.pop();
    notes.push('rows end with a separator');
  }

  // header row
  const header = detectHeader(rows, opts.targetColumns);
  format.has_header_row = header;
  notes.push(header ? 'the first row is a header' : 'no header row');
  const dataRows = header ? rows.slice(1) : rows;

  sniffValueFormats(dataRows, format, notes, opts.targetColumns);

  return {
    encoding,
    bom,
    format,
    ...(header && rows[0] ? { header: rows[0].map((v) => v ?? '') } : {}),
    rows: dataRows.slice(0, opts.previewRows ?? 20),
    notes,
    encodingReason: reason,
    warnings,
  };
}

/** Whether the first row is a header: it names the target's columns, or it is text above typed columns. */
function detectHeader(rows: (string | null)[][], target?: TargetColumn[]): boolean {
  if (rows.length === 0) return false;
  const first = rows[0];
  if (first.some((v) => v === null || v.trim() === '')) return false;
  if (target?.length) {
    const names = new Set(target.map((c) => c.name.trim().toLowerCase()));
    const hits = first.filter((v) => names.has(v!.trim().toLowerCase())).length;
    if (hits >= Math.max(1, Math.ceil(Math.min(names.size, first.length) / 2))) return true;
  }
  if (first.some((v) => NUMBER.test(v!.trim()))) return false;
  const rest = rows.slice(1, 101);
  if (rest.length === 0) return false;
  // a column whose values are numbers, dates or booleans under a text cell
  for (let c = 0; c < first.length; c++) {
    const values = rest.map((r) => r[c]).filter((v): v is string => v !== null && v !== undefined && v.trim() !== '');
    if (values.length === 0) continue;
    if (values.every((v) => NUMBER.test(v.trim()))) return true;
    const fmt = [...DATE_FORMATS, ...DATE_TIME_FORMATS].find((f) => values.every((v) => strptimeRegExp(f).test(v.trim())));
    if (fmt && !strptimeRegExp(fmt).test(first[c]!.trim())) return true;
  }
  // text columns: a header cell is unlike every value under it
  const distinct = new Set(first.map((v) => v!.toLowerCase())).size === first.length;
  const unseen = first.every((v, c) => rest.every((r) => r[c] !== v));
  return distinct && unseen && rest.length >= 2;
}

/** Finds date, date-time, time and boolean formats in the data rows and writes them into `format`. */
function sniffValueFormats(rows: (string | null)[][], format: FullFormat, notes: string[], target?: TargetColumn[]): void {
  const width = Math.max(0, ...rows.map((r) => r.length));
  const votes = { date: new Map<string, number>(), dateTime: new Map<string, number>(), time: new Map<string, number>() };
  let epoch = 0;
  const bools = new Map<string, number>();
  for (let c = 0; c < width; c++) {
    const values = rows.map((r) => r[c]).filter((v): v is string => v !== null && v !== undefined && v.trim() !== '' && v !== format.null_value).map((v) => v.trim());
    if (values.length === 0) continue;
    const type = target?.[c]?.dataType;
    const allInts = values.every((v) => INT.test(v));
    if (isCalendar(type) && allInts) {
      epoch++;
      continue;
    }
    // a format fits a column when it matches at least 80% of its values (a few bad values must not hide it)
    const tryFormats = (list: string[], kind: keyof typeof votes): boolean => {
      let f: string | undefined;
      let bestHits = 0;
      for (const x of list) {
        const re = strptimeRegExp(x);
        const hits = values.filter((v) => re.test(v)).length;
        if (hits > bestHits) [f, bestHits] = [x, hits];
      }
      if (!f || bestHits < Math.ceil(values.length * 0.8)) return false;
      votes[kind].set(f, (votes[kind].get(f) ?? 0) + 1);
      return true;
    };
    if (type === undefined || isCalendar(type) || type === 'TIME') {
      // digits-only formats (%Y%m%d) only for a column the target says is a date
      const dateList = isCalendar(type) ? DATE_FORMATS : DATE_FORMATS.filter((f) => f !== '%Y%m%d');
      const dtList = isCalendar(type) ? DATE_TIME_FORMATS : DATE_TIME_FORMATS.filter((f) => f !== '%Y%m%d %H:%M:%S');
      if (type !== 'TIME' && !allInts && (tryFormats(dtList, 'dateTime') || tryFormats(dateList, 'date'))) continue;
      if ((type === undefined || type === 'TIME') && tryFormats(TIME_FORMATS, 'time')) continue;
      if (isCalendar(type) || type === 'TIME') continue;
    }
    if (type === undefined || type === 'BOOL') {
      const distinct = new Set(values.map((v) => v.toLowerCase()));
      if (distinct.size > 2) continue;
      if (type === 'BOOL' && [...distinct].every((v) => v === '0x0' || v === '0x1')) {
        format.boolean.use_bit_values = true;
        continue;
      }
      const pair = BOOLEAN_PAIRS.find(([t, f]) => (type === 'BOOL' || t !== '1') && [...distinct].every((v) => v === t.toLowerCase() || v === f.toLowerCase()));
      if (pair) {
        // keep the file's own spelling of the pair
        const spelled = (w: string) => values.find((v) => v.toLowerCase() === w.toLowerCase()) ?? w;
        const key = `${spelled(pair[0])}\u0000${spelled(pair[1])}`;
        bools.set(key, (bools.get(key) ?? 0) + 1);
      }
    }
  }
  const best = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1])[0]?.[0];
  const date = best(votes.date);
  const dateTime = best(votes.dateTime);
  const time = best(votes.time);
  if (date) format.date_time.date_format = date;
  if (dateTime) format.date_time.date_time_format = dateTime;
  if (time) format.date_time.time_format = time;
  if (date || dateTime) {
    format.date_time.converted_to_epoch = false;
    notes.push(`dates ${[date, dateTime].filter(Boolean).join(', ')}`);
  } else if (epoch) {
    // the service's default is false (docs/service-interface.md §2.2), so epoch dates are said so explicitly
    format.date_time.converted_to_epoch = true;
    notes.push('dates are epoch seconds');
  }
  if (time) notes.push(`times ${time}`);
  if (votes.date.size > 1 || votes.dateTime.size > 1) notes.push('columns use different date formats: only one can be set, the others will be refused');
  const b = best(bools);
  if (b) {
    const [t, f] = b.split('\u0000');
    format.boolean.true_format = t;
    format.boolean.false_format = f;
    notes.push(`booleans ${t}/${f}`);
  } else if (format.boolean.use_bit_values) notes.push('booleans are bit values');
}

/** A separator for a person: `,`, `tab`, `|`, … */
export function describeSeparator(sep: string): string {
  return { '\t': 'tab', '\u001f': 'unit separator (0x1F)', ' ': 'space' }[sep] ?? sep;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
