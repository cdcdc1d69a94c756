// The requests of ThoughtSpot's reference tsload client, replayed against the emulator as the client sends
// them: thoughtspot/community-tools `python_tools/remote_tools/data_importer_client.py` (MIT), the "included
// Python3 client" of https://docs.thoughtspot.com/software/8.4.1.sw/tsload-connector. Its `main` runs: ping
// (no cookie); a form login (`Accept: text/plain`); StartLoad with the `makeLoadParams` JSON as the body and no
// Content-Type (requests sends a str body without one); `GET /loads/{id}/input_summary`; a second login on the
// node that `node_address` names; each file as one multipart part named `documents` (filename `filename`,
// `application/octet-stream`); commit with no body; the status until `internal_stage` is DONE or the status code
// is not OK; `bad_records_file` when `ignored_row_count` > 0. `cancelLoad` is one of its core methods too. Every
// step checks what the client checks: a 2xx status and the JSON it reads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';

let emu: RunningEmulator;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tsq-conformance-refclient-'));
  const seed = join(dir, 'seed');
  mkdirSync(seed);
  // the client's --target_schema defaults to falcon_default_schema and it always sends it
  const columns = [
    { name: 'name', dataType: 'VARCHAR' },
    { name: 'day', dataType: 'DATE' },
    { name: 'n', dataType: 'INT64' },
  ];
  writeFileSync(join(seed, 'model.json'), JSON.stringify({ tables: [{ database: 'etl', schema: 'falcon_default_schema', name: 'events', columns }] }));
  emu = await startEmulator({ port: 0, loadPort: 0, dataDir: join(dir, 'state'), seed });
});
after(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const PUBLIC = '/ts_dataservice/v1/public';

/** A requests.Session: keeps the cookies it is sent (per host:port, as the client's one session does). */
class PySession {
  private readonly jar = new Map<string, string>();
  async request(hostport: string, method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: BodyInit): Promise<{ status: number; text: string; contentType: string }> {
    const cookie = this.jar.get(hostport);
    const r = await fetch(`http://${hostport}${PUBLIC}${path}`, { method, headers: { ...(cookie ? { cookie } : {}), ...headers }, body });
    const set = r.headers.getSetCookie();
    if (set.length) this.jar.set(hostport, set.map((c) => c.split(';')[0]).join('; '));
    return { status: r.status, text: await r.text(), contentType: r.headers.get('content-type') ?? '' };
  }
}

/** `status_code // 100 == 2`, the client's check after every call. */
function ok(r: { status: number; text: string }, step: string): void {
  assert.equal(Math.floor(r.status / 100), 2, `${step}: ${r.status} ${r.text}`);
}

/** `login()`: a urlencoded body, Content-type application/x-www-form-urlencoded, Accept text/plain. */
async function login(s: PySession, hostport: string): Promise<void> {
  const body = new URLSearchParams({ username: 'tsadmin', password: 'admin' }).toString();
  ok(await s.request(hostport, 'POST', '/session', { 'Content-type': 'application/x-www-form-urlencoded', Accept: 'text/plain' }, body), 'login');
}

/** `startLoad()`: `session.post(url, data=json.dumps(load_params))`: the JSON as bytes, no Content-Type header. */
async function startLoad(s: PySession, hostport: string, loadParams: unknown): Promise<{ loadHostport: string; cycleId: string }> {
  const r = await s.request(hostport, 'POST', '/loads', {}, new TextEncoder().encode(JSON.stringify(loadParams)));
  ok(r, 'startLoad');
  // getCycleDetails: ret['cycle_id'], and node_address host:port when present
  const ret = JSON.parse(r.text) as { cycle_id: string; node_address?: { host: string; port: number } };
  assert.equal(typeof ret.cycle_id, 'string');
  return { cycleId: ret.cycle_id, loadHostport: ret.node_address ? `${ret.node_address.host}:${ret.node_address.port}` : hostport };
}

/** `load()`: MultipartEncoder({"documents": ('filename', f, "application/octet-stream")}). */
async function load(s: PySession, hostport: string, cycleId: string, data: string): Promise<void> {
  const form = new FormData();
  form.append('documents', new Blob([data], { type: 'application/octet-stream' }), 'filename');
  ok(await s.request(hostport, 'POST', `/loads/${cycleId}`, {}, form), 'load');
}

test("the reference client's main(): ping, login, startLoad, input_summary, login on node_address, load per file, commit, status, bad records", async () => {
  const base = new URL(emu.url).host;
  const s = new PySession();
  // ping(): requests.get(...) with no session, so no cookie
  const ping = await fetch(`http://${base}${PUBLIC}/ping`);
  assert.equal(ping.status, 200);
  assert.equal(await ping.text(), 'Ping Received.');
  await login(s, base);
  // makeLoadParams for: --target_database etl --target_table events --source_files a.csv b.csv --has_header_row
  //   --date_format %Y-%m-%d --max_ignored_rows 1 (defaults left out; converted_to_epoch only when true)
  const loadParams = {
    target: { database: 'etl', schema: 'falcon_default_schema', table: 'events' },
    format: { has_header_row: true, date_time: { date_format: '%Y-%m-%d' } },
    load_options: { max_ignored_rows: 1 },
  };
  const { loadHostport, cycleId } = await startLoad(s, base, loadParams);
  // 2a: the load parameters as the server received them
  const summary = await s.request(base, 'GET', `/loads/${cycleId}/input_summary`);
  ok(summary, 'getLoadParams');
  assert.deepEqual((JSON.parse(summary.text) as { load_params: unknown }).load_params, loadParams);
  // 3: another node: log in there too
  assert.notEqual(loadHostport, base, 'the emulator schedules the load on its load port');
  await login(s, loadHostport);
  // 4: one Load per file; each file has its header row
  await load(s, loadHostport, cycleId, 'name,day,n\nada,2024-01-31,1\ngrace,2024-02-29,2\n');
  await load(s, loadHostport, cycleId, 'name,day,n\nlin,2024-03-01,3\nbad,31/03/2024,4\n');
  // 5: commit, no body
  ok(await s.request(loadHostport, 'POST', `/loads/${cycleId}/commit`), 'commitLoad');
  // 6: getStatus until DONE or a status code that is not OK; int(status['ignored_row_count'])
  let status: { internal_stage?: string; status?: { code?: string }; ignored_row_count?: string | number; rows_written?: string | number };
  for (;;) {
    const r = await s.request(loadHostport, 'GET', `/loads/${cycleId}`);
    ok(r, 'getStatus');
    status = JSON.parse(r.text) as typeof status;
    if (status.internal_stage === 'DONE' || (status.status?.code !== undefined && status.status.code !== 'OK')) break;
    await new Promise((done) => setImmediate(done));
  }
  assert.equal(status.internal_stage, 'DONE');
  assert.deepEqual(status.status, { code: 'OK' });
  assert.equal(Number(status.rows_written), 3, 'text dates load: converted_to_epoch was left out and defaults to false');
  const ignored = Number.parseInt(String(status.ignored_row_count), 10);
  assert.equal(ignored, 1);
  // 6b: the bad records
  const bad = await s.request(loadHostport, 'GET', `/loads/${cycleId}/bad_records_file`);
  ok(bad, 'getBadRecords');
  assert.match(bad.text, /bad,31\/03\/2024,4/);
});

test("the reference client's cancelLoad(): a started cycle is cancelled with an empty POST", async () => {
  const base = new URL(emu.url).host;
  const s = new PySession();
  await login(s, base);
  const { loadHostport, cycleId } = await startLoad(s, base, { target: { database: 'etl', schema: 'falcon_default_schema', table: 'events' } });
  await login(s, loadHostport);
  await load(s, loadHostport, cycleId, 'zed,2024-04-01,9\n');
  ok(await s.request(loadHostport, 'POST', `/loads/${cycleId}/cancel`), 'cancelLoad');
  const st = await s.request(loadHostport, 'GET', `/loads/${cycleId}`);
  ok(st, 'getStatus');
  assert.equal((JSON.parse(st.text) as { status: { code: string } }).status.code, 'LOAD_FAILED');
});
