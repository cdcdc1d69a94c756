// The keywords of the reference the emulator now executes (issue: bare tokens or a 400 before), each
// answer compared with rows computed apart from compile.ts: plain DuckDB SQL over the demo's flights
// table, written from the keyword reference's wording. The clock is pinned at 2001-06-15T12:00:00Z
// (core-support.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { startCore, type Core } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

let core: Core;
let cookie: string;
before(async () => {
  core = await startCore();
  cookie = await core.login('tsadmin', 'admin');
});
after(async () => core.stop());

async function answer(query: string): Promise<{ columnNames: string[]; data: unknown[][] }> {
  const r = await core.call('POST', '/searchdata', { query_string: query, data_source_guid: FLIGHTS, batchsize: -1 }, cookie);
  assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body as { columnNames: string[]; data: unknown[][] };
}

test('a date keyword after a measure filters the data source\'s date column (last_n_days.adoc: visitors last 7 days)', async () => {
  const a = await answer('[delay] last 7 days');
  const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-06-08' AND date < TIMESTAMP '2001-06-15'`);
  assert.deepEqual(a.data, [[want]]);
  const byOrigin = await answer('[delay] 2 months ago by [origin]');
  const rows = await core.sql(`SELECT origin, sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-04-01' AND date < TIMESTAMP '2001-05-01' GROUP BY origin ORDER BY origin`);
  assert.deepEqual(byOrigin.data, rows);
});

test('named days, months, month and year, a bare year (day_name.adoc, january.adoc, month_year_name.adoc)', async () => {
  const cases: [string, string][] = [
    ['[delay] [date] monday', 'dayofweek(date) = 1'],
    ['[delay] march', 'month(date) = 3'],
    ['[delay] february 2001', 'month(date) = 2 AND year(date) = 2001'],
    ['[delay] 2001', 'year(date) = 2001'],
  ];
  for (const [q, where] of cases) {
    const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE ${where}`);
    assert.deepEqual((await answer(q)).data, [[want]], q);
  }
});

test('by <unit> groups the data source\'s date column; period functions are date parts (list-date.adoc, list-period.adoc)', async () => {
  const weeks = await core.sql(`SELECT epoch(date_trunc('week', date)), sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer('[delay] by week')).data, weeks);
  const moq = await core.sql(`SELECT (month(date) + 2) % 3 + 1, sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer('month of quarter ([date]) [delay]')).data, moq);
  const doq = await core.sql(`SELECT CAST(date AS DATE) - CAST(date_trunc('quarter', date) AS DATE) + 1 AS d, sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer("[delay] [date].'day of quarter'")).data, doq);
});

test('last n days for each month keeps the last n days of every month (last_n_days_for_each_month.adoc)', async () => {
  const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE CAST(date AS DATE) > last_day(date) - 2`);
  assert.deepEqual((await answer('[delay] [date] last 2 days for each month')).data, [[want]]);
});

test('the Search data API page\'s example lists no column: the filtered ones are shown', async () => {
  const a = await answer("[distance] > 1000 [origin] = 'SEA'");
  assert.deepEqual(a.columnNames, ['origin', 'Total distance']);
  assert.deepEqual(a.data, await core.sql(`SELECT origin, sum(distance) FROM ${T} WHERE distance > 1000 AND lower(origin) = 'sea' GROUP BY origin`));
});
