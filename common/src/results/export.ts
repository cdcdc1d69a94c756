/**
 * Copy and export of answers, written from the rows as fetched (never from the grid's DOM), with
 * csv-stringify. No `vscode` here: the host wires the clipboard and the save dialog.
 *
 * - Export (CSV, JSON) writes the answer as the service sent it: one header row of `columnNames`,
 *   then the values unchanged (dates stay epoch seconds, field notes 1.2; null is an empty CSV field).
 *   JSON is an array of objects keyed by column name (the FULL format's shape, field notes 1.3, but
 *   keeping nulls).
 * - Copy (TSV, CSV, JSON) writes the cells as a person reads them (`copyText`: dates as dates).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { stringify } from 'csv-stringify/sync';
import { copyText } from './format';
import type { CellValue, ResultColumn } from './shape';
import type { CopyFormat } from './messages';

/** Text of copied cells: TSV and CSV with a header row, JSON an array of objects keyed by column name. */
export function copyAsText(format: CopyFormat, columns: readonly ResultColumn[], rows: readonly (readonly CellValue[])[]): string {
  if (format === 'json') {
    const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c.name, r[i] === undefined ? null : r[i]])));
    return JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2);
  }
  const records = [columns.map((c) => c.name), ...rows.map((r) => columns.map((c, i) => copyText(r[i], c)))];
  // a single cell copies as its bare text
  if (rows.length === 1 && columns.length === 1) return records[1][0];
  return stringify(records, { delimiter: format === 'tsv' ? '\t' : ',', record_delimiter: format === 'tsv' ? '\n' : '\r\n' });
}

/** One value as exported to CSV: unchanged; null as an empty field. */
function csvValue(v: CellValue | undefined): string | number | boolean {
  return v === null || v === undefined ? '' : v;
}

/**
 * Writes an answer to `file` as CSV (RFC 4180, CRLF, header row) or JSON, streaming page by page.
 * @param pages the pages as fetched (rows in `columnNames` order)
 * @returns the number of data rows written
 * @throws the file system's error (e.g. EACCES) — the file may then be partial
 */
export async function writeAnswer(file: string, format: 'csv' | 'json', columnNames: readonly string[], pages: readonly (readonly (readonly CellValue[])[])[]): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const closed = new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.once('finish', resolve);
  });
  const write = async (chunk: string): Promise<void> => {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), closed]);
  };
  let rows = 0;
  if (format === 'csv') {
    await write(stringify([columnNames as string[]], { record_delimiter: '\r\n' }));
    for (const page of pages) {
      if (page.length === 0) continue;
      await write(stringify(page.map((r) => columnNames.map((_, i) => csvValue(r[i]))), { record_delimiter: '\r\n', cast: { boolean: (b) => String(b) } }));
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
  out.end();
  await closed;
  return rows;
}
