// The cycle's outcome is durable with its rows (a crash between the engine's COMMIT and the status
// record must not leave rows in the table while the status says none were written). The emulator runs as a
// child process that kills itself with SIGKILL at a named step boundary (TSQ_EMULATOR_CRASH_AT); it is
// started again on the same data folder and the status must agree with the table. Also housekeeping:
// chunks of crashed and expired cycles are deleted, idle cycles expire (also across a restart), and a
// password change ends the user's load-API sessions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmulatorProcess } from '../faults/emulatorProcess';
import { DB, def, LoadSession } from './load-support';

const LOADER = { username: 'loader', password: 'loader-secret' };
let root: string;
let seed: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'tsq-durable-'));
  seed = join(root, 'seed');
  mkdirSync(seed);
  writeFileSync(
    join(seed, 'model.json'),
    JSON.stringify({
      tables: [{ name: 'pairs', database: DB, columns: [{ name: 'id', dataType: 'INT32' }, { name: 'name', dataType: 'VARCHAR' }] }],
      groups: [{ name: 'Data managers', privileges: ['DATAMANAGEMENT'] }],
      users: [{ name: LOADER.username, password: LOADER.password, groups: ['Data managers'] }],
    }),
  );
});
after(() => rmSync(root, { recursive: true, force: true }));

async function login(url: string): Promise<LoadSession> {
  const s = new LoadSession(url);
  assert.equal((await s.login(LOADER)).status, 200);
  return s;
}

/** The ids in `pairs`, read through a clean stop and a direct look at the data folder's engine. */
async function ids(emu: EmulatorProcess, dataDir: string): Promise<number[]> {
  await emu.stop();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dataDir, 'engine.duckdb'));
  const c = await db.connect();
  try {
    const r = await c.runAndReadAll(`SELECT id FROM "${DB}.engine_default_schema"."pairs" ORDER BY id`);
    return r.getRows().map((row) => Number(row[0]));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

const rowsText = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i},name ${from + i}\n`).join('');

/** Uploads two chunks and commits with the emulator set to die at `point`; returns the cycle id once it died. */
async function crashAt(point: string, dataDir: string, args: string[] = []): Promise<string> {
  const emu = await EmulatorProcess.start({ dataDir, seed, env: { TSQ_EMULATOR_CRASH_AT: point }, args });
  const s = await login(emu.url);
  const { cycleId } = await s.start(def('pairs'));
  assert.ok(cycleId);
  assert.equal((await s.upload(cycleId, rowsText(1, 500))).status, 200);
  assert.equal((await s.upload(cycleId, rowsText(501, 1000))).status, 200);
  await s.commit(cycleId).catch(() => undefined); // the answer may never come
  const end = await emu.exited;
  assert.equal(end.signal, 'SIGKILL', `the emulator died at ${point}`);
  return cycleId;
}

for (const [point, ok] of [
  ['engine-committed', true],
  ['rows-inserted', false],
  ['status-recorded', true],
  ['commit-accepted', false],
] as const) {
  test(`killed at ${point}: after a restart the status says ${ok ? 'OK with every row' : 'LOAD_FAILED'} and the table agrees`, async () => {
    const dataDir = join(root, `crash-${point}`);
    const cycleId = await crashAt(point, dataDir);
    const emu = await EmulatorProcess.start({ dataDir, seed });
    try {
      const s = await login(emu.url);
      const st = await s.waitDone(cycleId);
      assert.equal(st.internal_stage, 'DONE');
      if (ok) {
        assert.deepEqual(st.status, { code: 'OK' });
        assert.equal(st.rows_written, '1000');
      } else {
        assert.equal((st.status as { code: string }).code, 'LOAD_FAILED');
        assert.match((st.status as { message: string }).message, /no rows were written/);
        assert.equal(st.rows_written, '0');
      }
      assert.deepEqual(readdirSync(join(dataDir, 'cycles', cycleId)).filter((f) => f.startsWith('chunk-') || f.startsWith('staged-')), [], 'no chunk is left');
      // the cycle cannot be committed a second time
      assert.equal((await s.commit(cycleId)).status, 500);
    } finally {
      const got = await ids(emu, dataDir);
      assert.deepEqual(got, ok ? Array.from({ length: 1000 }, (_, i) => i + 1) : []);
    }
  });
}

test('killed after a chunk was stored but before it was recorded: the cycle stays open with its recorded chunks, and no partial file is left', async () => {
  const dataDir = join(root, 'crash-upload');
  const emu = await EmulatorProcess.start({ dataDir, seed, env: { TSQ_EMULATOR_CRASH_AT: 'upload-stored:2' } });
  const s = await login(emu.url);
  const { cycleId } = await s.start(def('pairs'));
  assert.equal((await s.upload(cycleId!, rowsText(1, 10))).status, 200);
  await s.upload(cycleId!, rowsText(11, 20)).catch(() => undefined);
  await emu.exited;
  const again = await EmulatorProcess.start({ dataDir, seed });
  const s2 = await login(again.url);
  const st = await s2.status(cycleId!);
  assert.equal(st.internal_stage, 'INGESTING');
  assert.equal((await s2.cancel(cycleId!)).status, 200);
  assert.deepEqual(readdirSync(join(dataDir, 'cycles', cycleId!)).filter((f) => f.startsWith('chunk-')), [], 'AbortLoad deletes recorded and unrecorded chunks');
  assert.deepEqual(await ids(again, dataDir), []);
});

test('a cycle idle in INGESTING expires after --cycle-idle-minutes, also across a restart, and its chunks are deleted', async () => {
  const dataDir = join(root, 'idle');
  let emu = await EmulatorProcess.start({ dataDir, seed });
  let s = await login(emu.url);
  const { cycleId } = await s.start(def('pairs'));
  assert.equal((await s.upload(cycleId!, rowsText(1, 10))).status, 200);
  await emu.kill();
  await new Promise((r) => setTimeout(r, 700));
  emu = await EmulatorProcess.start({ dataDir, seed, args: ['--cycle-idle-minutes', '0.01'] }); // 600 ms
  try {
    s = await login(emu.url);
    const st = await s.status(cycleId!);
    assert.equal(st.internal_stage, 'DONE');
    assert.equal((st.status as { code: string }).code, 'LOAD_FAILED');
    assert.match((st.status as { message: string }).message, /expired/);
    assert.equal(existsSync(join(dataDir, 'cycles', cycleId!, 'chunk-1')), false);
    assert.equal((await s.upload(cycleId!, rowsText(11, 20))).status, 400, 'an expired cycle takes no more data');
    // a fresh cycle stays open while chunks keep coming, and expires once they stop
    const { cycleId: live } = await s.start(def('pairs'));
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await s.upload(live!, rowsText(100 + i, 100 + i))).status, 200, `chunk ${i} of an active cycle is taken`);
    }
    for (let i = 0; i < 200 && (await s.status(live!)).internal_stage === 'INGESTING'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await s.status(live!)).internal_stage, 'DONE');
    assert.deepEqual(readdirSync(join(dataDir, 'cycles', live!)).filter((f) => f.startsWith('chunk-')), []);
  } finally {
    await emu.kill();
  }
});
