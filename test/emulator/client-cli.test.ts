// The emulator end to end, through the built program: `node dist/emulator.js --demo --port 0`
// serves both APIs; a demo CSV (vega-datasets seattle-weather.csv) is loaded through common/src/api —
// started, uploaded in chunks, committed, polled to DONE — and queried back through searchdata, the
// answer checked against the CSV itself (parsed with csv-parse, no DuckDB involved).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { AnalyticsServiceClient } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';
import { vegaDataDir } from '../../emulator/src/demo';

const root = join(__dirname, '..', '..');

test('node dist/emulator.js --demo --port 0: a demo CSV loads in chunks through the client and is queried back', async (t) => {
  const program = join(root, 'dist', 'emulator.js');
  assert.ok(existsSync(program), 'dist/emulator.js is built (npm run build)');
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-client-cli-'));
  const child = spawn(process.execPath, [program, '--demo', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening: ${out}`)));
  });
  const client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
  t.after(() => client.close());

  const file = join(vegaDataDir(), 'seattle-weather.csv');
  const chunks: number[] = [];
  const result = await runLoad(
    client,
    { stream: createReadStream(file, { highWaterMark: 4096 }) },
    {
      target: { database: 'demo', table: 'seattle-weather' },
      format: { type: 'CSV', has_header_row: true, date_time: { converted_to_epoch: false, date_format: '%Y-%m-%d' } },
      load_options: { empty_target: true },
    },
    { chunkBytes: 8 * 1024, pollIntervalMs: 20, progressIntervalMs: 0, onProgress: (p) => chunks.push(p.bytesSent) },
  );
  const records = parse(readFileSync(file), { columns: true }) as { date: string; precipitation: string; weather: string }[];
  assert.ok(result.chunks >= 5, `${result.chunks} chunks`);
  assert.equal(result.status.internalStage, 'DONE');
  assert.equal(result.status.rowsWritten, records.length);
  assert.equal(result.status.ignoredRowCount, 0);

  const [weather] = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'seattle-weather' })).filter((h) => h.name === 'seattle-weather');
  assert.ok(weather);
  const answer = await client.searchData({ queryString: '[weather] [precipitation]', dataSourceGuid: weather.id });
  const want = new Map<string, number>();
  for (const r of records) want.set(r.weather, (want.get(r.weather) ?? 0) + Number(r.precipitation));
  assert.equal(answer.totalRowCount, want.size);
  for (const [w, p] of answer.data as [string, number][]) {
    assert.ok(want.has(w), w);
    assert.ok(Math.abs(p - want.get(w)!) < 1e-6 * Math.max(1, Math.abs(p)), `${w}: ${p} vs ${want.get(w)}`);
  }
});
