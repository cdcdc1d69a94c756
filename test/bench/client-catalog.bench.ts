/**
 * What the extension's catalog costs the editor against the demo emulator: the first answer of each
 * catalog request (cold: HTTP + emulator), the cached answer (warm), a column-values prefix narrowed
 * from a shorter prefix's complete answer, and one page of the Objects view.
 * Times are milliseconds (median of the runs); `npm run bench -- client-catalog`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/src/app';
import { createServiceCatalog } from '../../client/src/catalog';
import { createService } from '../../client/src/serviceAdapter';
import { childrenFetcher, DATA_SOURCE_GROUPS } from '../../client/src/tree/nodes';

const RUNS = 15;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] * 100) / 100;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function run(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-bench-catalog-'));
  const emulator = await startEmulator({ port: 0, dataDir, demo: true, now: '2024-06-01T00:00:00Z' });
  const service = createService({ url: emulator.url, username: 'tsadmin' }, () => 'admin');
  let requests = 0;
  const counted = createService({ url: emulator.url, username: 'tsadmin' }, () => 'admin', () => requests++);
  try {
    await service.login();
    const cold = { dataSources: [] as number[], columns: [] as number[], columnValues: [] as number[], narrowed: [] as number[] };
    const warm = { columns: [] as number[], columnValues: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const catalog = createServiceCatalog(service);
      cold.dataSources.push(await time(() => catalog.dataSources()));
      cold.columns.push(await time(() => catalog.columns('flights')));
      warm.columns.push(await time(() => catalog.columns('FLIGHTS')));
      cold.columnValues.push(await time(() => catalog.columnValues('flights', 'origin', 'S')));
      warm.columnValues.push(await time(() => catalog.columnValues('flights', 'origin', 'S')));
      cold.narrowed.push(await time(() => catalog.columnValues('flights', 'origin', 'SE')));
    }
    const page: number[] = [];
    const tables = DATA_SOURCE_GROUPS.find((g) => g.id === 'tables')!;
    for (let i = 0; i < RUNS; i++) {
      const { fetch } = childrenFetcher({ kind: 'group', key: 'group:tables', group: tables }, async () => service, async () => createServiceCatalog(service), { sort: 'NAME', sortAscending: true, category: 'ALL', batchSize: 50 });
      page.push(await time(() => fetch(0, 50)));
    }
    // requests of one cold completion session: data sources, then a data source's columns, then values
    const c = createServiceCatalog(counted);
    await counted.login();
    const before = requests;
    await c.dataSources();
    await c.columns('flights');
    await c.columnValues('flights', 'origin', '');
    await c.columns('flights');
    const requestsColdSession = requests - before;
    return {
      runs: RUNS,
      dataSourcesColdMs: median(cold.dataSources),
      columnsColdMs: median(cold.columns),
      columnsWarmMs: median(warm.columns),
      columnValuesColdMs: median(cold.columnValues),
      columnValuesWarmMs: median(warm.columnValues),
      columnValuesNarrowedMs: median(cold.narrowed),
      objectsPageMs: median(page),
      requestsColdSession,
    };
  } finally {
    await service.logout();
    await counted.logout();
    await emulator.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
