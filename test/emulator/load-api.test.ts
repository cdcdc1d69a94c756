// The data-load API over HTTP (docs/service-interface.md §4.1, 5, 7; docs/service-notes.md §4): sessions per node, privileges, every
// error row of docs/service-interface.md §7 with its exact status and text, the plain-text bodies, status and
// input_summary, and cycle ids that try to leave the data directory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, DB, LOADER, VIEWER, LoadSession, def, session, startLoadLive, type LoadLive } from './load-support';

let live: LoadLive;
before(async () => {
  live = await startLoadLive();
});
after(async () => {
  await live?.stop();
});

const MSG_401 = 'Unable to verify user. Please login again.';
const MSG_403 = 'User does not have required privileges. Please contact your administrator.';

test('Login accepts JSON and form bodies and sets a JSESSIONID cookie; a wrong password is 401 with the seed text', async () => {
  const json = new LoadSession(live.emu.url);
  const a = await json.login(LOADER);
  assert.equal(a.status, 200);
  assert.match(a.headers.get('set-cookie') ?? '', /^JSESSIONID=[0-9a-f-]{36}; .*HttpOnly/i);
  const form = new LoadSession(live.emu.url);
  assert.equal((await form.login(LOADER, true)).status, 200);
  assert.notEqual(form.cookie, json.cookie, 'each login is its own session');
  for (const wrong of [{ ...LOADER, password: 'nope' }, { username: 'ghost', password: 'x' }]) {
    const w = new LoadSession(live.emu.url);
    const r = await w.login(wrong);
    assert.equal(r.status, 401);
    assert.equal(r.text, MSG_401);
    assert.equal(w.cookie, undefined);
  }
  const empty = await new LoadSession(live.emu.url).call('POST', '/ts_dataservice/v1/public/session', '{', { 'content-type': 'application/json' });
  assert.equal(empty.status, 401, 'a body that is not JSON cannot verify anyone');
  assert.equal(empty.text, MSG_401);
});

test('every load call without a session, or with a session unknown to the node, is 401 with the seed text', async () => {
  const anon = new LoadSession(live.emu.url);
  const forged = new LoadSession(live.emu.url);
  forged.cookie = 'JSESSIONID=2b1f0c4e-0000-4000-8000-000000000000';
  const id = '2b1f0c4e-1111-4111-8111-111111111111';
  for (const s of [anon, forged]) {
    for (const [method, path] of [
      ['POST', '/ts_dataservice/v1/public/loads'],
      ['POST', `/ts_dataservice/v1/public/loads/${id}`],
      ['POST', `/ts_dataservice/v1/public/loads/${id}/commit`],
      ['POST', `/ts_dataservice/v1/public/loads/${id}/cancel`],
      ['GET', `/ts_dataservice/v1/loads/${id}`],
      ['GET', `/ts_dataservice/v1/public/loads/${id}`],
      ['GET', `/ts_dataservice/v1/public/loads/${id}/input_summary`],
      ['GET', `/ts_dataservice/v1/public/loads/${id}/bad_records_file`],
    ] as const) {
      const r = await s.call(method, path);
      assert.equal(r.status, 401, `${method} ${path}`);
      assert.equal(r.text, MSG_401);
      assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    }
  }
});

test('sessions are per node: a cookie from the main port is refused on the load port, and the other way round', async () => {
  assert.ok(live.emu.loadUrl);
  const main = await session(live.emu.url, LOADER);
  const onLoadPort = new LoadSession(live.emu.loadUrl);
  onLoadPort.cookie = main.cookie;
  const unknown = '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111';
  const r = await onLoadPort.call('GET', unknown);
  assert.equal(r.status, 401);
  assert.equal(r.text, MSG_401);
  const load = await session(live.emu.loadUrl, LOADER);
  assert.equal((await load.call('GET', unknown)).status, 400, 'known session, unknown cycle');
  const back = new LoadSession(live.emu.url);
  back.cookie = load.cookie;
  assert.equal((await back.call('GET', unknown)).status, 401);
});

test('ping needs no session: 200 "Ping Received." with no cookie, on every node (the docs\' set-up step 6, the reference client\'s ping)', async () => {
  for (const url of [live.emu.url, live.emu.loadUrl as string]) {
    const r = await new LoadSession(url).call('GET', '/ts_dataservice/v1/public/ping');
    assert.equal(r.status, 200, url);
    assert.equal(r.text, 'Ping Received.');
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  }
});

test('StartLoad names the load port as node_address; the cycle is then served on that node after a new login there', async () => {
  const main = await session(live.emu.url, LOADER);
  const s = await main.start(def('pairs'));
  assert.equal(s.status, 200);
  assert.match(s.headers.get('content-type') ?? '', /^text\/plain/);
  const node = s.nodeAddress as { host: string; port: number };
  assert.equal(`http://${node.host}:${node.port}`, live.emu.loadUrl);
  const onNode = await session(`http://${node.host}:${node.port}`, LOADER);
  const u = await onNode.upload(s.cycleId as string, '1,a\n');
  assert.equal(u.status, 200);
  assert.equal(u.text, 'Upload Complete.');
  const c = await onNode.commit(s.cycleId as string);
  assert.equal(c.status, 200);
  assert.equal(c.text, 'Commit load cycle request made.');
  const st = await onNode.waitDone(s.cycleId as string);
  assert.deepEqual(st.status, { code: 'OK' });
});

test('403 with the seed text for a user without DATAMANAGEMENT or ADMINISTRATION, on every call but Login and ping', async () => {
  const loader = await session(live.emu.url, LOADER);
  const { cycleId } = await loader.start(def('pairs'));
  const viewer = await session(live.emu.url, VIEWER);
  const calls: [string, string, BodyInit | undefined][] = [
    ['POST', '/ts_dataservice/v1/public/loads', JSON.stringify(def('pairs'))],
    ['POST', `/ts_dataservice/v1/public/loads/${cycleId}/commit`, undefined],
    ['POST', `/ts_dataservice/v1/public/loads/${cycleId}/cancel`, undefined],
    ['GET', `/ts_dataservice/v1/loads/${cycleId}`, undefined],
    ['GET', `/ts_dataservice/v1/public/loads/${cycleId}`, undefined],
    ['GET', `/ts_dataservice/v1/public/loads/${cycleId}/input_summary`, undefined],
    ['GET', `/ts_dataservice/v1/public/loads/${cycleId}/bad_records_file`, undefined],
  ];
  for (const [method, path, body] of calls) {
    const r = await viewer.call(method, path, body, body ? { 'content-type': 'application/json' } : {});
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.text, MSG_403);
  }
  const up = await viewer.upload(cycleId as string, '1,a\n');
  assert.equal(up.status, 403);
  assert.equal(up.text, MSG_403);
  // the administrator may load too
  const admin = await session(live.emu.url, ADMIN);
  assert.equal((await admin.call('GET', `/ts_dataservice/v1/public/loads/${cycleId}`)).status, 200);
  await loader.cancel(cycleId as string);
});

test('privileges are checked on every call: a session loses its rights as soon as the privileges of the user are withdrawn', async () => {
  const loader = await session(live.emu.url, LOADER);
  const original = live.emu.ctx.userById;
  live.emu.ctx.userById = (id) => {
    const u = original(id);
    return u && { ...u, privileges: new Set() };
  };
  try {
    const r = await loader.call('GET', '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111');
    assert.equal(r.status, 403);
  } finally {
    live.emu.ctx.userById = original;
  }
  assert.equal((await loader.call('GET', '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111')).status, 400, 'allowed again: the cycle is unknown');
});

test('500 with the seed text when the authentication service cannot be resolved', async () => {
  const loader = await session(live.emu.url, LOADER);
  const { userById, verifyPassword } = live.emu.ctx;
  live.emu.ctx.userById = () => {
    throw new Error('directory down');
  };
  live.emu.ctx.verifyPassword = async () => {
    throw new Error('directory down');
  };
  try {
    const r = await loader.call('GET', '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111');
    assert.equal(r.status, 500);
    assert.equal(r.text, "error code = INTERNAL, message = Couldn't resolve the authentication service.");
    const l = await new LoadSession(live.emu.url).login(LOADER);
    assert.equal(l.status, 500);
    assert.equal(l.text, "error code = INTERNAL, message = Couldn't resolve the authentication service.");
  } finally {
    Object.assign(live.emu.ctx, { userById, verifyPassword });
  }
});

test('400 "Invalid input params for starting data load: Request body" for an invalid load definition', async () => {
  const s = await session(live.emu.url, LOADER);
  const bodies: [BodyInit, string][] = [
    ['{"target": ', 'application/json'],
    ['[]', 'application/json'],
    [JSON.stringify({ target: { database: DB } }), 'application/json'],
    [JSON.stringify({ target: { database: DB, table: 'pairs' }, format: { type: 'xml' } }), 'application/json'],
    [JSON.stringify({ target: { database: DB, table: 'pairs' }, format: { date_time: { date_format: '%Y-%K' } } }), 'application/json'],
    [JSON.stringify({ target: { database: DB, table: 'pairs' }, load_options: { max_ignored_rows: -1 } }), 'application/json'],
    ['', 'application/json'],
  ];
  for (const [body, type] of bodies) {
    const r = await s.call('POST', '/ts_dataservice/v1/public/loads', body, { 'content-type': type });
    assert.equal(r.status, 400, String(body));
    assert.equal(r.text, 'Invalid input params for starting data load: Request body');
  }
  const detail = await s.call('POST', '/ts_dataservice/v1/public/loads', JSON.stringify({ target: { database: DB } }), { 'content-type': 'application/json' });
  assert.equal(detail.headers.get('x-tsq-detail'), 'target.table is required', 'the detail names the member');
  const odd = await s.call('POST', '/ts_dataservice/v1/public/loads', JSON.stringify({ target: { database: DB, table: 'pairs' }, format: { type: 'x\nyé' } }), { 'content-type': 'application/json' });
  assert.equal(odd.status, 400, 'a value that cannot go in a header is still a 400');
  assert.equal(odd.headers.get('x-tsq-detail'), "format.type must be csv or delimited, not 'x?y?'");
});

test('StartLoad takes the flat form of the seed example too, as JSON or as a form', async () => {
  const s = await session(live.emu.url, LOADER);
  const flat = { target_database: DB, target_table: 'pairs', field_separator: '|', empty_target: 'false' };
  const r = await s.call('POST', '/ts_dataservice/v1/public/loads', new URLSearchParams(flat));
  assert.equal(r.status, 200, r.text);
  const id = (JSON.parse(r.text) as { cycle_id: string }).cycle_id;
  const summary = await s.call('GET', `/ts_dataservice/v1/public/loads/${id}/input_summary`);
  assert.equal(summary.status, 200);
  assert.deepEqual(JSON.parse(summary.text), { load_params: flat });
  assert.equal((await s.upload(id, '7|seven\n')).status, 200);
  await s.commit(id);
  assert.deepEqual((await s.waitDone(id)).status, { code: 'OK' });
  assert.ok((await live.rows('pairs')).some((row) => row.id === 7 && row.name === 'seven'));
});

test('400 "Unable to find table in the engine. Cannot load data." on Load when the target table does not exist', async () => {
  const s = await session(live.emu.url, LOADER);
  const started = await s.start({ target: { database: DB, table: 'no_such_table' } });
  assert.equal(started.status, 200);
  const r = await s.upload(started.cycleId as string, '1,a\n');
  assert.equal(r.status, 400);
  assert.equal(r.text, 'Unable to find table in the engine. Cannot load data.');
});

test('400 "Cannot connect to the engine manager." on Load when the engine cannot be asked', async () => {
  const s = await session(live.emu.url, LOADER);
  const { cycleId } = await s.start(def('pairs'));
  const findTable = live.emu.ctx.findTable;
  live.emu.ctx.findTable = () => {
    throw new Error('engine manager unreachable');
  };
  try {
    const r = await s.upload(cycleId as string, '1,a\n');
    assert.equal(r.status, 400);
    assert.equal(r.text, 'Cannot connect to the engine manager.');
  } finally {
    live.emu.ctx.findTable = findTable;
  }
  await s.cancel(cycleId as string);
});

test('unknown cycles: 400 on Load, status, input_summary and cancel; 500 on CommitLoad; 500 for a missing bad records file', async () => {
  const s = await session(live.emu.url, LOADER);
  const id = '0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0d';
  const up = await s.upload(id, '1,a\n');
  assert.equal(up.status, 400);
  assert.equal(up.text, `Cycle_id=[${id}] does not exist.`);
  for (const path of [`/ts_dataservice/v1/public/loads/${id}`, `/ts_dataservice/v1/loads/${id}`, `/ts_dataservice/v1/public/loads/${id}/input_summary`]) {
    const r = await s.call('GET', path);
    assert.equal(r.status, 400, path);
    assert.equal(r.text, `Cycle_id=[${id}] does not exist.`);
  }
  assert.equal((await s.cancel(id)).text, `Cycle_id=[${id}] does not exist.`);
  const c = await s.commit(id);
  assert.equal(c.status, 500);
  assert.equal(c.text, `Commit load cycle failed. Error ending load. Unknown cycle_id '${id}'`);
  const b = await s.badRecords(id);
  assert.equal(b.status, 500);
  assert.equal(b.text, `Node does not exist: /tmp/${id}.bad_record`);
  // a cycle that loaded cleanly has no bad records file either
  const { cycleId } = await s.load(def('other'), '1,x\n');
  const none = await s.badRecords(cycleId);
  assert.equal(none.status, 500);
  assert.equal(none.text, `Node does not exist: /tmp/${cycleId}.bad_record`);
});

test('a cycle id that tries to leave the data directory is refused and touches no file', async () => {
  const s = await session(live.emu.url, LOADER);
  const before = readdirSync(live.dataDir).sort();
  for (const id of ['..%2F..%2Fengine.duckdb', '..%2F..', '..%5C..%5Cengine.duckdb', 'abc%00', encodeURIComponent('/etc/passwd'), 'not-a-uuid']) {
    const decoded = decodeURIComponent(id);
    const up = await s.call('POST', `/ts_dataservice/v1/public/loads/${id}`, (() => {
      const f = new FormData();
      f.append('file', new Blob(['1,a\n']), 'x.csv');
      return f;
    })());
    assert.equal(up.status, 400, id);
    assert.equal(up.text, `Cycle_id=[${decoded}] does not exist.`);
    assert.equal((await s.commit(id)).status, 500);
    assert.equal((await s.call('GET', `/ts_dataservice/v1/public/loads/${id}`)).status, 400);
    const bad = await s.badRecords(id);
    assert.equal(bad.status, 500);
    assert.doesNotMatch(bad.text, /root:|SQLite|DUCK/);
  }
  assert.deepEqual(readdirSync(live.dataDir).sort(), before, 'no file was created outside the cycles folder');
  assert.ok(!existsSync(join(live.dataDir, 'cycles', '..', 'chunk-1')));
});

test('status: stages, counts as strings, times in epoch microseconds, both paths; Load after commit is refused', async () => {
  const s = await session(live.emu.url, LOADER);
  const started = await s.start(def('other'));
  const id = started.cycleId as string;
  const open = await s.status(id);
  assert.equal(open.internal_stage, 'INGESTING');
  assert.deepEqual(open.status, {});
  assert.equal(open.cycle_id, id);
  assert.equal((await s.upload(id, '10,ten\n11,eleven\n', 'documents')).status, 200, 'the form field name does not matter');
  assert.equal((await s.upload(id, '12,twelve\n', 'upload-file')).status, 200);
  assert.equal((await s.status(id)).ingested_network_bw, String('10,ten\n11,eleven\n'.length + '12,twelve\n'.length));
  await s.commit(id);
  const done = await s.waitDone(id);
  assert.equal(done.internal_stage, 'DONE');
  assert.deepEqual(done.status, { code: 'OK' });
  assert.equal(done.rows_written, '3');
  assert.equal(done.ignored_row_count, '0');
  assert.equal(done.parsing_errors, undefined);
  assert.match(String(done.start_time), /^\d{16}$/);
  assert.ok(Number(done.end_time) >= Number(done.start_time));
  const other = await s.call('GET', `/ts_dataservice/v1/loads/${id}`);
  assert.equal(other.status, 200);
  assert.deepEqual(JSON.parse(other.text), done);
  const late = await s.upload(id, '13,x\n');
  assert.equal(late.status, 400);
  assert.match(late.text, /no longer accepts data/);
  const again = await s.commit(id);
  assert.equal(again.status, 500);
  assert.match(again.text, /^Commit load cycle failed\. Error ending load\./);
  assert.equal((await s.cancel(id)).status, 400, 'a committed cycle cannot be cancelled');
});

test('Load needs a multipart body with at least one part; X-ts-chunks on commit must match the chunks received', async () => {
  const s = await session(live.emu.url, LOADER);
  const { cycleId } = await s.start(def('other'));
  const id = cycleId as string;
  const plain = await s.call('POST', `/ts_dataservice/v1/public/loads/${id}`, '1,a\n', { 'content-type': 'text/csv' });
  assert.equal(plain.status, 400);
  assert.match(plain.text, /multipart\/form-data/);
  const none = await s.call('POST', `/ts_dataservice/v1/public/loads/${id}`, new FormData());
  assert.equal(none.status, 400);
  assert.equal((await s.upload(id, '1,a\n')).status, 200);
  const wrong = await s.commit(id, { 'X-ts-chunks': '2' });
  assert.equal(wrong.status, 500);
  assert.match(wrong.text, /2 chunks were announced \(X-ts-chunks\) but 1 were received/);
  assert.equal((await s.status(id)).internal_stage, 'INGESTING', 'the cycle stays open');
  assert.equal((await s.commit(id, { 'X-ts-chunks': '1' })).status, 200);
  assert.deepEqual((await s.waitDone(id)).status, { code: 'OK' });
});

test('the status of a cycle survives a restart of the emulator; an open cycle can still be committed', async () => {
  const s = await session(live.emu.url, LOADER);
  const { cycleId: doneId } = await s.load(def('other', { load_options: { max_ignored_rows: 5 } }), '20,a\nbad\n');
  const openId = (await s.start(def('other'))).cycleId as string;
  assert.equal((await s.upload(openId, '21,b\n')).status, 200);
  const before = await s.status(doneId);
  await live.restart();
  const s2 = await session(live.emu.url, LOADER);
  const stale = new LoadSession(live.emu.url);
  stale.cookie = s.cookie;
  assert.equal((await stale.call('GET', '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111')).status, 401, 'sessions do not survive a restart');
  assert.deepEqual(await s2.status(doneId), before);
  assert.equal((await s2.badRecords(doneId)).text, 'bad\n');
  assert.equal((await s2.commit(openId)).status, 200);
  assert.deepEqual((await s2.waitDone(openId)).status, { code: 'OK' });
  const rows = await live.rows('other');
  assert.ok(rows.some((r) => r.id === 21 && r.label === 'b'));
});
