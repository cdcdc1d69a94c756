// Atomicity of load cycles (docs/service-interface.md §3, 4.1, 8): nothing reaches the table before CommitLoad, AbortLoad
// discards the chunks, max_ignored_rows exceeded or a failing commit leaves the table unchanged,
// empty_target replaces the rows in the same transaction, two cycles on different tables run at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOADER, def, session, startLoadLive, type LoadLive, type LoadSession } from './load-support';

let live: LoadLive;
let s: LoadSession;
before(async () => {
  live = await startLoadLive();
  s = await session(live.emu.url, LOADER);
});
after(async () => {
  await live?.stop();
});

/** Sets the rows of `pairs` to exactly these (through a load with empty_target). */
async function resetPairs(text: string): Promise<void> {
  const { status } = await s.load(def('pairs', { load_options: { empty_target: true } }), text);
  assert.deepEqual(status.status, { code: 'OK' });
}

test('chunks stay on disk until CommitLoad; AbortLoad discards them and the table never sees them', async () => {
  await resetPairs('1,one\n');
  const { cycleId } = await s.start(def('pairs'));
  const id = cycleId as string;
  for (const chunk of ['2,two\n', '3,three\n', '4,four\n']) assert.equal((await s.upload(id, chunk)).status, 200);
  const dir = join(live.dataDir, 'cycles', id);
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('chunk-')).sort(), ['chunk-1', 'chunk-2', 'chunk-3']);
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'one' }], 'nothing before commit');
  const c = await s.cancel(id);
  assert.equal(c.status, 200);
  assert.match(c.headers.get('content-type') ?? '', /^text\/plain/);
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('chunk-')), [], 'the chunks are gone');
  const st = await s.status(id);
  assert.equal(st.internal_stage, 'DONE');
  assert.equal((st.status as { code: string }).code, 'LOAD_FAILED');
  assert.match((st.status as { message: string }).message, /cancelled/);
  assert.equal((await s.upload(id, '5,five\n')).status, 400, 'a cancelled cycle takes no more data');
  assert.equal((await s.commit(id)).status, 500, 'nor a commit');
  assert.equal((await s.cancel(id)).status, 200, 'cancelling twice is harmless');
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'one' }]);
});

test('max_ignored_rows exceeded: LOAD_FAILED, the table unchanged, the bad records file written', async () => {
  await resetPairs('1,one\n');
  const { cycleId, status } = await s.load(def('pairs', { load_options: { max_ignored_rows: 1 } }), '2,two\nx,bad\n', '3,three\ny,worse\n');
  assert.equal(status.internal_stage, 'DONE');
  assert.equal((status.status as { code: string }).code, 'LOAD_FAILED');
  assert.match((status.status as { message: string }).message, /2 rows were ignored, more than max_ignored_rows \(1\)/);
  assert.equal(status.ignored_row_count, '2');
  assert.equal(status.rows_written, '0');
  assert.equal((await s.badRecords(cycleId)).text, 'x,bad\ny,worse\n');
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'one' }]);
  assert.ok(!existsSync(join(live.dataDir, 'cycles', cycleId, 'chunk-1')), 'chunks are removed once the cycle ends');
});

test('the default max_ignored_rows is 0: one bad row fails the whole load', async () => {
  await resetPairs('1,one\n');
  const { status } = await s.load(def('pairs'), '2,two\n3,three\nfour,4\n');
  assert.equal((status.status as { code: string }).code, 'LOAD_FAILED');
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'one' }]);
});

test('a commit that fails inside the transaction changes nothing, even with empty_target', async () => {
  await resetPairs('1,one\n');
  const { cycleId } = await s.start(def('pairs', { load_options: { empty_target: true } }));
  assert.equal((await s.upload(cycleId as string, '7,seven\n8,eight\n')).status, 200);
  // make the INSERT fail after the DELETE: recreate the table behind the API's back with a CHECK that refuses id 8
  const info = live.emu.ctx.findTable('loadtest', undefined, 'pairs');
  assert.ok(info);
  const saved = info.sqlName.replace(/"pairs"$/, '"pairs_saved"');
  const c = await live.emu.ctx.connect();
  try {
    await c.run(`CREATE TABLE ${saved} AS SELECT * FROM ${info.sqlName}`);
    await c.run(`DROP TABLE ${info.sqlName}`);
    await c.run(`CREATE TABLE ${info.sqlName} (id INTEGER CHECK (id <> 8), name VARCHAR)`);
    await c.run(`INSERT INTO ${info.sqlName} SELECT * FROM ${saved}`);
    await c.run(`DROP TABLE ${saved}`);
  } finally {
    c.closeSync();
  }
  assert.equal((await s.commit(cycleId as string)).status, 200);
  const status = await s.waitDone(cycleId as string);
  assert.equal((status.status as { code: string }).code, 'LOAD_FAILED');
  assert.match((status.status as { message: string }).message, /^Commit failed, no rows were written: .*CHECK/i);
  assert.equal(status.rows_written, '0');
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'one' }], 'the DELETE of empty_target was rolled back too');
});

test('empty_target replaces the rows; without it the rows are appended', async () => {
  await resetPairs('1,one\n2,two\n');
  assert.deepEqual((await s.load(def('other'), '50,x\n')).status.status, { code: 'OK' });
  const append = await s.load(def('pairs'), '3,three\n');
  assert.deepEqual(append.status.status, { code: 'OK' });
  assert.deepEqual((await live.rows('pairs')).map((r) => r.id), [1, 2, 3]);
  const replace = await s.load(def('pairs', { load_options: { empty_target: true } }), '9,nine\n');
  assert.equal(replace.status.rows_written, '1');
  assert.deepEqual(await live.rows('pairs'), [{ id: 9, name: 'nine' }]);
  assert.ok((await live.rows('other')).some((r) => r.id === 50), 'another table is untouched');
});

test('two cycles on different tables at once, chunks interleaved, each table gets only its own rows', async () => {
  await resetPairs('1,one\n');
  const other = await session(live.emu.loadUrl as string, LOADER);
  const a = (await s.start(def('pairs'))).cycleId as string;
  const b = (await other.start(def('other', { load_options: { empty_target: true } }))).cycleId as string;
  const rowsA: string[] = [];
  const rowsB: string[] = [];
  const uploads: Promise<unknown>[] = [];
  for (let k = 0; k < 5; k++) {
    const ta = Array.from({ length: 200 }, (_, i) => `${1000 + k * 200 + i},a${k}-${i}\n`).join('');
    const tb = Array.from({ length: 200 }, (_, i) => `${5000 + k * 200 + i},b${k}-${i}\n`).join('');
    rowsA.push(ta);
    rowsB.push(tb);
    uploads.push(s.upload(a, ta), other.upload(b, tb));
  }
  for (const u of await Promise.all(uploads)) assert.equal((u as { status: number }).status, 200);
  const [ca, cb] = await Promise.all([s.commit(a), other.commit(b)]);
  assert.equal(ca.status, 200);
  assert.equal(cb.status, 200);
  const [sa, sb] = await Promise.all([s.waitDone(a), other.waitDone(b)]);
  assert.deepEqual(sa.status, { code: 'OK' });
  assert.deepEqual(sb.status, { code: 'OK' });
  assert.equal(sa.rows_written, '1000');
  assert.equal(sb.rows_written, '1000');
  const pairs = await live.rows('pairs');
  const others = await live.rows('other');
  assert.equal(pairs.length, 1001);
  assert.equal(others.length, 1000);
  assert.ok(pairs.every((r) => r.id === 1 || String(r.name).startsWith('a')));
  assert.ok(others.every((r) => String(r.label).startsWith('b')));
});

test('two commits on the same table at once are applied one after the other, both complete', async () => {
  await resetPairs('1,one\n');
  const a = (await s.start(def('pairs', { load_options: { empty_target: true } }))).cycleId as string;
  const b = (await s.start(def('pairs'))).cycleId as string;
  await s.upload(a, '10,ten\n');
  await s.upload(b, '20,twenty\n');
  await Promise.all([s.commit(a), s.commit(b)]);
  const [sa, sb] = await Promise.all([s.waitDone(a), s.waitDone(b)]);
  assert.deepEqual([sa.status, sb.status], [{ code: 'OK' }, { code: 'OK' }]);
  assert.deepEqual((await live.rows('pairs')).map((r) => r.id), [10, 20]);
});
