// The emulator as a program and its state: `node dist/emulator.js` prints its URL and stops cleanly on
// SIGTERM; a seed folder (model.json + CSV, awkward names included) becomes queryable tables; GUIDs,
// passwords and privileges persist in --data-dir across restarts; demo passwords are refused off loopback.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/src/app';
import { stableGuid } from '../../emulator/src/guid';
import { PREFIX, startCore } from './core-support';
import { demoSeed } from '../../emulator/src/demo';

const root = join(__dirname, '..', '..');
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tsq-core-cli-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A seed folder with one CSV table whose names need quoting, a worksheet, an answer, a group and a user. */
function seedFolder(): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'sales.csv'),
    ['region,"unit ""price""",qty,sold on', 'east,1.5,3,2024-01-02', 'West,2.5,4,2024-02-03', 'east,1,10,2024-02-04', 'north,,1,2024-03-01'].join('\n'),
  );
  writeFileSync(
    join(dir, 'model.json'),
    JSON.stringify({
      groups: [{ name: 'Sellers', privileges: ['AUTHORING'] }, { name: 'Admins', privileges: ['ADMINISTRATION'] }],
      users: [{ name: 'sam', password: 's3cret', groups: ['Sellers'] }, { name: 'boss', password: 'b0ss', groups: ['Admins'] }],
      tables: [
        { database: 'shop', name: 'sa"les', csv: 'sales.csv', sharedWith: ['Sellers'], columns: undefined },
        { database: 'shop', schema: 'other', name: 'typed', columns: [{ name: 'id', dataType: 'INT64', kind: 'ATTRIBUTE' }, { name: 'amount', dataType: 'DOUBLE', aggregation: 'AVERAGE' }] },
      ],
      worksheets: [{ name: 'Sales WS', table: 'sa"les', sharedWith: ['Sellers'], columns: ['region', { name: 'Quantity', column: 'qty' }] }],
      answers: [{ name: 'By region', sharedWith: ['Sellers'], visualizations: [{ name: 'qty by region', dataSource: 'Sales WS', query: '[region] [Quantity]' }] }],
    }),
  );
  return dir;
}

function runCli(args: string[]): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'emulator.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^Analytics Service emulator listening on (http:\/\/\S+)$/m.exec(out);
      if (m)
        resolve({
          url: m[1]!,
          stop: () =>
            new Promise((res) => {
              child.once('exit', (code) => res(code));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${out}${err}`)));
  });
}

async function login(url: string, username: string, password: string): Promise<string | number> {
  const r = await fetch(`${url}${PREFIX}/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username, password }).toString() });
  if (r.status !== 200 && r.status !== 204) return r.status;
  return r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

describe('the command line', () => {
  test('prints the URL, serves a seed folder, and exits 0 on SIGTERM', async () => {
    const seed = seedFolder();
    const data = tempDir();
    const emu = await runCli(['--port', '0', '--seed', seed, '--data-dir', data]);
    let stopped = false;
    try {
      assert.match(emu.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const cookie = await login(emu.url, 'sam', 's3cret');
      assert.equal(typeof cookie, 'string');
      const ws = stableGuid('worksheet', 'Sales WS');
      const r = await fetch(`${emu.url}${PREFIX}/searchdata?${new URLSearchParams({ query_string: "[region] [Quantity] [region] != 'north'", data_source_guid: ws })}`, { method: 'POST', headers: { cookie: cookie as string } });
      const body = await r.json();
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.deepEqual(body.columnNames, ['region', 'Total Quantity']);
      assert.deepEqual(body.data, [['West', 4], ['east', 13]], 'ordered as DuckDB orders text (binary)');
      stopped = true;
      assert.equal(await emu.stop(), 0);
    } finally {
      if (!stopped) await emu.stop();
    }
  });
  test('rejects a bad flag with a usage line', async () => {
    await assert.rejects(runCli(['--port', 'x']), /not a port number/);
    await assert.rejects(runCli(['--bogus']), /usage/);
  });
});

describe('--load-port', () => {
  test('serves the data-load API alone on its own port, which node_address names', async () => {
    const core = await startCore({ loadPort: 0 }, tempDir());
    try {
      assert.ok(core.emu.loadUrl);
      const loadPort = Number(new URL(core.emu.loadUrl!).port);
      assert.notEqual(loadPort, Number(new URL(core.emu.url).port));
      assert.deepEqual(core.emu.ctx.nodeAddress(), { host: '127.0.0.1', port: loadPort });
      const pub = await fetch(`${core.emu.loadUrl}${PREFIX}/session/login`, { method: 'POST', body: 'username=tsadmin&password=admin', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(pub.status, 404, 'no public API on the load port');
      const cookie = await core.login('tsadmin', 'admin');
      assert.equal((await core.call('GET', '/metadata/listobjectheaders', {}, cookie)).status, 200, 'both APIs on the main port');
    } finally {
      await core.stop();
    }
  });
});

describe('seed folders', () => {
  test('column kinds and types are inferred from the CSV, names with quotes work', async () => {
    const core = await startCore({ demo: false, seed: seedFolder() }, tempDir());
    try {
      const c = await core.login('boss', 'b0ss');
      const id = stableGuid('table', 'shop', 'engine_default_schema', 'sa"les');
      const d = await core.call('GET', '/metadata/details', { type: 'LOGICAL_TABLE', id: JSON.stringify([id]) }, c);
      assert.equal(d.status, 200);
      const cols = d.body.storables[0].columns.map((x: any) => [x.header.name, x.dataType, x.type, x.defaultAggrType]);
      assert.deepEqual(cols, [
        ['region', 'VARCHAR', 'ATTRIBUTE', 'NONE'],
        ['unit "price"', 'DOUBLE', 'MEASURE', 'SUM'],
        ['qty', 'INT64', 'MEASURE', 'SUM'],
        ['sold on', 'DATE', 'ATTRIBUTE', 'NONE'],
      ]);
      const r = await core.call('POST', '/searchdata', { query_string: '[sold on].monthly [unit "price"] [region] = \'EAST\'', data_source_guid: id }, c);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.data, [[Date.UTC(2024, 0, 1) / 1000, 1.5], [Date.UTC(2024, 1, 1) / 1000, 1]]);
      const typed = await core.call('GET', '/metadata/details', { type: 'LOGICAL_TABLE', id: JSON.stringify([stableGuid('table', 'shop', 'other', 'typed')]) }, c);
      assert.deepEqual(typed.body.storables[0].columns.map((x: any) => [x.header.name, x.type, x.defaultAggrType]), [['id', 'ATTRIBUTE', 'NONE'], ['amount', 'MEASURE', 'AVERAGE']]);
      assert.ok(core.emu.ctx.findTable('SHOP', 'Other', 'TYPED'), 'targets are found case-insensitively');
      const sam = await core.login('sam', 's3cret');
      const typedId = stableGuid('table', 'shop', 'other', 'typed');
      const denied = await core.call('POST', '/searchdata', { query_string: '[id]', data_source_guid: typedId }, sam);
      assert.equal(denied.status, 403, 'a table not shared with the user');
      const listed = await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE' }, sam);
      assert.deepEqual(listed.body.map((t: any) => t.name).sort(), ['Sales WS', 'sa"les']);
      assert.equal(core.emu.ctx.findTable('shop', undefined, 'sa"les')?.sqlName, '"shop.engine_default_schema"."sa""les"');
    } finally {
      await core.stop();
    }
  });
  test('a bad seed is refused with a message naming the problem', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 's'));
    writeFileSync(join(dir, 's', 'model.json'), JSON.stringify({ tables: [{ database: 'x', name: 't', columns: [{ name: 'a', dataType: 'WIDGET' }] }] }));
    await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'd'), seed: join(dir, 's') }), /WIDGET/);
    writeFileSync(join(dir, 's', 'model.json'), JSON.stringify({ tables: [{ database: 'x', name: 't', csv: '../../etc/passwd' }] }));
    await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'd2'), seed: join(dir, 's') }), /outside the seed folder/);
    await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'd3'), now: 'yesterday-ish' }), /--now/);
  });
});

describe('state in --data-dir', () => {
  test('GUIDs, password changes and privilege changes survive a restart', async () => {
    const data = tempDir();
    let core = await startCore({}, data);
    const admin = await core.login('tsadmin', 'admin');
    const tables = (await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE' }, admin)).body.map((t: any) => t.id);
    const analyst = await core.login('analyst', 'analyst');
    assert.equal((await core.call('POST', '/user/updatepassword', { name: 'analyst', currentpassword: 'analyst', password: 'changed' }, analyst, true)).status, 200);
    assert.equal((await core.call('POST', '/group/addprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Analysts"]' }, admin, true)).status, 200);
    await core.stop(true);

    core = await startCore({}, data);
    try {
      const admin2 = await core.login('tsadmin', 'admin');
      assert.deepEqual((await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE' }, admin2)).body.map((t: any) => t.id), tables);
      assert.equal(await core.emu.ctx.verifyPassword('analyst', 'analyst'), undefined);
      const a = await core.emu.ctx.verifyPassword('analyst', 'changed');
      assert.ok(a?.privileges.has('DATAMANAGEMENT'));
      assert.equal((await core.sql('SELECT count(*) FROM "demo.engine_default_schema"."flights"'))[0]![0], 200000);
    } finally {
      await core.stop();
    }
  });
});

describe('security', () => {
  test('off loopback the demo passwords are refused, other passwords work', async () => {
    const core = await startCore({ host: '0.0.0.0', seed: seedFolder() }, tempDir());
    try {
      const url = core.emu.url.replace('0.0.0.0', '127.0.0.1');
      assert.equal(await login(url, 'tsadmin', 'admin'), 401);
      assert.equal(await login(url, 'analyst', 'analyst'), 401);
      assert.equal(typeof (await login(url, 'sam', 's3cret')), 'string');
    } finally {
      await core.stop();
    }
  });
  test('passwords are stored as scrypt hashes, never in clear', async () => {
    const data = tempDir();
    const core = await startCore({}, data);
    await core.stop(true);
    const text = readFileSync(join(data, 'catalog.json'), 'utf8');
    assert.ok(!text.includes('"admin"'), 'the demo password does not appear');
    const users = (JSON.parse(text) as { users: Record<string, unknown>[] }).users;
    assert.deepEqual(users.map((u) => u.name), demoSeed().users!.map((u) => u.name), "the demo's users, each stored");
    for (const u of users) {
      assert.ok(!('password' in u));
      assert.match(String(u.hash), /^[0-9a-f]{128}$/);
      assert.match(String(u.salt), /^[0-9a-f]{32}$/);
    }
  });
});
