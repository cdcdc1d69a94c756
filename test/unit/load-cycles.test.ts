import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CycleStore, isCycleId, statusJson } from '../../emulator/src/load/cycles';
import { parseLoadDefinition } from '../../emulator/src/load/definition';

const DEF = parseLoadDefinition({ target: { database: 'd', table: 't' } });

test('cycle ids are UUIDs only; a folder is never built from anything else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-cycles-'));
  try {
    const store = new CycleStore(dir);
    assert.ok(isCycleId('0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0d'));
    for (const bad of ['../x', '..', '', 'abc', '0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0d/..', '0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0dx']) {
      assert.equal(isCycleId(bad), false, bad);
      assert.throws(() => store.dir(bad), /not a cycle id/);
      assert.equal(store.get(bad), undefined);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('metadata is on disk: a new store (a restart) finds the cycle; one cut off while COMMITTING is settled from the engine\'s outcome', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-cycles-'));
  try {
    const store = new CycleStore(dir);
    const open = store.create(DEF, { target: { database: 'd', table: 't' } }, 'user-1', 1_700_000_000_000_000);
    const cut = store.create(DEF, {}, 'user-1', 1_700_000_000_000_000);
    const done = store.create(DEF, {}, 'user-1', 1_700_000_000_000_000);
    for (const m of [cut, done]) {
      m.stage = 'COMMITTING';
      store.save(m);
    }
    assert.ok(existsSync(join(dir, 'cycles', open.cycleId, 'cycle.json')));

    const after = new CycleStore(dir);
    const o = after.get(open.cycleId.toUpperCase());
    assert.equal(o?.stage, 'INGESTING');
    assert.deepEqual(o?.loadParams, { target: { database: 'd', table: 't' } });
    assert.deepEqual(after.all().map((m) => m.cycleId).sort(), [open.cycleId, cut.cycleId, done.cycleId].sort());
    const c = after.get(cut.cycleId);
    assert.equal(c?.stage, 'COMMITTING', 'as saved: only the engine knows whether the rows were committed');
    after.settleInterrupted(c!, undefined, 1_800_000_000_000_000);
    assert.equal(c?.stage, 'DONE');
    assert.equal(c?.status.code, 'LOAD_FAILED');
    assert.match(c?.status.message ?? '', /stopped while this cycle was being committed, before its rows were committed; no rows were written/);
    assert.equal(JSON.parse(readFileSync(join(dir, 'cycles', cut.cycleId, 'cycle.json'), 'utf8')).stage, 'DONE', 'the new state is saved');
    const d = after.get(done.cycleId)!;
    after.settleInterrupted(d, { rowsWritten: 7, ignoredRowCount: 1, parsingErrors: [{ chunk: 1, row: 2, reason: 'r' }], hasBadRecords: true, endTime: 5 }, 9);
    assert.deepEqual([d.stage, d.status, d.rowsWritten, d.ignoredRowCount, d.hasBadRecords, d.endTime], ['DONE', { code: 'OK' }, 7, 1, true, 5]);
    assert.equal(after.get('0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0d'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('status JSON: counts and times as strings, end_time and parsing_errors only when there are some', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-cycles-'));
  try {
    const meta = new CycleStore(dir).create(DEF, {}, 'u', 1_000_000);
    assert.deepEqual(statusJson(meta), {
      cycle_id: meta.cycleId,
      internal_stage: 'INGESTING',
      status: {},
      start_time: '1000000',
      ingested_network_bw: '0',
      rows_written: '0',
      ignored_row_count: '0',
    });
    meta.endTime = 2_000_000;
    meta.parsingErrors = [{ chunk: 1, row: 3, reason: 'r' }];
    const s = statusJson(meta);
    assert.equal(s.end_time, '2000000');
    assert.deepEqual(s.parsing_errors, [{ chunk: 1, row: 3, reason: 'r' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a StartLoad killed between its folder and its metadata leaves a folder the next start deletes; cycles with metadata stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-cycles-'));
  try {
    const store = new CycleStore(dir);
    const kept = store.create(DEF, {}, 'user-1', 1_700_000_000_000_000);
    const orphan = join(dir, 'cycles', '0d3c9a51-2f4e-4b8a-9c1d-5e6f7a8b9c0d');
    mkdirSync(orphan);
    writeFileSync(join(orphan, 'cycle.json.tmp'), '{"cycleId":');
    const after = new CycleStore(dir);
    assert.equal(after.deleteOrphans(), 1);
    assert.equal(existsSync(orphan), false);
    assert.deepEqual(after.all().map((m) => m.cycleId), [kept.cycleId]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
