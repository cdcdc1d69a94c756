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
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AnalyticsServiceClient, type LoadDefinition } from '../../client/src/api';
import { runLoad, DEFAULT_CHUNK_BYTES } from '../../client/src/load/pipeline';
import { MB, r2, sampleRss, startEmulatorProcess, writeFlightsCsv } from './setup';

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
    const made = await writeFlightsCsv(csv, { targetBytes: targetMB * MB, dateFormat: '%Y-%m-%d %H:%M:%S', header: true });
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
    const rss = sampleRss();
    const rssBefore = rss.beforeBytes;
    const t = performance.now();
    let result;
    let rssPeak: number;
    try {
      result = await runLoad(client, csv, definition, { chunkBytes: DEFAULT_CHUNK_BYTES, pollIntervalMs: 250, maxPollIntervalMs: 1000 });
    } finally {
      rssPeak = rss.stop();
    }
    const totalMs = performance.now() - t;
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
