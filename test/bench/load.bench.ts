/**
 * Load CSV into table end to end: a CSV made from vega-datasets flights-3m (`TSQ_BENCH_LOAD_MB`, default
 * 1024) appended to the demo `flights` table, in one run against one emulator:
 * 1. `curl`: the same file as ONE request to the same endpoint, the loopback limit (`curl.uploadMBps`).
 * 2. `extensionHost`: Load Again (`tsq.loadAgain`, saved definition) in a real VS Code (the end-to-end
 *    harness): total, upload and commit times from the TSQ log, `uploadMBps` (MB = 2^20 bytes), the
 *    extension host's RSS sampled during the load (`rssGrowthMB`, `kernelPeakMB`), `uploadRateVsCurl`,
 *    and `verified` (rowsWritten and `count [origin]` grew by the file's rows).
 * 3. `plainNode`: the same pipeline in this plain Node process (`TSQ_BENCH_LOAD_PLAIN=0` skips it).
 * Targets: upload ≥ 90% of curl's rate, memory growth ≤ 64 MB. Without the end-to-end tools only curl
 * and `plainNode` run. Run: `npm run bench -- load` (needs `TSQ_TOOLS_DIR` like the end-to-end tests).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { runLoad, DEFAULT_CHUNK_BYTES } from '../../common/src/load/pipeline';
import { savedDefinitionPath } from '../../common/src/load/definition';
import { MB, r2, startEmulatorProcess, writeFlightsCsv } from './setup';
import { e2eSkip, explorerMenu, startSession, waitUntil, type E2eSession } from '../e2e/harness';

const CREDENTIALS = { username: 'tsadmin', password: 'admin' };
/** The CSV's format (as writeFlightsCsv writes it here). */
const FORMAT: LoadDefinition['format'] = { type: 'csv', has_header_row: true, date_time: { converted_to_epoch: false, date_time_format: '%Y-%m-%d %H:%M:%S' } };

/** Logs in on the load API with fetch and returns the `JSESSIONID=...` cookie for curl. */
async function loadCookie(url: string): Promise<string> {
  const r = await fetch(`${url}/ts_dataservice/v1/public/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CREDENTIALS) });
  const set = r.headers.get('set-cookie');
  if (r.status !== 200 || !set) throw new Error(`login for curl failed: ${r.status}`);
  return set.split(';')[0]!;
}

/** curl sends `csv` as one multipart request into a fresh cycle (aborted afterwards). */
async function measureCurl(client: AnalyticsServiceClient, url: string, csv: string, bytes: number, definition: LoadDefinition): Promise<Record<string, unknown>> {
  if (spawnSync('curl', ['--version']).status !== 0) return { error: 'curl is not installed (apt-get install curl)' };
  const cookie = await loadCookie(url);
  const { cycleId } = await client.startLoad(definition);
  const out = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{time_total} %{size_upload}', '-b', cookie, '-H', 'X-Requested-By: ThoughtSpot', '-F', `file=@${csv};type=text/csv`, `${url}/ts_dataservice/v1/public/loads/${cycleId}`], { encoding: 'utf8', maxBuffer: MB });
  const [code, secs, sent] = out.stdout.trim().split(' ');
  await client.abortLoad(cycleId);
  const seconds = Number(secs);
  return { httpStatus: Number(code), seconds: r2(seconds), bytesSent: Number(sent), uploadMBps: r2(bytes / MB / seconds), ...(out.status !== 0 || !/^2\d\d$/.test(code ?? '') ? { error: out.stderr || `HTTP ${code}` } : {}) };
}

/** The demo `flights` table: its GUID and load target (database, schema, table) from metadata/details. */
export async function flightsTable(client: AnalyticsServiceClient): Promise<{ id: string; target: LoadDefinition['target'] }> {
  const h = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['ONE_TO_ONE_LOGICAL'], batchSize: -1 })).find((x) => x.name === 'flights');
  if (!h) throw new Error('the demo has no flights table');
  const s = (await client.metadataDetails('LOGICAL_TABLE', [h.id])).storables[0] as { header?: { databaseStripe?: string; schemaStripe?: string; name?: string }; logicalTableContent?: { physicalTableName?: string } } | undefined;
  const database = s?.header?.databaseStripe;
  const table = s?.logicalTableContent?.physicalTableName ?? s?.header?.name;
  if (!database || !table) throw new Error(`flights has no database or table in metadata/details: ${JSON.stringify(s?.header)}`);
  return { id: h.id, target: { database, ...(s?.header?.schemaStripe ? { schema: s.header.schemaStripe } : {}), table } };
}

/** Rows of flights (`count [origin]` through searchdata; origin is never null). */
async function countRows(client: AnalyticsServiceClient, id: string): Promise<number> {
  const r = await client.searchData({ queryString: 'count [origin]', dataSourceGuid: id, batchSize: 1 });
  return Number((r.data as unknown[][])[0]?.[0]);
}

/** RSS figures of a process from /proc/<pid>/status, in bytes (undefined when gone). */
function procMemory(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/**
 * The extension host of this session: a process whose command line holds `--type=extensionHost` and
 * whose environment has `TSQ_E2E_USER_DATA_DIR=<userDataDir>` (the harness sets it on code-server;
 * its children inherit it). The newest one when several (after a window reload).
 */
export function extensionHostPid(userDataDir: string): number | undefined {
  let found: { pid: number; start: number } | undefined;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmd.includes('--type=extensionHost')) continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!env.includes(`TSQ_E2E_USER_DATA_DIR=${userDataDir}`)) continue;
      const start = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[19]);
      if (!found || start > found.start) found = { pid: Number(name), start };
    } catch {
      // gone, or not ours to read
    }
  }
  return found?.pid;
}

/** The TSQ output channel's log file of the session's newest extension host (`logs/<time>/exthost<N>/tsq.tsq/TSQ.log`). */
function tsqLogFile(userDataDir: string): string | undefined {
  const logs = join(userDataDir, 'logs');
  if (!existsSync(logs)) return undefined;
  const files: string[] = [];
  for (const run of readdirSync(logs)) {
    for (const host of existsSync(join(logs, run)) ? readdirSync(join(logs, run)).filter((n) => n.startsWith('exthost')) : []) {
      const f = join(logs, run, host, 'tsq.tsq', 'TSQ.log');
      if (existsSync(f)) files.push(f);
    }
  }
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Epoch ms of a log line's `YYYY-MM-DD HH:MM:SS.mmm` timestamp (local time; only differences are used). */
function logTime(line: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
  if (!m) throw new Error(`no timestamp in the log line: ${line}`);
  return new Date(`${m[1]}T${m[2]}`).getTime();
}

/** The extension host's load of `csvName` (in the workspace) through Load Again; see the module comment. */
async function extensionHostLoad(session: E2eSession, csvName: string, bytes: number): Promise<Record<string, unknown>> {
  const pid = await waitUntil(() => extensionHostPid(session.userDataDir), 'the extension host process', 30_000);
  const mem = () => procMemory(pid);
  // the kernel's peak (VmHWM) counts from here when the reset is allowed
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    hwmReset = true;
  } catch {
    // not allowed: kernelPeakMB is null
  }
  let before = 0;
  let peak = 0;
  let samples = 0;
  let t0 = 0;
  const sample = () => {
    const m = mem();
    if (!m) return;
    samples++;
    peak = Math.max(peak, m.rss);
  };
  let sampler: NodeJS.Timeout | undefined;
  let seen: string;
  try {
    await explorerMenu(session, csvName, 'Load CSV Again', {
      rowTimeoutMs: 60_000,
      beforeClick: () => {
        before = mem()?.rss ?? NaN;
        peak = before;
        sampler = setInterval(sample, 50);
        t0 = Date.now();
      },
    });
    // waitUntil retries a probe that throws, so a failure message ends the wait as a value
    const outcome = await waitUntil(async () => {
      const texts = (await session.page.locator('.notification-list-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      const done = texts.find((t) => /Loaded [\d,]+ rows into/.test(t));
      if (done) return { done };
      const bad = texts.find((t) => /failed|refused|lost|cancelled|could not|no saved load definition|not a local file/i.test(t));
      return bad ? { bad } : undefined;
    }, 'the "Loaded N rows" notification', 3_600_000, 200);
    if (outcome.bad !== undefined) throw new Error(`the load did not succeed: ${outcome.bad}`);
    seen = outcome.done!;
  } finally {
    if (sampler) clearInterval(sampler);
  }
  const driverMs = Date.now() - t0;
  sample();
  const after = mem();
  const loaded = Number(/Loaded ([\d,]+) rows/.exec(seen)![1]!.replace(/,/g, ''));

  // the TSQ log (flushed a little after the message): the command start, the upload, DONE, the result
  const logFile = await waitUntil(() => tsqLogFile(session.userDataDir), 'the TSQ log file', 30_000);
  const lines = await waitUntil(() => {
    const all = readFileSync(logFile, 'utf8').split('\n');
    const start = all.findLastIndex((l) => / Load Again: .*flights\.csv with /.test(l));
    const mine = start >= 0 ? all.slice(start) : [];
    return mine.some((l) => /Load CSV: Loaded [\d,]+ rows/.test(l)) ? mine : undefined;
  }, `the Load Again and Loaded lines in ${logFile}`, 30_000, 200);
  const find = (re: RegExp) => {
    const l = lines.find((x) => re.test(x));
    if (!l) throw new Error(`no log line matching ${re} in ${logFile}:\n${lines.slice(0, 20).join('\n')}`);
    return l;
  };
  const startLine = lines[0]!;
  const uploadedLine = find(/cycle \S+: \d+ chunks, \d+ bytes uploaded in \d+ ms/);
  const [, chunks, , uploadMsText] = /: (\d+) chunks, (\d+) bytes uploaded in (\d+) ms/.exec(uploadedLine)!;
  const doneLine = find(/cycle \S+ DONE: \d+ rows written, \d+ ignored/);
  const [, written, ignored] = /DONE: (\d+) rows written, (\d+) ignored/.exec(doneLine)!;
  const resultLine = find(/Load CSV: Loaded [\d,]+ rows/);
  const uploadMs = Number(uploadMsText);
  const uploadEnd = logTime(uploadedLine);
  return {
    extensionHostPid: pid,
    chunkBytes: DEFAULT_CHUNK_BYTES,
    chunks: Number(chunks),
    rowsWritten: Number(written),
    ignoredRows: Number(ignored),
    rowsInNotification: loaded,
    totalSeconds: r2((logTime(resultLine) - logTime(startLine)) / 1000),
    driverTotalSeconds: r2(driverMs / 1000),
    startSeconds: r2((uploadEnd - uploadMs - logTime(startLine)) / 1000),
    uploadSeconds: r2(uploadMs / 1000),
    uploadMBps: r2(bytes / MB / (uploadMs / 1000)),
    commitSeconds: r2((logTime(doneLine) - uploadEnd) / 1000),
    rssBeforeMB: r2(before / MB),
    rssPeakMB: r2(peak / MB),
    rssGrowthMB: r2((peak - before) / MB),
    rssAfterMB: after ? r2(after.rss / MB) : null,
    kernelPeakMB: hwmReset && after ? r2(after.hwm / MB) : null,
    kernelGrowthMB: hwmReset && after ? r2((after.hwm - before) / MB) : null,
    rssSamples: samples,
  };
}

/** The same pipeline in this plain Node process (see the module comment). */
async function plainNodeLoad(client: AnalyticsServiceClient, csv: string, bytes: number, definition: LoadDefinition): Promise<Record<string, unknown>> {
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
  return {
    where: 'plain Node process running common/src/load/pipeline.ts (not the VS Code extension host)',
    chunkBytes: DEFAULT_CHUNK_BYTES,
    chunks: result.chunks,
    rowsWritten: result.rowsWritten,
    ignoredRows: result.ignoredRows,
    totalSeconds: r2(totalMs / 1000),
    uploadSeconds: r2(result.uploadMs / 1000),
    uploadMBps: r2(bytes / MB / (result.uploadMs / 1000)),
    commitAndPollSeconds: r2((totalMs - result.uploadMs) / 1000),
    rssBeforeMB: r2(rssBefore / MB),
    rssPeakMB: r2(rssPeak / MB),
    rssGrowthMB: r2((rssPeak - rssBefore) / MB),
  };
}

/** Runs the benchmark; see the module comment. */
export async function run(): Promise<Record<string, unknown>> {
  const targetMB = Number(process.env.TSQ_BENCH_LOAD_MB ?? 1024);
  const withPlain = process.env.TSQ_BENCH_LOAD_PLAIN !== '0';
  let skip: string | false;
  try {
    skip = e2eSkip(['dist/emulator.js']);
  } catch (e) {
    skip = (e as Error).message;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-load-'));
  let csv = join(dir, 'flights.csv');
  let session: E2eSession | undefined;
  let own: ChildProcess | undefined;
  let client: AnalyticsServiceClient | undefined;
  try {
    const generated = performance.now();
    const made = await writeFlightsCsv(csv, { targetBytes: targetMB * MB, dateFormat: '%Y-%m-%d %H:%M:%S', header: true });
    const file = { megabytes: r2(made.bytes / MB), rows: made.rows, generateSeconds: r2((performance.now() - generated) / 1000) };

    let url: string;
    if (skip) {
      ({ url, child: own } = await startEmulatorProcess(join(dir, 'emulator')));
    } else {
      session = await startSession({ name: 'load-bench', emulator: true, suite: 'load.js' });
      const suite = await session.waitForSuite();
      if (suite.failed || suite.error) throw new Error(`the in-host suite failed: ${JSON.stringify(suite)}`);
      url = session.emulatorUrl!;
    }
    client = new AnalyticsServiceClient({ url, ...CREDENTIALS });
    const flights = await flightsTable(client);
    const definition: LoadDefinition = { target: flights.target, format: FORMAT, load_options: { empty_target: false, max_ignored_rows: 0 } };
    if (session) {
      // the file and its saved definition (append: Load Again asks nothing) in the workspace
      const inWorkspace = join(session.workspace, 'flights.csv');
      renameSync(csv, inWorkspace);
      csv = inWorkspace;
      writeFileSync(savedDefinitionPath(csv), `${JSON.stringify(definition, null, 2)}\n`);
    }

    const curl = await measureCurl(client, url, csv, made.bytes, definition);
    const curlRate = typeof curl.uploadMBps === 'number' && !curl.error ? curl.uploadMBps : undefined;
    const out: Record<string, unknown> = { file, target: definition.target, curl };

    if (session) {
      const rowsBefore = await countRows(client, flights.id);
      const host = await extensionHostLoad(session, 'flights.csv', made.bytes);
      const rowsAfter = await countRows(client, flights.id);
      const verified = host.rowsWritten === made.rows && host.ignoredRows === 0 && host.rowsInNotification === made.rows && rowsAfter - rowsBefore === made.rows;
      const rate = host.uploadMBps as number;
      const growth = host.rssGrowthMB as number;
      out.extensionHost = { ...host, uploadRateVsCurl: curlRate ? r2(rate / curlRate) : null, tableRowsBefore: rowsBefore, tableRowsAfter: rowsAfter, verified };
      out.targets = {
        uploadAtLeast90PercentOfCurl: curlRate ? rate >= 0.9 * curlRate : null,
        memoryGrowthAtMost64MB: growth <= 64,
        rowsCommitted: verified,
      };
      if (!verified) out.error = `the extension host's load did not commit the file's ${made.rows} rows (status ${host.rowsWritten} written, ${host.ignoredRows} ignored; the table grew by ${rowsAfter - rowsBefore})`;
    } else {
      out.extensionHost = { skipped: skip };
    }

    if (withPlain) {
      const rowsBefore = await countRows(client, flights.id);
      const plain = await plainNodeLoad(client, csv, made.bytes, definition);
      const rowsAfter = await countRows(client, flights.id);
      const verified = plain.rowsWritten === made.rows && plain.ignoredRows === 0 && rowsAfter - rowsBefore === made.rows;
      out.plainNode = { ...plain, uploadRateVsCurl: curlRate ? r2((plain.uploadMBps as number) / curlRate) : null, tableRowsBefore: rowsBefore, tableRowsAfter: rowsAfter, verified };
    }
    return out;
  } finally {
    await client?.close();
    await session?.close();
    own?.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
