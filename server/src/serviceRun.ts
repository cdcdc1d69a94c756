/**
 * The server's own Run (`tsq.server.runQuery`, features/codeLens.ts) when `tsq lsp` has a connection:
 * the query's data source looked up by name or GUID (the catalog of serviceCatalog.ts), its first page of
 * `RUN_ROWS` rows from `searchdata`, written as an aligned text table (cells as the results panel
 * formats them, common/src/results/format.ts) for the editor's log and the command's answer.
 */
import type { AnalyticsServiceClient } from '../../common/src/api';
import type { ClearableCatalog } from '../../common/src/catalog';
import type { CellValue } from '../../common/src/model';
import { describeColumns } from '../../common/src/results/shape';
import { formatCell, isNumericColumn } from '../../common/src/results/format';
import { terminalSafe } from '../../common/src/terminalText';
import type { QueryRunner } from './features/codeLens';

/** The rows of an answer the server's Run shows. */
export const RUN_ROWS = 100;

/** Cells as aligned columns under a header and a rule; numbers right-aligned. */
export function answerTable(header: readonly string[], rows: readonly (readonly string[])[], right: readonly boolean[]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (right[i] ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ').trimEnd();
  return [line(header), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)].join('\n');
}

/**
 * A runner over a service connection: `client()` gives the connection's client (made by the catalog
 * when it first reads); the answer names the data source, the rows shown and the total.
 * @throws Error naming the data source when the service has none of that name, or the query has none.
 */
export function serviceRunner(catalog: ClearableCatalog, client: () => AnalyticsServiceClient | undefined): QueryRunner {
  return async ({ text, dataSource }) => {
    if (!dataSource) throw new Error('The query has no data source: add a line @datasource \'name\' above it.');
    const ds = await catalog.getColumns(dataSource);
    const c = client();
    if (!ds || !c) throw new Error(`There is no data source "${dataSource}" on the service (or it cannot be read).`);
    const page = await c.searchData({ queryString: text, dataSourceGuid: ds.id, batchSize: RUN_ROWS, pageNumber: 1 });
    const rows = page.data as CellValue[][];
    const columns = describeColumns(page.columnNames, rows, ds.columns);
    // each name and cell on one line without controls (a cell may hold a line break)
    const table = answerTable(columns.map((col) => terminalSafe(col.name)), rows.map((r) => columns.map((col, k) => terminalSafe(formatCell(r[k], col)))), columns.map(isNumericColumn));
    return `${terminalSafe(`${ds.name}: ${text}`)}\n${table}\n${rows.length} of ${page.totalRowCount} rows`;
  };
}
