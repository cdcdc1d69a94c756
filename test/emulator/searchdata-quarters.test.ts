// The named quarters `q1` … `q4` (thoughtspot/thoughtspot-docs cloud/modules/ROOT/partials/keywords/q1.adoc …
// q4.adoc, `purchases q1`), optionally with a year (`q3 2024`, as `february 2014` in month_year_name.adoc), on
// searchdata: the quarter of the date in the calendar in force (docs.thoughtspot.com cloud/latest/connections-cust-cal,
// "Search features": date keywords "like this quarter and q3" follow the calendar): Gregorian by default, the
// fiscal quarter under `calendar.fiscal` (the emulator's fiscal year starts in April), the custom calendar's under
// `calendar.retail` (the demo's 4-4-5 calendar). Expected rows are computed apart from the compiler: DuckDB SQL
// written here with the quarters' bounds written out by hand.
//
// The demo's flights run January to June 2001. Gregorian: January–March 2001 is q1, April–June q2. Fiscal (April):
// January–March 2001 is q4 of the fiscal year that starts 1 April 2000, April–June q1 of the one that starts
// 1 April 2001. Retail: fiscal 2001 starts Sunday 2 July 2000; its third quarter starts 31 December 2000 and its
// fourth 1 April 2001, up to 1 July 2001 (fiscal 2002).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore } from './core-support';

const FLIGHTS_T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

const core = adminCore();

const answer = async (query: string): Promise<unknown[][]> => (await core.answer(query, FLIGHTS)).data;

/** The expected rows: DuckDB SQL written here, numbers as numbers. */
async function expected(sql: string): Promise<unknown[][]> {
  return (await core.sql(sql)).map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
}

/** The total delay per origin of the flights on days [from, to), written by hand. */
const byOriginBetween = (from: string, to: string): Promise<unknown[][]> =>
  expected(`SELECT origin, sum(delay) FROM ${FLIGHTS_T} WHERE CAST("date" AS DATE) >= DATE '${from}' AND CAST("date" AS DATE) < DATE '${to}' GROUP BY 1 ORDER BY 1`);

/** The rows of `query` sorted by their first cell (an answer's order is not what is tested here). */
const sorted = async (query: string): Promise<unknown[][]> => (await answer(query)).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe('named quarters: q1 … q4, with or without a year', () => {
  const cases: [calendar: string, query: string, from: string, to: string][] = [
    // Gregorian
    ['', 'q1', '2001-01-01', '2001-04-01'],
    ['', 'q2', '2001-04-01', '2001-07-01'],
    ['', 'q1 2001', '2001-01-01', '2001-04-01'],
    ['', 'q2 2001', '2001-04-01', '2001-07-01'],
    ['', 'q3', '2001-07-01', '2001-10-01'],
    ['', 'q1 2000', '2000-01-01', '2000-04-01'],
    ['calendar.gregorian', 'q2', '2001-04-01', '2001-07-01'],
    // fiscal, the year starting in April: the year is the fiscal year's first day's
    ['calendar.fiscal', 'q1', '2001-04-01', '2001-07-01'],
    ['calendar.fiscal', 'q4', '2001-01-01', '2001-04-01'],
    ['calendar.fiscal', 'q4 2000', '2001-01-01', '2001-04-01'],
    ['calendar.fiscal', 'q1 2001', '2001-04-01', '2001-07-01'],
    ['calendar.fiscal', 'q4 2001', '2002-01-01', '2002-04-01'],
    ['calendar.fiscal', 'q2', '2001-07-01', '2001-10-01'],
    // the retail 4-4-5 calendar: its quarters, its year (the fiscal year the quarter ends in)
    ['calendar.retail', 'q3', '2000-12-31', '2001-04-01'],
    ['calendar.retail', 'q4', '2001-04-01', '2001-07-01'],
    ['calendar.retail', 'q4 2001', '2001-04-01', '2001-07-01'],
    ['calendar.retail', 'q3 2001', '2000-12-31', '2001-04-01'],
    ['calendar.retail', 'q4 2002', '2002-03-31', '2002-06-30'],
    ['calendar.retail', 'q1', '2001-07-01', '2001-09-30'],
  ];
  for (const [calendar, q, from, to] of cases) {
    test(`[origin] [delay] ${q} ${calendar}: the flights from ${from} to ${to}`, async () => {
      const got = await sorted(`[origin] [delay] ${q} ${calendar}`);
      assert.deepEqual(got, await byOriginBetween(from, to));
    });
  }

  test('the quarters of a year split its rows: q1 … q4 together are the whole year, each once', async () => {
    for (const calendar of ['', 'calendar.fiscal', 'calendar.retail']) {
      let total = 0;
      for (const q of ['q1', 'q2', 'q3', 'q4']) for (const r of await answer(`[delay] ${q} ${calendar}`)) total += r[0] as number;
      const [[all]] = await expected(`SELECT sum(delay) FROM ${FLIGHTS_T}`);
      assert.equal(total, all, calendar || 'gregorian');
    }
  });

  test('a named quarter written before the date column, and after a measure, bind alike', async () => {
    assert.deepEqual(await answer('[date] q2 [delay]'), await answer('[delay] q2'));
    assert.deepEqual(await answer('[delay] q2 by [origin]'), await answer('[origin] [delay] q2'));
  });
});
