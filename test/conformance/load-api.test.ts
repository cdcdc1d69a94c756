// Conformance of the data-load API (docs/service-interface.md §4.1) with the tsload connector reference
// (https://docs.thoughtspot.com/software/6.2/tsload-service-api-ref.html, same content at
// https://docs.thoughtspot.com/software/8.4.1.sw/tsload-api): each request as the reference writes it
// (Login with a JSON body and `Accept`/`Content-type: application/json`, StartLoad with the load
// definition, Load as multipart/form-data with the chunk as a file part, Commit and Cancel with no body,
// the status under `/ts_dataservice/v1/loads/{cycle_id}`), checking status, content type and body; then the
// same load through TSQ's client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { AnalyticsServiceClient } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';

let emu: RunningEmulator;
let dataDir: string;
const BASE = '/ts_dataservice/v1';

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-conformance-load-'));
  const seed = join(dataDir, 'seed');
  mkdirSync(seed);
  writeFileSync(join(seed, 'model.json'), JSON.stringify({ tables: [{ database: 'conf', name: 'people', columns: [{ name: 'name', dataType: 'VARCHAR' }, { name: 'age', dataType: 'INT64' }] }] }));
  emu = await startEmulator({ port: 0, dataDir: join(dataDir, 'state'), seed });
});
after(async () => {
  await emu?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function send(path: string, init: RequestInit): Promise<{ status: number; contentType: string; text: string; headers: Headers }> {
  const r = await fetch(emu.url + path, init);
  return { status: r.status, contentType: r.headers.get('content-type') ?? '', text: await r.text(), headers: r.headers };
}

/** Polls the status (GET /ts_dataservice/v1/loads/{cycle_id}) until internal_stage is DONE or a status code says it failed. */
async function untilDone(cycleId: string, cookie: string): Promise<Record<string, unknown>> {
  for (;;) {
    const s = await send(`${BASE}/loads/${cycleId}`, { headers: { cookie } });
    assert.equal(s.status, 200, s.text);
    const body = JSON.parse(s.text) as { internal_stage?: string; status?: { code?: string } };
    if (body.internal_stage === 'DONE' || (body.status?.code && body.status.code !== 'OK')) return body as Record<string, unknown>;
    await new Promise((done) => setImmediate(done));
  }
}

test('Login, StartLoad, Load, Commit and the status, each as the tsload connector reference writes it', async () => {
  // POST /ts_dataservice/v1/public/session, Accept: application/json, Content-type: application/json → 200, Set-cookie
  const login = await send(`${BASE}/public/session`, { method: 'POST', headers: { Accept: 'application/json', 'Content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  assert.equal(login.status, 200, login.text);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  assert.match(cookie, /JSESSIONID=/);
  // StartLoad: the load definition → 200, text/plain, the JSON {node_address, cycle_id}
  const definition = { target: { database: 'conf', table: 'people' }, format: { type: 'CSV', field_separator: ',', has_header_row: true }, load_options: { empty_target: true } };
  const start = await send(`${BASE}/public/loads`, { method: 'POST', headers: { 'Content-type': 'application/json', cookie }, body: JSON.stringify(definition) });
  assert.equal(start.status, 200, start.text);
  assert.match(start.contentType, /^text\/plain/);
  const { cycle_id: cycleId, node_address: node } = JSON.parse(start.text) as { cycle_id: string; node_address: unknown };
  assert.equal(typeof cycleId, 'string');
  assert.equal(typeof node, 'object');
  // Load: multipart/form-data, one file part with a filename → 200, text/plain
  const form = new FormData();
  form.append('file', new Blob(['name,age\nada,36\ngrace,45\n'], { type: 'text/csv' }), 'people.csv');
  const load = await send(`${BASE}/public/loads/${cycleId}`, { method: 'POST', headers: { cookie }, body: form });
  assert.equal(load.status, 200, load.text);
  assert.match(load.contentType, /^text\/plain/);
  // CommitLoad: no body → 200, text/plain
  const commit = await send(`${BASE}/public/loads/${cycleId}/commit`, { method: 'POST', headers: { cookie } });
  assert.equal(commit.status, 200, commit.text);
  assert.match(commit.contentType, /^text\/plain/);
  const status = await untilDone(cycleId, cookie);
  assert.equal(status.internal_stage, 'DONE');
  // AbortLoad of another cycle → 200, text/plain
  const second = JSON.parse((await send(`${BASE}/public/loads`, { method: 'POST', headers: { 'Content-type': 'application/json', cookie }, body: JSON.stringify(definition) })).text) as { cycle_id: string };
  const cancel = await send(`${BASE}/public/loads/${second.cycle_id}/cancel`, { method: 'POST', headers: { cookie } });
  assert.equal(cancel.status, 200, cancel.text);
  assert.match(cancel.contentType, /^text\/plain/);
  // the reference's example request also shows a flat body (target_database, target_table, field_separator, empty_target)
  const flat = await send(`${BASE}/public/loads`, { method: 'POST', headers: { 'Content-type': 'application/json', cookie }, body: JSON.stringify({ target_database: 'conf', target_table: 'people', field_separator: ',', empty_target: true }) });
  assert.equal(flat.status, 200, flat.text);
  const third = JSON.parse(flat.text) as { cycle_id: string };
  assert.equal((await send(`${BASE}/public/loads/${third.cycle_id}/cancel`, { method: 'POST', headers: { cookie } })).status, 200);
  // an unknown cycle: 400 with the reference's text
  const unknown = '2b1f0c4e-1111-4111-8111-111111111111';
  const missing = await send(`${BASE}/public/loads/${unknown}`, { method: 'POST', headers: { cookie }, body: form });
  assert.equal(missing.status, 400);
  assert.equal(missing.text, `Cycle_id=[${unknown}] does not exist.`);
});

test('the same load through TSQ client: login, start, multipart upload, commit, poll', async () => {
  const client = new AnalyticsServiceClient({ url: emu.url, username: 'tsadmin', password: 'admin' });
  try {
    const result = await runLoad(client, { stream: Readable.from([Buffer.from('name,age\nlin,29\n')]) }, { target: { database: 'conf', table: 'people' }, format: { type: 'CSV', has_header_row: true }, load_options: { empty_target: true } });
    assert.equal(result.status.internalStage, 'DONE');
  } finally {
    await client.close();
  }
});
