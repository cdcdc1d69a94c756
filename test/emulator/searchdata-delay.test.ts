/**
 * The emulator's test-only searchdata delay (`--delay-searchdata MS[:TEXT]`, EmulatorOptions.delaySearchData),
 * which the results panel's end-to-end test uses to cancel a slow query: only matching queries wait,
 * others answer meanwhile, and a request the client aborts is dropped. Bad values get a clear error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSearchDataDelay } from '../../emulator/src/app';
import { AnalyticsServiceClient, ConnectionError } from '../../common/src/api';
import { startCore } from './core-support';

test('parseSearchDataDelay reads MS and MS:TEXT and refuses anything else', () => {
  assert.equal(parseSearchDataDelay(undefined), undefined);
  assert.equal(parseSearchDataDelay(' '), undefined);
  assert.deepEqual(parseSearchDataDelay('1500'), { ms: 1500 });
  assert.deepEqual(parseSearchDataDelay('60000:[Miles_per_Gallon]'), { ms: 60000, match: '[Miles_per_Gallon]' });
  assert.deepEqual(parseSearchDataDelay('10:a:b'), { ms: 10, match: 'a:b' });
  for (const bad of ['-1', '1.5', 'soon', ':x']) assert.throws(() => parseSearchDataDelay(bad), /--delay-searchdata: expected MS\[:TEXT\]/, bad);
});

test('only matching searchdata requests wait, and an aborted one is dropped', async (t) => {
  const core = await startCore({ delaySearchData: { ms: 600_000, match: 'SLOWMARK' } });
  t.after(() => core.stop());
  const client = new AnalyticsServiceClient({ url: core.emu.url, username: 'tsadmin', password: 'admin' });
  t.after(() => client.close());
  const flights = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 })).find((h) => h.name === 'flights')!;
  const abort = new AbortController();
  // a filter value that matches nothing carries the mark
  const slow = client.searchData({ queryString: "[origin] [delay] [origin] = 'SLOWMARK'", dataSourceGuid: flights.id }, { signal: abort.signal });
  const settled = { slow: false };
  slow.then(() => (settled.slow = true), () => (settled.slow = true));
  const quick = await client.searchData({ queryString: '[origin] [delay] top 3', dataSourceGuid: flights.id });
  assert.equal(quick.data.length, 3);
  assert.equal(settled.slow, false, 'the marked query is still held back after another one answered');
  abort.abort();
  await assert.rejects(slow, (e: unknown) => e instanceof ConnectionError && e.aborted);
  // the emulator goes on answering after dropping the aborted request
  assert.equal((await client.searchData({ queryString: '[origin] [delay] top 2', dataSourceGuid: flights.id })).data.length, 2);
});
