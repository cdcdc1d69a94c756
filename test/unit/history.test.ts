// Query history (common/src/results/history.ts): newest first, bounded, read back defensively from
// storage, searched by query, data source or connection; long errors cut, huge queries not kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addToHistory, ERROR_LIMIT, QUERY_LIMIT, readHistory, searchHistory, type HistoryEntry } from '../../common/src/results/history';

const e = (i: number, over: Partial<HistoryEntry> = {}): HistoryEntry => ({ id: `r${i}`, query: `[origin] top ${i}`, dataSource: 'flights', connection: 'emulator', startedAt: 1000 + i, rows: i, durationMs: 5, outcome: 'ok', ...over });

test('newest first, bounded; the same id is not kept twice', () => {
  let h: HistoryEntry[] = [];
  for (let i = 0; i < 10; i++) h = addToHistory(h, e(i), 5);
  assert.deepEqual(h.map((x) => x.id), ['r9', 'r8', 'r7', 'r6', 'r5']);
  assert.deepEqual(addToHistory(h, e(9, { rows: 99 }), 5).filter((x) => x.id === 'r9').map((x) => x.rows), [99]);
});

test('a long error is cut; a huge query is not kept', () => {
  const [x] = addToHistory([], e(1, { outcome: 'error', error: 'x'.repeat(ERROR_LIMIT * 2) }));
  assert.equal(x!.error!.length, ERROR_LIMIT);
  assert.deepEqual(addToHistory([], e(2, { query: 'q'.repeat(QUERY_LIMIT + 1) })), []);
});

test('readHistory keeps only well-formed entries, sorted, bounded; never throws', () => {
  assert.deepEqual(readHistory(undefined), []);
  assert.deepEqual(readHistory('nope'), []);
  const got = readHistory([e(1), { id: 'bad' }, e(3), { ...e(4), outcome: 'maybe' }, { ...e(5), startedAt: 'x' }, null], 10);
  assert.deepEqual(got.map((x) => x.id), ['r3', 'r1']);
});

test('search by query, data source or connection, any case', () => {
  const h = [e(1), e(2, { dataSource: 'Movies', query: '[Director]' }), e(3, { connection: 'Prod' })];
  assert.deepEqual(searchHistory(h, 'movies').map((x) => x.id), ['r2']);
  assert.deepEqual(searchHistory(h, 'PROD').map((x) => x.id), ['r3']);
  assert.deepEqual(searchHistory(h, 'top').map((x) => x.id), ['r1', 'r3']);
  assert.equal(searchHistory(h, '  ').length, 3);
});
