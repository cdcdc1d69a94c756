/**
 * A thousand answers as TML: the emulator (in process, demo data) holds 1,000 answers (imported in
 * batches of 50 first); through TSQ's client (common/src/api/tml.ts) their TML is exported and then
 * validated by the service (`VALIDATE_ONLY`) in batches of TML_BATCH_SIZE (50, the service's advice),
 * as `tsq tml export --all` and `tsq tml validate` do; beside it, the anchor: 1,000 searchdata calls of
 * the same queries, one after the other. Run: `npm run bench -- tml`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AnalyticsServiceClient, TML_BATCH_SIZE } from '../../common/src/api';
import { startEmulator } from '../../emulator/src/app';

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

    const progress: number[] = [];
    const texts: string[] = [];
    t = performance.now();
    for (let i = 0; i < N; i += TML_BATCH_SIZE) {
      for (const o of await client.exportTml(ids.slice(i, i + TML_BATCH_SIZE).map((identifier) => ({ identifier })), { format: 'YAML' })) texts.push(o.edoc);
      progress.push(texts.length);
    }
    const exportMs = performance.now() - t;
    t = performance.now();
    let valid = 0;
    for (let i = 0; i < N; i += TML_BATCH_SIZE) {
      for (const r of await client.importTml(texts.slice(i, i + TML_BATCH_SIZE), 'VALIDATE_ONLY')) if (r.status.status_code === 'OK') valid++;
    }
    const validateMs = performance.now() - t;
    if (valid !== N) throw new Error(`${N - valid} answers did not validate`);

    const flights = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'flights' })).find((h) => h.name === 'flights')!.id;
    t = performance.now();
    for (let i = 0; i < N; i++) await client.searchData({ dataSourceGuid: flights, queryString: QUERIES[i % QUERIES.length]!, batchSize: 10 });
    const searchdataMs = performance.now() - t;

    return {
      answers: N,
      batchSize: TML_BATCH_SIZE,
      batches: progress.length,
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
