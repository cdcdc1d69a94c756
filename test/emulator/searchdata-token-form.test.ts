// The token form of the search language, as ThoughtSpot itself writes it (the `search_query` of exported
// Answer TML, a searchdata `query_string` of data-report-v2-api.adoc, Spotter's `sage_query`;
// docs/service-notes.md §2.11), run by the emulator over the real HTTP server: each construct gives the rows
// of the documented form, and those rows are checked against DuckDB SQL written here by hand over the demo
// tables (or plain TypeScript over a CSV written here), apart from the compiler.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore } from './core-support';
import { assertRows } from './weather-support';

const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const WORKSHEET = stableGuid('worksheet', 'Flights Worksheet');
const TABLE = '"demo.engine_default_schema"."flights"';

/** A seed with a BOOL column (the demo has none): flights of a day, each delayed or not. */
const DELAYS = [
  ['SEA', 'true', 12], ['SEA', 'false', 0], ['PDX', 'true', 30], ['PDX', 'true', 5], ['LAX', 'false', -3], ['SEA', 'true', 7],
] as const;
function seedFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-token-seed-'));
  writeFileSync(join(dir, 'delays.csv'), ['origin,is delayed,delay', ...DELAYS.map((r) => r.join(','))].join('\n'));
  writeFileSync(join(dir, 'model.json'), JSON.stringify({
    tables: [{ database: 'token', name: 'delays', csv: 'delays.csv', columns: [
      { name: 'origin', dataType: 'VARCHAR' }, { name: 'is delayed', dataType: 'BOOL' }, { name: 'delay', dataType: 'INT32' },
    ] }],
  }));
  return dir;
}
const DELAYS_GUID = stableGuid('table', 'token', 'engine_default_schema', 'delays');

const core = adminCore({ seed: seedFolder() });

/** Rows in a stable order, to compare answers whose order the query does not fix. */
const sorted = (rows: unknown[][]): unknown[][] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Asserts that the token form and the documented form give the same rows, and those of the hand-written SQL. */
async function sameRows(token: string, documented: string, sql: string | undefined, ds = FLIGHTS): Promise<unknown[][]> {
  const a = await core.answer(token, ds);
  const b = await core.answer(documented, ds);
  assert.deepEqual(a.columnNames, b.columnNames, `${token} vs ${documented}`);
  assertRows(sorted(a.data), sorted(b.data));
  if (sql !== undefined) assertRows(sorted(a.data), sorted(await core.sql(sql)));
  return a.data;
}

describe('the token form on the demo flights (docs/service-notes.md §2.11)', () => {
  test('a filter value after the dot: [origin].SEA is [origin] = \'SEA\'', async () => {
    const rows = await sameRows('[origin].SEA [delay]', "[origin] = 'SEA' [delay]", `SELECT sum(delay) FROM ${TABLE} WHERE lower(origin) = 'sea'`);
    assert.equal(rows.length, 1);
    await sameRows("[destination].'LAX' [origin] count [delay]", "[destination] = 'LAX' [origin] count [delay]", `SELECT origin, count(delay) FROM ${TABLE} WHERE destination = 'LAX' GROUP BY 1`);
  });

  test('a number after the dot: [delay].10', async () => {
    await sameRows('[origin] [delay].10 count [distance]', '[origin] [delay] = 10 count [distance]', `SELECT origin, count(distance) FROM ${TABLE} WHERE delay = 10 GROUP BY 1`);
  });

  test('a value list as dot tokens, with = and !=', async () => {
    await sameRows('[origin] = [origin].SEA [origin].PDX [delay]', "[origin] = 'SEA', 'PDX' [delay]", `SELECT sum(delay) FROM ${TABLE} WHERE origin IN ('SEA', 'PDX')`);
    await sameRows('[origin] != [origin].SEA [origin].PDX count [delay]', "[origin] != 'SEA', 'PDX' count [delay]", `SELECT count(delay) FROM ${TABLE} WHERE origin NOT IN ('SEA', 'PDX')`);
  });

  test('a relative date after the dot, as the relative-date keywords compute it', async () => {
    // the clock is 2001-06-15T12:00Z (core-support.ts)
    await sameRows("[date].'last 30 days' count [delay]", '[date] last 30 days count [delay]', undefined);
    const month = await sameRows("[date].'this month' [origin].SEA count [delay]", "[date] this month [origin] = 'SEA' count [delay]",
      `SELECT count(delay) FROM ${TABLE} WHERE origin = 'SEA' AND "date" >= TIMESTAMP '2001-06-01' AND "date" < TIMESTAMP '2001-07-01'`);
    assert.ok((month[0]![0] as number) > 0);
  });

  test('{null} and {empty} after the dot', async () => {
    await sameRows('[origin].{null} count [delay]', '[origin] = {null} count [delay]', `SELECT count(delay) FROM ${TABLE} WHERE origin IS NULL`);
    await sameRows('[origin].{empty} count [delay]', '[origin] = {empty} count [delay]', `SELECT count(delay) FROM ${TABLE} WHERE trim(origin) = ''`);
  });

  test('between with dot values', async () => {
    await sameRows('[date] between [date].01/15/2001 and [date].03/31/2001 count [delay]', "[date] between '2001-01-15' and '2001-03-31' count [delay]",
      `SELECT count(delay) FROM ${TABLE} WHERE CAST("date" AS DATE) BETWEEN DATE '2001-01-15' AND DATE '2001-03-31'`);
  });

  test('commas between tokens (the searchdata example of data-report-v2-api.adoc)', async () => {
    await sameRows('[delay] by [origin], [destination]', '[delay] by [origin] [destination]', `SELECT origin, destination, sum(delay) FROM ${TABLE} GROUP BY 1, 2`);
  });

  test('ranked by an aggregated column', async () => {
    const a = await core.answer('top 5 [origin] ranked by count [destination]', FLIGHTS);
    const expected = await core.sql(`SELECT origin FROM ${TABLE} GROUP BY 1 ORDER BY count(destination) DESC, origin LIMIT 5`);
    assert.deepEqual(sorted(a.data), sorted(expected));
  });

  test('a bucketed sort column with its direction: sort by [date] [date].monthly descending', async () => {
    const a = await core.answer('[date].monthly [delay] sort by [date] [date].monthly descending', FLIGHTS);
    const expected = await core.sql(`SELECT epoch(date_trunc('month', "date")), sum(delay) FROM ${TABLE} GROUP BY 1 ORDER BY 1 DESC`);
    assertRows(a.data, expected);
  });

  test('a column qualified by its table path: on the worksheet the column of that table, on a table the column of that name', async () => {
    await sameRows('[flights_1::origin].SEA [flights_1::delay]', "[Origin] = 'SEA' [Delay]", `SELECT sum(delay) FROM ${TABLE} WHERE origin = 'SEA'`, WORKSHEET);
    await sameRows('[flights::destination] [flights::distance]', '[Destination] [Distance]', undefined, WORKSHEET);
    await sameRows('[flights_1::origin].SEA [flights_1::delay]', "[origin] = 'SEA' [delay]", undefined, FLIGHTS);
    const wrong = await core.searchdata('[airports_1::origin] [Delay]', WORKSHEET);
    assert.equal(wrong.status, 400);
  });

  test('[origin].monthly on a text column is the value, [date].monthly the bucket', async () => {
    const none = await core.answer('[origin].monthly count [delay]', FLIGHTS);
    assert.deepEqual(none.data, [[0]]);
    const bucket = await core.answer('[date].monthly count [delay]', FLIGHTS);
    assert.equal(bucket.data.length, 6);
  });
});

describe('booleans (a seed table with a BOOL column)', () => {
  const delayedSum = (origin: string | undefined, delayed: boolean): number =>
    DELAYS.filter((r) => (origin === undefined || r[0] === origin) && (r[1] === 'true') === delayed).reduce((s, r) => s + r[2], 0);

  test('a boolean after the dot, and = true without quotes, are the quoted value', async () => {
    const dot = await core.answer('[is delayed].true [delay]', DELAYS_GUID);
    assert.deepEqual(dot.data, [[delayedSum(undefined, true)]]);
    assert.deepEqual((await core.answer('[is delayed] = true [delay]', DELAYS_GUID)).data, dot.data);
    assert.deepEqual((await core.answer("[is delayed] = 'true' [delay]", DELAYS_GUID)).data, dot.data);
    const notDelayed = await core.answer('[origin].SEA [is delayed] = false [delay]', DELAYS_GUID);
    assert.deepEqual(notDelayed.data, [[delayedSum('SEA', false)]]);
  });
});
