// Query history (common/src/results/history.ts): newest first, bounded, read back defensively from
// storage, searched by query, data source or connection; long errors cut, huge queries not kept; a
// Show Data run of an answer (its search_query from the real emulator's TML), pinboard or visualization.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addToHistory, answerRunEntry, ERROR_LIMIT, QUERY_LIMIT, readHistory, searchHistory, type HistoryEntry } from '../../common/src/results/history';
import { answerQueryOf } from '../../common/src/tml/answerLink';
import { startLive, type Live } from '../emulator/client-support';

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

test('a Show Data run: the text is the answer\'s search_query, or its name and GUID; the object is kept for Run Again', () => {
  const run = { connection: 'emulator', startedAt: 5000, rows: 7, durationMs: 12, outcome: 'ok' as const };
  const answer = answerRunEntry({ kind: 'answer', id: 'a-1', name: 'Top genres' }, { ...run, searchQuery: ' [Major Genre] [US Gross] top 5 ', dataSource: 'movies' });
  assert.deepEqual(answer, { query: '[Major Genre] [US Gross] top 5', dataSource: 'movies', connection: 'emulator', startedAt: 5000, rows: 7, durationMs: 12, outcome: 'ok', answer: { kind: 'answer', id: 'a-1', name: 'Top genres' } });
  const failed = answerRunEntry({ kind: 'answer', id: 'a-2', name: 'Gone' }, { ...run, rows: 0, outcome: 'error', error: 'no such answer' });
  assert.equal(failed.query, 'Gone (a-2)');
  assert.equal(failed.dataSource, null);
  assert.equal(failed.error, 'no such answer');
  const viz = answerRunEntry({ kind: 'visualization', id: 'v-1', name: 'Delays', pinboardId: 'p-1' }, run);
  assert.equal(viz.query, 'visualization Delays (v-1)');
  assert.deepEqual(viz.answer, { kind: 'visualization', id: 'v-1', name: 'Delays', pinboardId: 'p-1' });
  assert.equal(answerRunEntry({ kind: 'pinboard', id: 'p-1', name: 'Ops' }, run).query, 'pinboard Ops (p-1)');
  // stored and read back; searched by the answer's name
  const h = readHistory([{ ...answer, id: 'x' }, { ...viz, id: 'y' }, { ...viz, id: 'z', answer: { kind: 'visualization', id: 'v', name: 'no pinboard' } }, { ...viz, id: 'w', answer: { kind: 'sheet', id: 'v', name: 'n' } }]);
  assert.deepEqual(h.map((e) => e.id).sort(), ['x', 'y']);
  assert.deepEqual(searchHistory(h, 'top genres').map((e) => e.id), ['x']);
});

describe('a Show Data run of a saved answer of the real emulator', () => {
  let live: Live;
  before(async () => {
    live = await startLive();
  });
  after(async () => {
    await live?.stop();
  });
  test('is recorded with the search_query and data source of the answer\'s TML, and without a credential', async () => {
    const client = live.client();
    const [header] = (await client.listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK', pattern: 'Top grossing genres' })).filter((h) => h.name === 'Top grossing genres');
    assert.ok(header);
    const [o] = await client.exportTml([{ identifier: header.id, type: 'ANSWER' }], { format: 'YAML' });
    const a = answerQueryOf(o!.edoc);
    const entry = answerRunEntry({ kind: 'answer', id: header.id, name: header.name }, { searchQuery: a.query, dataSource: a.dataSource, connection: 'emulator', startedAt: Date.now(), rows: 5, durationMs: 3, outcome: 'ok' });
    assert.equal(entry.query, '[Major Genre] [Worldwide Gross] top 5');
    assert.equal(entry.dataSource, 'movies');
    const [kept] = addToHistory([], { ...entry, id: 'r' });
    assert.ok(!/admin|tsadmin|127\.0\.0\.1|http/.test(JSON.stringify(kept)), JSON.stringify(kept));
  });
});
