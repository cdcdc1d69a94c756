/**
 * The emulator through the client (common/src/api), next to DuckDB doing the same work directly: the
 * latency of searchdata and the time of whole CSV loads, each with its anchor measured in the same run.
 * What each figure measures and its target: `run`. Where a load's time goes (commit, upload, polls) and
 * what would bring it to its target is written down in README.md, section Benchmarks.
 * The emulator runs as its own process (`node dist/emulator.js --demo --port 0`), so the RSS figures are
 * the client's alone. Run: `npm run bench -- emulator`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { AnalyticsServiceClient } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';
import { DEMO_QUERIES } from '../emulator/client-queries';
import { vegaDataDir } from '../../emulator/src/demo';
import { MB, r2, sampleRss, startEmulatorProcess, writeFlightsCsv } from './setup';

/** Size of each CSV: `TSQ_BENCH_EMULATOR_MB` (default 100; the figure is for 1024). */
const TARGET_BYTES = Number(process.env.TSQ_BENCH_EMULATOR_MB ?? 100) * MB;
/** The date formats of the CSVs: the load definition's default (the seed's) and ISO. */
const DATE_FORMATS = { seed: '%Y%m%d %H:%M:%S', iso: '%Y-%m-%d %H:%M:%S' } as const;
/** Pairs of (load, read_csv) per CSV: `TSQ_BENCH_EMULATOR_ROUNDS` (default 3). */
const LOAD_ROUNDS = Math.max(1, Number(process.env.TSQ_BENCH_EMULATOR_ROUNDS ?? 3) || 3);

/** The loads to run (`TSQ_BENCH_EMULATOR_LOADS`, comma-separated kinds, e.g. `header,headerless-iso`); all when unset. */
const ONLY = process.env.TSQ_BENCH_EMULATOR_LOADS?.split(',').map((k) => k.trim());

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

/**
 * Whole loads of a flights CSV through the client, each next to DuckDB's `read_csv` of the same file:
 * upload (chunks of 32 MiB, the header row repeated in each when there is one), CommitLoad, status
 * polled until DONE, by the load pipeline (`runLoad`). `loadMs` is the whole cycle (StartLoad to DONE);
 * `duckdbReadCsvMs` is `CREATE TABLE … AS SELECT * FROM read_csv(…)` then `CHECKPOINT` on `direct`, a
 * connection to a database file. LOAD_ROUNDS pairs, the one that goes first alternating; each figure is
 * the median over the pairs and `ratio` the median of each pair's loadMs / duckdbReadCsvMs (target ≤ 1.5):
 * one pair on a shared machine ranged from 1.4× to 2.5×. The client process's RSS growth during the
 * upload (the largest over the rounds) is reported (target ≤ 64 MB).
 */
async function benchLoad(client: AnalyticsServiceClient, direct: DuckDBConnection, csv: string, header: boolean, dateFormat: string, db: DuckDBInstance): Promise<Record<string, unknown>> {
  // a 3M-row sample, then 0.2% over the target so the file reaches the size
  const made = await writeFlightsCsv(csv, { targetBytes: TARGET_BYTES, dateFormat, header, sampleRows: 3_000_000, margin: 1.002, db });
  try {
    const readCsvSql = `CREATE OR REPLACE TABLE loaded AS SELECT * FROM read_csv('${csv.replace(/'/g, "''")}', header = ${header}, timestampformat = '${dateFormat}', columns = {'date': 'TIMESTAMP', 'delay': 'INTEGER', 'distance': 'INTEGER', 'origin': 'VARCHAR', 'destination': 'VARCHAR'})`;
    const readCsv = async (): Promise<number> => {
      await direct.run('CHECKPOINT'); // nothing of earlier work left to write during the timed part
      const t = performance.now();
      await direct.run(readCsvSql);
      await direct.run('CHECKPOINT');
      const ms = performance.now() - t;
      await direct.run('DROP TABLE loaded');
      await direct.run('CHECKPOINT');
      return ms;
    };
    // through the one load pipeline (common/src/load/pipeline.ts), as the extension loads; the header
    // row, when there is one, repeated at the head of every chunk
    const load = async () => {
      const rss = sampleRss();
      const loaded = await runLoad(client, csv, { target: { database: 'demo', table: 'flights' }, format: { type: 'CSV', has_header_row: header, date_time: { converted_to_epoch: false, date_time_format: dateFormat } } }, {
        chunkBytes: 32 * MB,
        pollIntervalMs: 20,
        maxPollIntervalMs: 200,
      });
      return { loaded, rssGrowth: rss.stop() - rss.beforeBytes };
    };
    const pairs: { loadMs: number; uploadMs: number; readCsvMs: number; rowsWritten: number; ignored: number; chunks: number; rssGrowth: number }[] = [];
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      let readCsvMs = round % 2 === 0 ? await readCsv() : NaN;
      const { loaded, rssGrowth } = await load();
      if (round % 2 === 1) readCsvMs = await readCsv();
      pairs.push({ loadMs: loaded.ms, uploadMs: loaded.uploadMs, readCsvMs, rowsWritten: loaded.status.rowsWritten, ignored: loaded.status.ignoredRowCount, chunks: loaded.chunks, rssGrowth });
    }
    const loadMs = median(pairs.map((p) => p.loadMs));
    const uploadMs = median(pairs.map((p) => p.uploadMs));
    const readCsvMs = median(pairs.map((p) => p.readCsvMs));
    const ratio = median(pairs.map((p) => p.loadMs / p.readCsvMs));
    const allRows = pairs.every((p) => p.rowsWritten === made.rows && p.ignored === 0);
    return {
      bytes: made.bytes,
      rows: made.rows,
      chunks: pairs[0]!.chunks,
      rounds: LOAD_ROUNDS,
      loadMs: Math.round(loadMs),
      uploadMs: Math.round(uploadMs),
      uploadMBps: r2(made.bytes / MB / (uploadMs / 1000)),
      commitMs: Math.round(median(pairs.map((p) => p.loadMs - p.uploadMs))),
      rowsWritten: pairs[pairs.length - 1]!.rowsWritten,
      ignoredRows: pairs[pairs.length - 1]!.ignored,
      allRowsWritten: allRows,
      duckdbReadCsvMs: Math.round(readCsvMs),
      ratio: r2(ratio),
      pairRatios: pairs.map((p) => r2(p.loadMs / p.readCsvMs)),
      targetRatio: 1.5,
      withinTarget: ratio <= 1.5 && allRows,
      clientRssGrowthMB: r2(Math.max(...pairs.map((p) => p.rssGrowth)) / MB),
      targetRssGrowthMB: 64,
    };
  } finally {
    rmSync(csv, { force: true });
  }
}

/**
 * Runs the benchmark:
 * - searchdata: median latency of ten demo queries (test/emulator/client-queries.ts) over HTTP, next to
 *   the same SQL run directly in DuckDB on a copy of the same table (ratio; target ≤ 1.5× + 5 ms);
 * - loads: for a header-less and a header CSV (~100 MB each, `TSQ_BENCH_EMULATOR_MB`), each with dates
 *   in the seed's format and in ISO (`DATE_FORMATS`), made from vega-datasets flights-3m, the whole load (upload in chunks + CommitLoad until DONE, from the first
 *   byte sent) next to DuckDB's own `read_csv` of the same file into a table of the same types of a
 *   database file, checkpointed (the rows on disk, as the emulator's DONE means), in the same run:
 *   `ratio` = load / read_csv (target ≤ 1.5), with upload and commit times, upload MB/s
 *   (MB = 2^20 bytes) and the client process's RSS growth during the upload (target ≤ 64 MB);
 * - loadAverage: the machine's 1, 5 and 15 minute load averages at the end.
 */
export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-emulator-'));
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

    // ---- whole loads (upload + commit) of a header-less and a header CSV, each next to DuckDB's own
    // read_csv of the same file into the same kind of table, in this run ----
    const loads: Record<string, unknown> = {};
    for (const [dates, format] of Object.entries(DATE_FORMATS)) {
      for (const header of [false, true]) {
        const kind = `${header ? 'header' : 'headerless'}${dates === 'iso' ? '-iso' : ''}`;
        if (ONLY && !ONLY.includes(kind)) continue;
        loads[kind] = await benchLoad(client, direct, join(dir, `flights-${header ? 'header' : 'plain'}-${dates}.csv`), header, format, db);
      }
    }
    return { searchdata, loads, loadAverage: loadavg().map(r2) };
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
