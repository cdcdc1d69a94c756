/**
 * Load CSV into table, end to end, on a ~1 GB CSV made from vega-datasets flights-3m (date as
 * `%Y-%m-%d %H:%M:%S`, delay, distance, origin, destination; header row) into the demo `flights` table
 * (replace) of `node dist/emulator.js --demo` (its own process):
 * - the extension's load pipeline (`client/src/load/pipeline.ts`: the chunker + the client, chunks of
 *   `tsq.load.chunkSize`'s default 16 MiB) run in this plain Node process — NOT the VS Code extension
 *   host: total time (StartLoad to DONE), upload MB/s (MB = 2^20 bytes), commit time, and this
 *   process's RSS growth during the load (peak − before, sampled every 5 ms);
 * - in the same run, `curl` uploading the same bytes as ONE multipart request to the same endpoint
 *   (a fresh cycle, aborted afterwards): its MB/s, and the pipeline's upload rate as a ratio of it.
 * Targets (issue "Load CSV into table"): upload ≥ 70% of curl's rate; memory growth < 100 MB.
 * The file is generated in a temp folder and removed afterwards. `TSQ_BENCH_LOAD_MB` sets the size
 * (default 1024). Run: `npm run bench -- load`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { AnalyticsServiceClient, type LoadDefinition } from '../../client/src/api';
import { runLoad, DEFAULT_CHUNK_BYTES } from '../../client/src/load/pipeline';
import { vegaDataDir } from '../../emulator/src/demo';

const MB = 1024 * 1024;
const r2 = (x: number) => Math.round(x * 100) / 100;

/** Starts `dist/emulator.js --demo` and resolves with its URL once it listens. */
function startEmulatorProcess(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
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

/** Writes about `targetBytes` of flights rows with a header row; returns its size and row count. */
async function makeCsv(file: string, targetBytes: number): Promise<{ bytes: number; rows: number }> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const parquet = join(vegaDataDir(), 'flights-3m.parquet').replace(/'/g, "''");
    const src = `SELECT strftime("date", '%Y-%m-%d %H:%M:%S') AS "date", delay, distance, origin, destination FROM read_parquet('${parquet}')`;
    const copy = (copies: number, limit: number) =>
      c.run(`COPY (SELECT * FROM (SELECT s.* FROM (${src}) s, range(${copies})) LIMIT ${limit}) TO '${file.replace(/'/g, "''")}' (FORMAT csv, HEADER true)`);
    await copy(1, 1_000_000);
    const perRow = statSync(file).size / 1_000_000;
    const rows = Math.ceil(targetBytes / perRow);
    await copy(Math.ceil(rows / 3_000_000), rows);
    return { bytes: statSync(file).size, rows };
  } finally {
    c.closeSync();
  }
}

/** Logs in on the load API with fetch and returns the `JSESSIONID=...` cookie for curl. */
async function loadCookie(url: string): Promise<string> {
  const r = await fetch(`${url}/ts_dataservice/v1/public/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  const set = r.headers.get('set-cookie');
  if (r.status !== 200 || !set) throw new Error(`login for curl failed: ${r.status}`);
  return set.split(';')[0]!;
}

/** Runs the benchmark; see the module comment. */
export async function run(): Promise<Record<string, unknown>> {
  const targetMB = Number(process.env.TSQ_BENCH_LOAD_MB ?? 1024);
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-load-'));
  const csv = join(dir, 'flights.csv');
  const { url, child } = await startEmulatorProcess(join(dir, 'emulator'));
  const client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
  try {
    const made = await makeCsv(csv, targetMB * MB);
    const definition: LoadDefinition = {
      target: { database: 'demo', table: 'flights' },
      format: { type: 'csv', has_header_row: true, date_time: { converted_to_epoch: false, date_time_format: '%Y-%m-%d %H:%M:%S' } },
      load_options: { empty_target: true },
    };

    // ---- curl: the same bytes as one multipart request to the same endpoint ----
    let curl: Record<string, unknown>;
    if (spawnSync('curl', ['--version']).status === 0) {
      const cookie = await loadCookie(url);
      const { cycleId } = await client.startLoad(definition);
      const out = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{time_total} %{size_upload}', '-b', cookie, '-H', 'X-Requested-By: ThoughtSpot', '-F', `file=@${csv};type=text/csv`, `${url}/ts_dataservice/v1/public/loads/${cycleId}`], { encoding: 'utf8', maxBuffer: MB });
      const [code, secs, sent] = out.stdout.trim().split(' ');
      await client.abortLoad(cycleId);
      const seconds = Number(secs);
      curl = { httpStatus: Number(code), seconds: r2(seconds), bytesSent: Number(sent), uploadMBps: r2(made.bytes / MB / seconds), ...(out.status !== 0 ? { error: out.stderr } : {}) };
    } else curl = { error: 'curl is not installed (apt-get install curl)' };

    // ---- the extension's pipeline in this process ----
    global.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }, 5);
    const t = performance.now();
    let result;
    try {
      result = await runLoad(client, csv, definition, { chunkBytes: DEFAULT_CHUNK_BYTES, pollIntervalMs: 250, maxPollIntervalMs: 1000 });
    } finally {
      clearInterval(sampler);
    }
    const totalMs = performance.now() - t;
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    const uploadMBps = made.bytes / MB / (result.uploadMs / 1000);
    const curlRate = typeof curl.uploadMBps === 'number' ? curl.uploadMBps : undefined;
    const growthMB = (rssPeak - rssBefore) / MB;
    return {
      where: 'plain Node process running client/src/load/pipeline.ts (not the VS Code extension host)',
      file: { megabytes: r2(made.bytes / MB), rows: made.rows },
      pipeline: {
        chunkBytes: DEFAULT_CHUNK_BYTES,
        chunks: result.chunks,
        rowsWritten: result.rowsWritten,
        totalSeconds: r2(totalMs / 1000),
        uploadSeconds: r2(result.uploadMs / 1000),
        uploadMBps: r2(uploadMBps),
        commitAndPollSeconds: r2((totalMs - result.uploadMs) / 1000),
        rssBeforeMB: r2(rssBefore / MB),
        rssPeakMB: r2(rssPeak / MB),
        rssGrowthMB: r2(growthMB),
      },
      curl,
      uploadRateVsCurl: curlRate ? r2(uploadMBps / curlRate) : null,
      targets: { uploadAtLeast70PercentOfCurl: curlRate ? uploadMBps >= 0.7 * curlRate : null, memoryGrowthUnder100MB: growthMB < 100 },
    };
  } finally {
    await client.close();
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
