/**
 * `tsq query FILE.tsq`: runs the file's queries, each against the data source its `@datasource` line
 * names (or `--datasource`, or the connection file's `defaultDataSource`), streams every page of the
 * answer (searchdata with `pagenumber` 1, 2, …; docs/service-notes.md §1.4) and writes it as CSV, JSON or
 * a text table, to stdout or `--out`.
 *
 * CSV and JSON carry the values as the service sent them, like the extension's export
 * (common/src/results/export.ts): dates are epoch seconds, null is an empty CSV field. The table shows
 * them as the results grid does (common/src/results/format.ts).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalyticsServiceClient, CellValue } from '../../common/src/api';
import type { DocumentQuery } from '../../common/src/protocol';
import { describeColumns } from '../../common/src/results/shape';
import { formatCell, isNumericColumn } from '../../common/src/results/format';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { ServiceCatalog } from '../../common/src/catalog';
import { RefusedError, UsageError } from './exitCodes';
import { info, textTable, write } from './output';
import { terminalSafe } from '../../common/src/terminalText';
import { openSafeWriteStream, type SafeWriteStream } from '../../common/src/safeWrite';
import { choices } from './optionValues';
import { messageOf } from '../../common/src/guards';

/** The `--format` choices of `tsq query`. */
export const QUERY_FORMATS = choices('csv', 'json', 'table');

/** Options of `tsq query`. */
export interface QueryOptions {
  /** 1-based number of the one query to run. */
  query?: number;
  all?: boolean;
  format: (typeof QUERY_FORMATS)[number];
  out?: string;
  /** Data source of queries with no `@datasource`. */
  datasource?: string;
  /** Rows per searchdata page. */
  pageSize: number;
  signal: AbortSignal;
}

/** Reads a `.tsq` file as a TextDocument. @throws UsageError when it cannot be read. */
export async function readDocument(file: string): Promise<TextDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${file} cannot be read: ${messageOf(e)}`);
  }
  return TextDocument.create(pathToFileURL(resolve(file)).toString(), 'tsq', 1, text);
}

/** The queries of a file chosen by `--query N` (1-based) or all of them. */
export function selectQueries(queries: DocumentQuery[], file: string, n: number | undefined): { query: DocumentQuery; number: number }[] {
  if (queries.length === 0) throw new UsageError(`${file} holds no query.`);
  const numbered = queries.map((query, i) => ({ query, number: i + 1 }));
  if (n === undefined) return numbered;
  if (!Number.isInteger(n) || n < 1 || n > queries.length) throw new UsageError(`--query ${n}: ${file} holds ${queries.length} ${queries.length === 1 ? 'query' : 'queries'}; give a number from 1 to ${queries.length}.`);
  return [numbered[n - 1]];
}

/**
 * Runs `tsq query`. Returns the number of rows written. With `--out` the answer is written whole
 * (common/src/safeWrite.ts: a temporary file renamed over the target, no link followed): a run that
 * fails or is interrupted leaves the file as it was.
 */
export async function runQueryCommand(client: AnalyticsServiceClient, file: string, opts: QueryOptions): Promise<number> {
  const document = await readDocument(file);
  const queries = getLanguageService().getQueries(document, { defaultDataSource: opts.datasource });
  const chosen = selectQueries(queries, file, opts.query);
  // a failure rejects with the service's error, which the command reports
  const catalog = new ServiceCatalog(client, { holdOff: false });
  const target: SafeWriteStream | undefined = opts.out ? await openSafeWriteStream(opts.out, { encoding: 'utf8' }) : undefined;
  const out: Writable = target?.stream ?? process.stdout;
  try {
    const total = await writeQueries(client, catalog, file, chosen, out, opts);
    await target?.commit();
    return total;
  } catch (e) {
    await target?.abort();
    throw e;
  }
}

/** The answers of the `chosen` queries of `file` in `opts.format`, written to `out`; the number of rows. */
async function writeQueries(client: AnalyticsServiceClient, catalog: ServiceCatalog, file: string, chosen: { query: DocumentQuery; number: number }[], out: Writable, opts: QueryOptions): Promise<number> {
  const several = chosen.length > 1;
  let total = 0;
  if (opts.format === 'json' && several) await write(out, '[');
  for (const [i, { query, number }] of chosen.entries()) {
    const where = `${file}:${query.range.start.line + 1}`;
    if (!query.dataSource) throw new UsageError(`${where}: query ${number} has no data source: add a line @datasource 'name' above it, or give --datasource.`);
    const ds = await catalog.resolve(query.dataSource);
    if (ds === null) throw new RefusedError(`${where}: there is no data source "${query.dataSource}" on the service (or this user may not see it). \`tsq objects\` lists them.`);
    info(`query ${number} on ${ds.name}: ${query.text.replace(/\s+/g, ' ')}`);
    let columnNames: string[] | undefined;
    const tableRows: CellValue[][] = [];
    let rows = 0;
    let firstJson = true;
    if (opts.format === 'json' && several) await write(out, `${i ? ',' : ''}\n{"query":${JSON.stringify(query.text)},"dataSource":${JSON.stringify(ds.name)},"rows":[`);
    else if (opts.format === 'json') await write(out, '[');
    if (opts.format === 'csv' && i > 0) await write(out, '\r\n');
    for await (const page of client.searchAllPages({ queryString: query.text, dataSourceGuid: ds.id, pageSize: opts.pageSize }, { signal: opts.signal })) {
      const data = page.data as CellValue[][];
      if (!columnNames) {
        columnNames = page.columnNames;
        if (opts.format === 'csv') await write(out, stringify([columnNames], { record_delimiter: '\r\n' }));
      }
      if (opts.format === 'csv' && data.length) {
        await write(out, stringify(data.map((r) => columnNames!.map((_, c) => csvValue(r[c]))), { record_delimiter: '\r\n', cast: { boolean: (b) => String(b) } }));
      } else if (opts.format === 'json') {
        const parts = data.map((r) => (firstJson ? ((firstJson = false), '\n') : ',\n') + JSON.stringify(Object.fromEntries(columnNames!.map((n, c) => [n, r[c] === undefined ? null : r[c]]))));
        if (parts.length) await write(out, parts.join(''));
      } else if (opts.format === 'table') {
        tableRows.push(...data);
      }
      rows += data.length;
    }
    if (opts.format === 'json') await write(out, several ? (rows ? '\n]}' : ']}') : rows ? '\n]\n' : ']\n');
    if (opts.format === 'table') {
      // the columns only type the table's cells: without them the cells are shown as the service sent them
      const columns = describeColumns(columnNames ?? [], tableRows, (await catalog.columns(ds.id).catch(() => null))?.columns);
      if (several) await write(out, `${i ? '\n' : ''}-- ${terminalSafe(query.text.replace(/\s+/g, ' '))}\n`);
      await write(out, textTable(columns.map((c) => c.name), tableRows.map((r) => columns.map((c, k) => formatCell(r[k], c))), columns.map(isNumericColumn)));
    }
    info(`query ${number}: ${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'}`);
    total += rows;
  }
  if (opts.format === 'json' && several) await write(out, '\n]\n');
  return total;
}

/** One value as written to CSV: unchanged; null as an empty field (as the extension's export). */
function csvValue(v: CellValue | undefined): string | number | boolean {
  return v === null || v === undefined ? '' : v;
}
