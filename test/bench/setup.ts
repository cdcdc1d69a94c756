/**
 * Setup shared by the benchmarks that drive the emulator as its own process (emulator.bench.ts,
 * load.bench.ts): starting `dist/emulator.js --demo`, writing a large flights CSV from vega-datasets
 * flights-3m, and sampling this process's RSS; and the median of a route beside its SQL in DuckDB
 * (searchdata.bench.ts, formula.bench.ts). Not a benchmark itself (bench.mjs runs `*.bench.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { vegaDataDir } from '../../emulator/src/demo';

/** Bytes in a MB as the benchmarks report it (2^20). */
export const MB = 1024 * 1024;

/** Rounds to two decimals, for reporting. */
export const r2 = (x: number): number => Math.round(x * 100) / 100;

/** The median of `xs` (the upper of the two middle values of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * A route of the emulator beside the same SQL run directly in DuckDB: 16 rounds, each `viaHttp()` then
 * `direct` on `conn`, then each of `extras` in its order (e.g. a trivial request to the same server, the
 * fixed cost of any round trip), the first round left out as warm-up.
 * @returns the median ms of each, over 15 runs: `httpMs`, `directMs`, and `extraMs` by the names of `extras`
 */
export async function besideDuckDb(viaHttp: () => Promise<void>, conn: DuckDBConnection, direct: string, extras: Record<string, () => Promise<void>> = {}): Promise<{ httpMs: number; directMs: number; extraMs: Record<string, number> }> {
  const http: number[] = [];
  const db: number[] = [];
  const more: { name: string; run: () => Promise<void>; ms: number[] }[] = Object.entries(extras).map(([name, run]) => ({ name, run, ms: [] }));
  for (let k = 0; k < 16; k++) {
    let t = performance.now();
    await viaHttp();
    if (k > 0) http.push(performance.now() - t);
    t = performance.now();
    (await conn.runAndReadAll(direct)).getRows();
    if (k > 0) db.push(performance.now() - t);
    for (const e of more) {
      t = performance.now();
      await e.run();
      if (k > 0) e.ms.push(performance.now() - t);
    }
  }
  return { httpMs: median(http), directMs: median(db), extraMs: Object.fromEntries(more.map((e) => [e.name, median(e.ms)])) };
}

/**
 * Starts `dist/emulator.js --demo --port 0 --data-dir <dataDir>` (build it first with `node esbuild.mjs`)
 * as a child process, its stderr shared with this one.
 * @param dataDir the emulator's state folder (created by the emulator when missing).
 * @returns once its stdout says `listening on <url>`: that base URL and the child (the caller kills it).
 * @throws (rejects) Error when the process exits before listening, with what it printed.
 */
export function startEmulatorProcess(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, [join(root, 'dist', 'emulator.js'), '--demo', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening: ${out}`)));
  });
}

/** Options of `writeFlightsCsv`. */
export interface FlightsCsvOptions {
  /** The size to reach, in bytes (about: the row count is estimated from a first sample). */
  targetBytes: number;
  /** strftime format of the `date` column, e.g. `%Y-%m-%d %H:%M:%S`. */
  dateFormat: string;
  /** Write a header row (`date,delay,distance,origin,destination`). */
  header: boolean;
  /** Rows written first to measure bytes per row; default 1,000,000. */
  sampleRows?: number;
  /** Factor on the estimated row count, to land at or just above `targetBytes`; default 1. */
  margin?: number;
  /** The DuckDB instance that writes it; default a new in-memory one. */
  db?: DuckDBInstance;
}

/**
 * Writes flights rows (date as `dateFormat`, delay, distance, origin, destination) from vega-datasets
 * `flights-3m.parquet` as CSV to `file`, repeating the ~3M source rows as often as the size needs:
 * first `sampleRows` rows to measure the bytes per row, then `ceil(targetBytes / bytesPerRow × margin)` rows.
 * @returns the file's size in bytes and its data row count (the header not counted).
 * @throws the DuckDB error when the parquet file is missing (the vega-datasets package) or the file cannot be written.
 */
export async function writeFlightsCsv(file: string, opts: FlightsCsvOptions): Promise<{ bytes: number; rows: number }> {
  const sampleRows = opts.sampleRows ?? 1_000_000;
  const db = opts.db ?? (await DuckDBInstance.create(':memory:'));
  const c = await db.connect();
  try {
    const parquet = join(vegaDataDir(), 'flights-3m.parquet').replace(/'/g, "''");
    const src = `SELECT strftime("date", '${opts.dateFormat.replace(/'/g, "''")}') AS "date", delay, distance, origin, destination FROM read_parquet('${parquet}')`;
    const copy = (copies: number, limit: number) =>
      c.run(`COPY (SELECT * FROM (SELECT s.* FROM (${src}) s, range(${copies})) LIMIT ${limit}) TO '${file.replace(/'/g, "''")}' (FORMAT csv, HEADER ${opts.header})`);
    await copy(Math.ceil(sampleRows / 3_000_000), sampleRows);
    const perRow = statSync(file).size / sampleRows;
    const rows = Math.ceil((opts.targetBytes / perRow) * (opts.margin ?? 1));
    await copy(Math.ceil(rows / 3_000_000), rows);
    return { bytes: statSync(file).size, rows };
  } finally {
    c.closeSync();
  }
}

/** A running sample of this process's resident set size (bytes), see `sampleRss`. */
export interface RssSampler {
  /** RSS in bytes when sampling started (after a GC when `--expose-gc` is on). */
  readonly beforeBytes: number;
  /** Stops sampling, takes one last sample and returns the peak RSS in bytes. */
  stop(): number;
}

/** Runs a GC when exposed, then samples `process.memoryUsage.rss()` every `intervalMs` (default 5 ms) until `stop()`. */
export function sampleRss(intervalMs = 5): RssSampler {
  global.gc?.();
  const beforeBytes = process.memoryUsage.rss();
  let peak = beforeBytes;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, intervalMs);
  return {
    beforeBytes,
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      return peak;
    },
  };
}
