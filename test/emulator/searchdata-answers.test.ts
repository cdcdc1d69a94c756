// Answers kept for paging (emulator/src/searchdata/run.ts): the pages of an answer read from the kept
// answer are the pages of the query run page by page, a change of the table that did not go through a
// load commit is not seen until one commits, and a commit drops the kept answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { startCore, type Core } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const QUERY = '[origin] [destination] [delay]';

let core: Core;
let cookie: string;
before(async () => {
  core = await startCore();
  cookie = await core.login('tsadmin', 'admin');
});
after(async () => core.stop());

async function page(n: number, size = 25): Promise<{ data: unknown[][]; totalRowCount: number }> {
  const r = await core.call('POST', '/searchdata', { query_string: QUERY, data_source_guid: FLIGHTS, batchsize: size, pagenumber: n }, cookie);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { data: unknown[][]; totalRowCount: number };
}

test('the pages of a kept answer are the slices of the whole answer', async () => {
  const whole = (await core.call('POST', '/searchdata', { query_string: QUERY, data_source_guid: FLIGHTS, batchsize: -1 }, cookie)).body as { data: unknown[][] };
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
