// Answers kept for paging (emulator/src/searchdata/run.ts): the pages of an answer read from the kept
// answer are the pages of the query run page by page, a change of the table that did not go through a
// load commit is not seen until one commits, and a commit drops the kept answer; an answer that fits a
// page is not kept, and the kept answers' tables are bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { ANSWER_CACHE_SIZE } from '../../emulator/src/searchdata/run';
import { adminCore } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const QUERY = '[origin] [destination] [delay]';

const core = adminCore();

async function page(n: number, size = 25): Promise<{ data: unknown[][]; totalRowCount: number }> {
  const r = await core.call('POST', '/searchdata', { query_string: QUERY, data_source_guid: FLIGHTS, batchsize: size, pagenumber: n }, core.cookie);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { data: unknown[][]; totalRowCount: number };
}

test('the pages of a kept answer are the slices of the whole answer', async () => {
  const whole = (await core.call('POST', '/searchdata', { query_string: QUERY, data_source_guid: FLIGHTS, batchsize: -1 }, core.cookie)).body as { data: unknown[][] };
  const first = await page(1);
  assert.ok(first.totalRowCount > 75, 'the answer has several pages');
  const pages = [first.data];
  for (let n = 2; n <= Math.ceil(first.totalRowCount / 25); n++) {
    const p = await page(n);
    assert.equal(p.totalRowCount, first.totalRowCount);
    pages.push(p.data);
  }
  assert.deepEqual(pages.flat(), whole.data);
});

test('a kept answer is used until a load commits, then dropped', async () => {
  await page(1);
  const second = await page(2);
  // A row that sorts first, written behind the service's back: the kept answer does not see it.
  await core.sql(`INSERT INTO ${T} SELECT * REPLACE ('AAA' AS origin) FROM ${T} LIMIT 1`);
  assert.deepEqual((await page(2)).data, second.data);
  // A commit tells the service the table changed (emulator/src/app.ts tableChanged).
  core.emu.ctx.tableChanged({ id: FLIGHTS } as Parameters<typeof core.emu.ctx.tableChanged>[0]);
  const after = await page(1);
  assert.equal(after.data[0]![0], 'AAA');
});

/** Tables of kept answers in the engine's database, once pending drops settled (they run after the answer). */
async function answerTables(): Promise<number> {
  const count = async () => Number((await core.sql("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'tsq_answers'"))[0]![0]);
  let last = await count();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 25));
    const now = await count();
    if (now === last) return now;
    last = now;
  }
  return last;
}

test('an answer that fits one page is run as that page and not kept; a longer one is kept once', async () => {
  const before = await answerTables();
  const top = await core.call('POST', '/searchdata', { query_string: '[origin] [delay] top 5', data_source_guid: FLIGHTS, batchsize: 10 }, core.cookie);
  assert.equal(top.body.totalRowCount, 5);
  assert.equal(await answerTables(), before, 'top 5 cannot fill a page of 10: nothing kept');
  const long = await core.call('POST', '/searchdata', { query_string: '[destination] [delay]', data_source_guid: FLIGHTS, batchsize: 10 }, core.cookie);
  assert.ok(long.body.totalRowCount > 10);
  assert.equal(await answerTables(), Math.min(before + 1, ANSWER_CACHE_SIZE));
  const past = await core.call('POST', '/searchdata', { query_string: '[destination] [delay]', data_source_guid: FLIGHTS, batchsize: 10, offset: long.body.totalRowCount }, core.cookie);
  assert.deepEqual([past.body.rowCount, past.body.totalRowCount], [0, long.body.totalRowCount], 'a page past the end is empty and keeps the total');
  assert.equal(await answerTables(), Math.min(before + 1, ANSWER_CACHE_SIZE), 'the same answer is not written twice');
});

test('no more than ANSWER_CACHE_SIZE answer tables are kept: the least recently used are dropped', async () => {
  for (let n = 0; n < ANSWER_CACHE_SIZE + 4; n++) {
    const r = await core.call('POST', '/searchdata', { query_string: `[origin] [destination] [delay] [delay] > ${n - 100}`, data_source_guid: FLIGHTS, batchsize: 5 }, core.cookie);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  assert.equal(await answerTables(), ANSWER_CACHE_SIZE);
});

test("a kept answer whose table is gone is answered by running the page: the same rows", async () => {
  const whole = (await core.call('POST', '/searchdata', { query_string: QUERY, data_source_guid: FLIGHTS, batchsize: -1 }, core.cookie)).body as { data: unknown[][] };
  await page(1);
  await answerTables();
  for (const [name] of await core.sql("SELECT table_name FROM duckdb_tables() WHERE database_name = 'tsq_answers'")) await core.sql(`DROP TABLE tsq_answers."${String(name)}"`);
  const third = await page(3);
  assert.deepEqual(third.data, whole.data.slice(50, 75));
});
