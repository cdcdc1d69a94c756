/**
 * Copy and export of answers, from the rows as fetched (never the grid's DOM), with csv-stringify. No
 * `vscode`: the host wires the clipboard and the save dialog.
 * - Export (CSV, JSON) writes the answer as the service sent it: a header of `columnNames`, values
 *   unchanged (dates as epoch seconds, docs/service-notes.md §1.2; null an empty CSV field); JSON as
 *   objects keyed by column name (the FULL shape, §1.3, keeping nulls).
 * - Copy (TSV, CSV, JSON) writes the cells as a person reads them (`copyText`).
 * - CSV export and TSV/CSV copy neutralise spreadsheet formulas (`neutralizeFormula`,
 *   https://owasp.org/www-community/attacks/CSV_Injection): a text cell or name starting with `=`, `+`,
 *   `-`, `@`, tab or CR gets a leading `'`; `tsq.results.csvInjectionProtection: false` turns it off.
 */
import { once } from 'node:events';
import { stringify } from 'csv-stringify/sync';
import { cutToBytes, NAME_MAX_BYTES, openSafeWriteStream, safeFileName } from '../safeWrite';
import { copyText } from './format';
import type { CellValue, ResultColumn } from './shape';
import type { CopyFormat } from './messages';

/** Options of CSV and TSV output. */
export interface CsvOptions {
  /** Neutralise cells that a spreadsheet would run as a formula (default true; see the module comment). */
  csvInjectionProtection?: boolean;
}

/** Characters that make a spreadsheet read a cell as a formula (OWASP CSV injection): = + - @ tab CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** `text` with a leading `'` when it starts with = + - @ tab or CR (OWASP CSV injection), else unchanged. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** Text of copied cells: TSV and CSV with a header row, JSON an array of objects keyed by column name. */
export function copyAsText(format: CopyFormat, columns: readonly ResultColumn[], rows: readonly (readonly CellValue[])[], options: CsvOptions = {}): string {
  if (format === 'json') {
    const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c.name, r[i] === undefined ? null : r[i]])));
    return JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2);
  }
  const protect = options.csvInjectionProtection !== false;
  // only text values are neutralised: a number such as -2 shows as a number (its formatted text may start with -)
  const cell = (v: CellValue | undefined, col: ResultColumn): string => (protect && typeof v === 'string' ? neutralizeFormula(copyText(v, col)) : copyText(v, col));
  const records = [columns.map((c) => (protect ? neutralizeFormula(c.name) : c.name)), ...rows.map((r) => columns.map((c, i) => cell(r[i], c)))];
  // a single cell copies as its bare text
  if (rows.length === 1 && columns.length === 1) return records[1][0];
  return stringify(records, { delimiter: format === 'tsv' ? '\t' : ',', record_delimiter: format === 'tsv' ? '\n' : '\r\n' });
}

/**
 * The file name an export offers: `<data source> <YYYY-MM-DD HHmm>.<format>` in local time (the time the
 * person sees on their clock), e.g. `Flights 2026-12-01 2115.csv`; the data source's name made a file
 * name by `safeFileName` (common/src/safeWrite.ts), `answer` when it is empty, and cut so that the whole
 * name is at most NAME_MAX_BYTES of UTF-8.
 * @param source the data source's name (or, for a pinboard's visualization, its name)
 * @param at the time of the export
 */
export function exportFileName(source: string, at: Date, format: 'csv' | 'json'): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  const ending = ` ${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}${two(at.getMinutes())}.${format}`;
  return cutToBytes(safeFileName(source.trim() || 'answer'), NAME_MAX_BYTES - Buffer.byteLength(ending)) + ending;
}

/** One value as exported to CSV: unchanged (text neutralised when `protect`); null as an empty field. */
function csvValue(v: CellValue | undefined, protect: boolean): string | number | boolean {
  if (v === null || v === undefined) return '';
  return protect && typeof v === 'string' ? neutralizeFormula(v) : v;
}

/**
 * Writes an answer to `file` as CSV (RFC 4180, CRLF, header row) or JSON, streaming page by page, whole
 * and never through a link (common/src/safeWrite.ts: an exclusive temporary file renamed over `file`).
 * @param pages the pages as fetched (rows in `columnNames` order)
 * @param options CSV only: formula neutralisation (default on, see the module comment)
 * @returns the number of data rows written
 * @throws the file system's error (e.g. EACCES); `file` is unchanged then and no temporary file is left
 */
export async function writeAnswer(file: string, format: 'csv' | 'json', columnNames: readonly string[], pages: Iterable<readonly (readonly CellValue[])[]>, options: CsvOptions = {}): Promise<number> {
  const protect = options.csvInjectionProtection !== false;
  const target = await openSafeWriteStream(file, { encoding: 'utf8' });
  const out = target.stream;
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = async (chunk: string): Promise<void> => {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  };
  let rows = 0;
  try {
    if (format === 'csv') {
      await write(stringify([columnNames.map((n) => (protect ? neutralizeFormula(n) : n))], { record_delimiter: '\r\n' }));
      for (const page of pages) {
        if (page.length === 0) continue;
        await write(stringify(page.map((r) => columnNames.map((_, i) => csvValue(r[i], protect))), { record_delimiter: '\r\n', cast: { boolean: (b) => String(b) } }));
        rows += page.length;
      }
    } else {
      await write('[');
      for (const page of pages) {
        const parts: string[] = [];
        for (const r of page) parts.push((rows++ === 0 ? '\n' : ',\n') + JSON.stringify(Object.fromEntries(columnNames.map((n, i) => [n, r[i] === undefined ? null : r[i]]))));
        if (parts.length) await write(parts.join(''));
      }
      await write(rows ? '\n]\n' : ']\n');
    }
  } catch (e) {
    await target.abort();
    throw e;
  }
  await target.commit();
  return rows;
}
