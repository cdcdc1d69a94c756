/**
 * The emulator through the client (common/src/api), next to DuckDB doing the same work directly:
 * - searchdata: median latency of ten demo queries (test/emulator/client-queries.ts) over HTTP, next to
 *   the same SQL run directly in DuckDB on a copy of the same table (ratio; target ≤ 1.5× + 5 ms);
 * - upload: a ~100 MB CSV made from vega-datasets flights-3m, streamed client → emulator in chunks
 *   (MB/s, MB = 2^20 bytes; target ≥ 100 MB/s) with the client process's RSS growth during the upload
 *   (target ≤ 64 MB);
 * - commit: rows/s from CommitLoad until the status is DONE, next to DuckDB's own `read_csv` of the same
 *   file into a table in the same run (ratio; target ≥ 0.3).
 * The emulator runs as its own process (`node dist/emulator.js --demo --port 0`), so the RSS figures are
 * the client's alone. Run: `npm run bench -- emulator`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { AnalyticsServiceClient } from '../../common/src/api';
import { DEMO_QUERIES } from '../emulator/client-queries';
import { vegaDataDir } from '../../emulator/src/demo';
import { MB, r2, sampleRss, startEmulatorProcess, writeFlightsCsv } from './setup';

const TARGET_BYTES = 100 * MB;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median latency of each demo query through the client and directly in DuckDB (same rows, same SQL). */
async function benchSearch(client: AnalyticsServiceClient, direct: DuckDBConnection): Promise<Record<string, unknown>> {
  const tables = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'flights' });
  const flights = tables.find((h) => h.name === 'flights');
  if (!flights) throw new Error('the demo flights table is missing');
  const parquet = join(vegaDataDir(), 'flights-3m.parquet').replace(/'/g, "''");
  await direct.run(
    `CREATE TABLE flights AS SELECT "date"::TIMESTAMP AS "date", delay::INTEGER AS delay, distance::INTEGER AS distance, origin::VARCHAR AS origin, destination::VARCHAR AS destination FROM read_parquet('${parquet}', file_row_number = true) WHERE file_row_number % 15 = 0 ORDER BY file_row_number`,
  );
  const search: Record<string, unknown>[] = [];
  const runs = 15;
  for (const q of DEMO_QUERIES) {
    const sql = q.sql.replace('$FLIGHTS', 'flights');
    await client.searchData({ queryString: q.query, dataSourceGuid: flights.id });
    await direct.runAndReadAll(sql);
    const viaClient: number[] = [];
    const viaDuckDb: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      await client.searchData({ queryString: q.query, dataSourceGuid: flights.id });
      viaClient.push(performance.now() - t);
      t = performance.now();
      (await direct.runAndReadAll(sql)).getRows();
      viaDuckDb.push(performance.now() - t);
    }
    const c = median(viaClient);
    const d = median(viaDuckDb);
    search.push({ query: q.query, clientMs: r2(c), duckdbMs: r2(d), ratio: r2(c / d), withinTarget: c <= 1.5 * d + 5 });
  }
  return { runsPerQuery: runs, queries: search, allWithinTarget: search.every((s) => s.withinTarget) };
}

/** Runs the benchmark; see the module comment for units. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-emulator-'));
  const csv = join(dir, 'flights-100mb.csv');
  const db = await DuckDBInstance.create(join(dir, 'direct.duckdb'));
  const { url, child } = await startEmulatorProcess(join(dir, 'emulator'));
  const client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
  const direct = await db.connect();
  try {
    // ---- searchdata vs DuckDB on the same 200,000 demo rows ----
    let searchdata: Record<string, unknown>;
    try {
      searchdata = await benchSearch(client, direct);
    } catch (e) {
      searchdata = { error: (e as Error).message };
    }

    // ---- the 100 MB CSV; DuckDB's own read_csv of it ----
    // date as `%Y%m%d %H:%M:%S`, no header; a 3M-row sample, then 0.2% over the target so the file reaches ~100 MB
    const made = await writeFlightsCsv(csv, { targetBytes: TARGET_BYTES, dateFormat: '%Y%m%d %H:%M:%S', header: false, sampleRows: 3_000_000, margin: 1.002, db });
    const readCsvSql = `CREATE OR REPLACE TABLE loaded AS SELECT * FROM read_csv('${csv.replace(/'/g, "''")}', header = false, timestampformat = '%Y%m%d %H:%M:%S', columns = {'date': 'TIMESTAMP', 'delay': 'INTEGER', 'distance': 'INTEGER', 'origin': 'VARCHAR', 'destination': 'VARCHAR'})`;
    const t = performance.now();
    await direct.run(readCsvSql);
    const readCsvMs = performance.now() - t;
    const readCsvRowsPerS = made.rows / (readCsvMs / 1000);

    // ---- upload, client → emulator, RSS sampled every 5 ms ----
    const rss = sampleRss();
    const rssBefore = rss.beforeBytes;
    // through the one load pipeline (common/src/load/pipeline.ts), as the extension loads
    const loaded = await client.loadCsv({ target: { database: 'demo', table: 'flights' }, format: { type: 'CSV', date_time: { converted_to_epoch: false } } }, csv, {
      chunkBytes: 32 * MB,
      pollIntervalMs: 20,
      maxPollIntervalMs: 200,
    });
    const uploadMs = loaded.uploadMs;
    const chunks = loaded.chunks;
    const rssPeak = rss.stop();
    const uploadMBps = made.bytes / MB / (uploadMs / 1000);

    // ---- commit until DONE: the rest of the cycle's time ----
    const status = loaded.status;
    const commitMs = loaded.ms - loaded.uploadMs;
    const commitRowsPerS = status.rowsWritten / (commitMs / 1000);

    return {
      searchdata,
      csv: { bytes: made.bytes, rows: made.rows },
      upload: {
        chunks,
        ms: Math.round(uploadMs),
        MBps: r2(uploadMBps),
        targetMBps: 100,
        clientRssBeforeMB: r2(rssBefore / MB),
        clientRssPeakMB: r2(rssPeak / MB),
        clientRssGrowthMB: r2((rssPeak - rssBefore) / MB),
        targetRssGrowthMB: 64,
        withinTarget: uploadMBps >= 100 && rssPeak - rssBefore <= 64 * MB,
      },
      commit: {
        ms: Math.round(commitMs),
        rowsWritten: status.rowsWritten,
        ignoredRows: status.ignoredRowCount,
        rowsPerS: Math.round(commitRowsPerS),
        duckdbReadCsvMs: Math.round(readCsvMs),
        duckdbReadCsvRowsPerS: Math.round(readCsvRowsPerS),
        ratio: r2(commitRowsPerS / readCsvRowsPerS),
        targetRatio: 0.3,
        withinTarget: commitRowsPerS >= 0.3 * readCsvRowsPerS,
      },
    };
  } finally {
    direct.closeSync();
    await client.close();
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    db.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
