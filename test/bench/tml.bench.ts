/**
 * A thousand answers as TML: the emulator (in process, demo data) holds 1,000 answers (imported in
 * batches of 50 first); the command line's own `tsq tml export --all` and `tsq tml validate`
 * (cli/src/tml.ts: `runTmlExport`, `runTmlValidate`) export them to files and validate the files (local
 * checks against the catalog, then the service's `VALIDATE_ONLY`), in batches of TML_BATCH_SIZE (50, the
 * service's advice), each batch an update of the progress bar (recorded here rather than drawn: the report
 * gives the batches and the last state of each bar); beside it, the anchor: 1,000 searchdata calls of the
 * same queries, one after the other. Run: `npm run bench -- tml`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { AnalyticsServiceClient, TML_BATCH_SIZE } from '../../common/src/api';
import type { ProgressReporter, ProgressState } from '../../cli/src/progress';
import { BATCH_BAR, runTmlExport, runTmlValidate } from '../../cli/src/tml';
import { startEmulator } from '../../emulator/src/app';

/** A progress reporter that keeps the updates a terminal would have drawn as bars. */
function recordingBar(): ProgressReporter & { updates: ProgressState[]; shown: () => string } {
  const updates: ProgressState[] = [];
  return {
    mode: 'bar',
    updates,
    update: (s) => updates.push(s),
    log: () => undefined,
    stop: () => undefined,
    // the last bar as the format draws it, the bar itself left out
    shown: () => {
      const last = updates.at(-1);
      if (!last) return '';
      const tokens: Record<string, string> = { ...last.payload, value: String(last.value), total: String(last.total), bar: '█'.repeat(10), eta_formatted: '0s' };
      return BATCH_BAR.replace(/\{(\w+)\}/g, (_, k: string) => tokens[k] ?? '');
    },
  };
}

const N = 1000;
const QUERIES = ['[origin] [delay] top 10', '[destination] [distance]', '[date].monthly [delay]', "[origin] [delay] [origin] = 'SEA'", '[distance] [delay] top 5'];
const r2 = (x: number): number => Math.round(x * 100) / 100;

export async function run(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-bench-tml-'));
  const emu = await startEmulator({ port: 0, dataDir, demo: true, now: '2001-06-15T12:00:00Z' });
  const client = new AnalyticsServiceClient({ url: emu.url, username: 'tsadmin', password: 'admin', apiVersion: 'v2' });
  try {
    const tml = (i: number): string => `answer:\n  name: Bench answer ${i}\n  tables:\n  - name: flights\n  search_query: "${QUERIES[i % QUERIES.length]!.replace(/"/g, '\\"')}"\n`;
    const ids: string[] = [];
    let t = performance.now();
    for (let i = 0; i < N; i += TML_BATCH_SIZE) {
      const batch = Array.from({ length: Math.min(TML_BATCH_SIZE, N - i) }, (_, k) => tml(i + k));
      for (const r of await client.importTml(batch, 'PARTIAL')) {
        if (r.status.status_code !== 'OK' || !r.header?.id_guid) throw new Error(`import failed: ${r.status.error_message ?? r.status.status_code}`);
        ids.push(r.header.id_guid);
      }
    }
    const importMs = performance.now() - t;

    const out = join(dataDir, 'export');
    const exportBar = recordingBar();
    const nowhere = new Writable({ write: (_chunk, _enc, done) => done() });
    t = performance.now();
    const exported = await runTmlExport(client, ids, { out, progress: exportBar, stdout: nowhere });
    const exportMs = performance.now() - t;
    if (exported.written !== N) throw new Error(`${N - exported.written} answers were not exported`);
    const files = readdirSync(out).map((f) => join(out, f));
    const validateBar = recordingBar();
    t = performance.now();
    const errors = await runTmlValidate(client, files, { format: 'text', progress: validateBar });
    const validateMs = performance.now() - t;
    if (errors) throw new Error(`${errors} errors in the exported answers`);

    const flights = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'flights' })).find((h) => h.name === 'flights')!.id;
    t = performance.now();
    for (let i = 0; i < N; i++) await client.searchData({ dataSourceGuid: flights, queryString: QUERIES[i % QUERIES.length]!, batchSize: 10 });
    const searchdataMs = performance.now() - t;

    return {
      answers: N,
      batchSize: TML_BATCH_SIZE,
      batches: exported.batches,
      exportBar: { updates: exportBar.updates.length, last: exportBar.shown() },
      validateBatches: validateBar.updates.length,
      validateBar: { updates: validateBar.updates.length, last: validateBar.shown() },
      importMs: r2(importMs),
      exportMs: r2(exportMs),
      validateMs: r2(validateMs),
      exportAndValidateMs: r2(exportMs + validateMs),
      searchdataCalls: N,
      searchdataMs: r2(searchdataMs),
      ratio: r2((exportMs + validateMs) / searchdataMs),
    };
  } finally {
    await client.close();
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
