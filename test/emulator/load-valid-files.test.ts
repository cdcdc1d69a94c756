// Valid files load on the service side (the emulator's commit), each case reproduced against the real
// emulator through the data-load API: a CR inside a quoted field of the first record (the staged read_csv
// took CR for the line end and refused the part), CR-only line ends (records split by the shared
// record-boundary scanner, common/src/load/recordBoundary.ts), and a chunk cut off while a cancel
// races it (no chunk-N.part left). Also: a password change ends the user's load-API sessions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { def, LOADER, session, startLoadLive, type LoadLive } from './load-support';

let live: LoadLive;
before(async () => {
  live = await startLoadLive();
});
after(async () => live?.stop());

test('a CR inside a quoted field of the first record loads (staged rows are read with LF line ends)', async () => {
  const s = await session(live.emu.url, LOADER);
  const { status } = await s.load(def('pairs', { load_options: { empty_target: true } }), '1,"a\rb"\n2,"c\r\nd"\n3,"e"\n');
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  assert.deepEqual(await live.rows('pairs'), [
    { id: 1, name: 'a\rb' },
    { id: 2, name: 'c\r\nd' },
    { id: 3, name: 'e' },
  ]);
});

test('a CR inside a quoted field of the first record loads with a header row and through the slow path too', async () => {
  const s = await session(live.emu.url, LOADER);
  const { status } = await s.load(def('pairs', { format: { has_header_row: true }, load_options: { empty_target: true, max_ignored_rows: 1 } }), 'id,name\n1,"x\ry"\nbad,row\n2,z\n');
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  assert.equal(status.ignored_row_count, '1');
  assert.deepEqual(await live.rows('pairs'), [
    { id: 1, name: 'x\ry' },
    { id: 2, name: 'z' },
  ]);
});

test('CR-only line ends end records, with a CR inside a quoted value too', async () => {
  const s = await session(live.emu.url, LOADER);
  const { status } = await s.load(def('pairs', { format: { has_header_row: true }, load_options: { empty_target: true } }), 'id,name\r1,one\r2,"two\rlines"\r3,three\r');
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  assert.deepEqual(await live.rows('pairs'), [
    { id: 1, name: 'one' },
    { id: 2, name: 'two\rlines' },
    { id: 3, name: 'three' },
  ]);
});

test('a chunk upload cut off while a cancel races it leaves no chunk-N.part file', async () => {
  const s = await session(live.emu.url, LOADER);
  for (let round = 0; round < 5; round++) {
    const { cycleId } = await s.start(def('pairs'));
    const id = cycleId as string;
    const port = Number(new URL(live.emu.url).port);
    const boundary = 'XyZ';
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="c.csv"\r\ncontent-type: text/csv\r\n\r\n1,one\n`;
    // announce a body far longer than what is sent, then cut the connection and cancel at once
    const sock = connect(port, '127.0.0.1');
    await new Promise<void>((r) => sock.once('connect', r));
    sock.write(
      `POST /ts_dataservice/v1/public/loads/${id} HTTP/1.1\r\nhost: x\r\ncookie: ${s.cookie}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: 100000\r\n\r\n${head}`,
    );
    await new Promise((r) => setTimeout(r, round * 5));
    sock.resetAndDestroy();
    assert.equal((await s.cancel(id)).status, 200);
    await new Promise((r) => setTimeout(r, 200));
    const files = readdirSync(join(live.dataDir, 'cycles', id)).filter((f) => f.startsWith('chunk-'));
    assert.deepEqual(files, [], `round ${round}: no chunk or .part file left`);
  }
});

test('a password change ends the user\'s load-API sessions, as it ends their public-API sessions', async () => {
  const s = await session(live.emu.url, LOADER);
  const unknownCycle = '/ts_dataservice/v1/public/loads/2b1f0c4e-1111-4111-8111-111111111111';
  assert.equal((await s.call('GET', unknownCycle)).status, 400, 'the session is known (the cycle is not)');
  const login = await fetch(`${live.emu.url}/callosum/v1/tspublic/v1/session/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ username: LOADER.username, password: LOADER.password }),
  });
  assert.ok(login.status < 300, String(login.status));
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const change = await fetch(`${live.emu.url}/callosum/v1/tspublic/v1/user/updatepassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', cookie },
    body: new URLSearchParams({ name: LOADER.username, currentpassword: LOADER.password, password: 'a-new-secret' }),
  });
  assert.equal(change.status, 200, await change.text());
  try {
    const after = await s.call('GET', unknownCycle);
    assert.equal(after.status, 401, 'the old load session is over');
    assert.equal(after.text, 'Unable to verify user. Please login again.');
    assert.equal((await s.login(LOADER)).status, 401, 'the old password no longer logs in');
    assert.equal((await s.login({ username: LOADER.username, password: 'a-new-secret' })).status, 200);
  } finally {
    // put the password back for the other tests
    await fetch(`${live.emu.url}/callosum/v1/tspublic/v1/user/updatepassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', cookie },
      body: new URLSearchParams({ name: LOADER.username, currentpassword: 'a-new-secret', password: LOADER.password }),
    });
  }
});
