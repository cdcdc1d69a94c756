// `calendar.<name>` on searchdata: the demo's 4-4-5 calendar `retail` (emulator/src/customCalendar.ts) used by
// the buckets, the date parts and the period date filters, checked against rows computed apart from the
// compiler: DuckDB SQL written here over the `retail_calendar` and `flights` tables, and period bounds
// written out by hand from the 4-4-5 rule. Sources: docs.thoughtspot.com cloud/latest/connections-cust-cal
// ("Search features": date keywords like `this quarter`; "Limitations": rolling date filters such as `last N
// months` are not supported; one calendar per clause), the keyword reference's `calendar` entry
// (thoughtspot/thoughtspot-docs cloud/modules/ROOT/partials/keywords/calendar.adoc). docs/service-notes.md §2.5.
//
// The pinned clock is Friday 15 June 2001. Fiscal 2001 of the retail calendar starts Sunday 2 July 2000
// (the first Sunday on or after 1 July); its quarters start 2 Jul, 1 Oct, 31 Dec 2000 and 1 Apr 2001; the
// fourth quarter's months start 1 Apr, 29 Apr and 27 May 2001 (4, 4 and 5 weeks); fiscal 2002 starts 1 Jul 2001.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { parseQuery } from '../../common/src/language/parser';
import { KEYWORDS } from '../../common/src/language/keywords';
import { compileSearch } from '../../emulator/src/searchdata/compile';
import type { LogicalColumn } from '../../emulator/src/metadataStore';
import { adminCore, debugOf } from './core-support';

const FLIGHTS_T = '"demo.engine_default_schema"."flights"';
const CAL_T = '"demo.engine_default_schema"."retail_calendar"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

const core = adminCore();

const answer = async (query: string): Promise<unknown[][]> => (await core.answer(query, FLIGHTS)).data;

async function refused(query: string): Promise<string> {
  const r = await core.call('POST', '/searchdata', { query_string: query, data_source_guid: FLIGHTS, batchsize: -1 }, core.cookie);
  assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  return debugOf(r.body).join(' ');
}

/** The expected rows: DuckDB SQL written here, numbers as numbers. */
async function expected(sql: string): Promise<unknown[][]> {
  return (await core.sql(sql)).map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
}

/** The flights with their calendar row (`c`), joined by day. */
const JOINED = `${FLIGHTS_T} f JOIN ${CAL_T} c ON c."date" = CAST(f."date" AS DATE)`;

describe('calendar.retail: buckets and date parts are the calendar\'s', () => {
  test('monthly: one row per calendar month, keyed by its first day', async () => {
    const rows = await answer('[date].monthly [delay] calendar.retail');
    assert.deepEqual(rows, await expected(`SELECT epoch(CAST(c.start_of_month_epoch AS TIMESTAMP)), sum(f.delay) FROM ${JOINED} GROUP BY 1 ORDER BY 1`));
    // 1 Apr, 29 Apr, 27 May 2001 are among the month starts; 1 May 2001 (Gregorian) is not
    const starts = rows.map((r) => new Date((r[0] as number) * 1000).toISOString().slice(0, 10));
    for (const d of ['2001-04-01', '2001-04-29', '2001-05-27']) assert.ok(starts.includes(d), `${d} in ${starts.join(' ')}`);
    assert.ok(!starts.includes('2001-05-01'));
  });

  test('weekly, quarterly and yearly follow the calendar too', async () => {
    for (const [bucket, col] of [['weekly', 'week'], ['quarterly', 'quarter'], ['yearly', 'year']]) {
      assert.deepEqual(await answer(`[date].${bucket} [delay] calendar.retail`), await expected(`SELECT epoch(CAST(c.start_of_${col}_epoch AS TIMESTAMP)), sum(f.delay) FROM ${JOINED} GROUP BY 1 ORDER BY 1`), bucket);
    }
  });

  test('month of year, quarter of year, month of quarter: the place of the calendar period in the larger one', async () => {
    // counted: the distinct period starts from the larger period's start to the day
    const ranked = `SELECT a."date", count(DISTINCT CASE WHEN b."date" >= a.start_of_year_epoch THEN b.start_of_month_epoch END) AS moy,
      count(DISTINCT CASE WHEN b."date" >= a.start_of_year_epoch THEN b.start_of_quarter_epoch END) AS qoy,
      count(DISTINCT CASE WHEN b."date" >= a.start_of_quarter_epoch THEN b.start_of_month_epoch END) AS moq
      FROM ${CAL_T} a JOIN ${CAL_T} b ON b."date" BETWEEN a.start_of_year_epoch AND a."date"
      WHERE a."date" BETWEEN DATE '2000-07-01' AND DATE '2001-07-31' GROUP BY a."date"`;
    const j = `${FLIGHTS_T} f JOIN (${ranked}) r ON r."date" = CAST(f."date" AS DATE)`;
    for (const [part, col] of [['month of year', 'moy'], ['quarter of year', 'qoy'], ['month of quarter', 'moq']]) {
      assert.deepEqual(await answer(`[date].'${part}' [delay] calendar.retail`), await expected(`SELECT ${col}, sum(f.delay) FROM ${j} GROUP BY 1 ORDER BY 1`), part);
    }
    // January to June 2001 are fiscal months 7 to 12 of fiscal 2001
    assert.deepEqual((await answer("[date].'month of year' [delay] calendar.retail")).map((r) => r[0]), [7, 8, 9, 10, 11, 12]);
  });

  test('week of year, day of week and day of month are the calendar\'s', async () => {
    assert.deepEqual(await answer("[date].'week of year' [delay] calendar.retail"), await expected(`SELECT c.week_number_of_year, sum(f.delay) FROM ${JOINED} GROUP BY 1 ORDER BY 1`));
    // weeks start on Sunday: day 1 is Sunday
    assert.deepEqual(await answer("[date].'day of week' [delay] calendar.retail"), await expected(`SELECT dayofweek(f."date") + 1, sum(f.delay) FROM ${FLIGHTS_T} f GROUP BY 1 ORDER BY 1`));
    assert.deepEqual(await answer("[date].'day of month' [delay] calendar.retail"), await expected(`SELECT datediff('day', c.start_of_month_epoch, c."date") + 1, sum(f.delay) FROM ${JOINED} GROUP BY 1 ORDER BY 1`));
  });

  test('plain calendar (Gregorian) and calendar.fiscal keep their buckets', async () => {
    assert.deepEqual(await answer('[date].monthly [delay] calendar'), await expected(`SELECT epoch(date_trunc('month', f."date")), sum(f.delay) FROM ${FLIGHTS_T} f GROUP BY 1 ORDER BY 1`));
    assert.deepEqual(await answer('[date].monthly [delay] calendar.gregorian'), await answer('[date].monthly [delay]'));
    // fiscal years start in April (the default offset): January to March 2001 are fiscal 2000, April on fiscal 2001
    assert.deepEqual((await answer('[date].yearly [delay] calendar.fiscal')).map((r) => new Date((r[0] as number) * 1000).toISOString().slice(0, 10)), ['2000-04-01', '2001-04-01']);
  });
});

describe('calendar.retail: period date filters use the calendar\'s periods', () => {
  /** The total delay of the flights on days [from, to), dates written by hand. */
  const delayBetween = async (from: string, to: string): Promise<unknown[][]> =>
    expected(`SELECT sum(delay) FROM ${FLIGHTS_T} WHERE CAST("date" AS DATE) >= DATE '${from}' AND CAST("date" AS DATE) < DATE '${to}'`);

  const cases: [string, string, string][] = [
    ['this month', '2001-05-27', '2001-07-01'],
    ['last month', '2001-04-29', '2001-05-27'],
    ['2 months ago', '2001-04-01', '2001-04-29'],
    ['this quarter', '2001-04-01', '2001-07-01'],
    ['last quarter', '2000-12-31', '2001-04-01'],
    ['this year', '2000-07-02', '2001-07-01'],
    ['this week', '2001-06-10', '2001-06-17'],
    ['last week', '2001-06-03', '2001-06-10'],
    ['month to date', '2001-05-27', '2001-06-15'],
    ['quarter to date', '2001-04-01', '2001-06-15'],
    ['year to date', '2000-07-02', '2001-06-15'],
  ];
  for (const [filter, from, to] of cases) {
    test(`[delay] ${filter} calendar.retail keeps ${from} to ${to} (exclusive)`, async () => {
      assert.deepEqual(await answer(`[delay] ${filter} calendar.retail`), await delayBetween(from, to));
      // the date column named, and the calendar written first: the same
      assert.deepEqual(await answer(`calendar.retail [delay] [date] ${filter}`), await delayBetween(from, to));
    });
  }

  test('a named month is the calendar\'s month: january is fiscal January (31 Dec 2000 to 27 Jan 2001)', async () => {
    assert.deepEqual(await answer('[delay] january calendar.retail'), await delayBetween('2000-12-31', '2001-01-28'));
  });

  test('month to date under a monthly bucket: in every calendar month, its days up to today\'s place (day 20)', async () => {
    // 15 June is day 20 of the calendar month that starts 27 May
    const rows = await answer('[date].monthly [delay] month to date calendar.retail');
    assert.deepEqual(rows, await expected(`SELECT epoch(CAST(c.start_of_month_epoch AS TIMESTAMP)), sum(f.delay) FROM ${JOINED} WHERE datediff('day', c.start_of_month_epoch, c."date") < 20 GROUP BY 1 ORDER BY 1`));
  });

  test('last 2 days for each month: the last two days of each calendar month', async () => {
    assert.deepEqual(await answer('[date].monthly [delay] last 2 days for each month calendar.retail'), await expected(`SELECT epoch(CAST(c.start_of_month_epoch AS TIMESTAMP)), sum(f.delay) FROM ${JOINED} WHERE c."date" >= c.end_of_month_epoch - 2 GROUP BY 1 ORDER BY 1`));
  });

  test('rolling filters (last N months) are refused, citing the custom calendar page; last 7 days still runs', async () => {
    for (const q of ['[delay] last 3 months calendar.retail', '[delay] next 2 quarters calendar.retail']) {
      const msg = await refused(q);
      assert.match(msg, /rolling date filter/);
      assert.match(msg, /connections-cust-cal/);
    }
    assert.deepEqual(await answer('[delay] last 7 days calendar.retail'), await delayBetween('2001-06-08', '2001-06-15'));
  });
});

describe('calendar names', () => {
  test('an unknown calendar is a 400 naming the known ones', async () => {
    const msg = await refused('[date].monthly [delay] calendar.lunar');
    assert.match(msg, /Unknown calendar lunar/);
    assert.match(msg, /calendar\.retail/);
    assert.match(msg, /calendar\.fiscal/);
  });

  test('the calendar name is matched ignoring case, and two calendars in one query are refused', async () => {
    assert.deepEqual(await answer('[date].monthly [delay] calendar.RETAIL'), await answer('[date].monthly [delay] calendar.retail'));
    assert.match(await refused('[date].monthly [delay] calendar.retail calendar.fiscal'), /one calendar/);
  });

  test('year-over-year growth with a custom calendar is refused by name', async () => {
    assert.match(await refused('growth of [delay] by [date] monthly year-over-year calendar.retail'), /year-over-year with calendar\.retail/);
  });
});

describe('<unit> to date for each <period> (month_to_date_for_each_quarter.adoc, week_to_date_for_each_month.adoc, …)', () => {
  // keywords-to-date: under a bucket of the same or a larger period the query "is re-written as FOR EACH
  // period"; written out, `for each <period>` does the same without adding the bucket. Today is 15 June 2001.
  const sum = async (where: string): Promise<unknown[][]> => expected(`SELECT sum(delay) FROM ${FLIGHTS_T} WHERE ${where}`);

  test('month to date for each quarter: in every quarter, its month of today\'s place (the third), days 1 to 15', async () => {
    assert.deepEqual(await answer('[delay] month to date for each quarter'), await sum(`month("date") IN (3, 6) AND dayofmonth("date") <= 15`));
  });

  test('month to date for each month, with a monthly bucket: days 1 to 15 of every month', async () => {
    assert.deepEqual(await answer('[date].monthly [delay] month to date for each month'), await expected(`SELECT epoch(date_trunc('month', "date")), sum(delay) FROM ${FLIGHTS_T} WHERE dayofmonth("date") <= 15 GROUP BY 1 ORDER BY 1`));
  });

  test('with calendar.retail: the calendar\'s quarters and months (today is day 20 of the third month of its quarter)', async () => {
    // third months: 25 Feb to 31 Mar 2001 and 27 May to 30 Jun 2001; their days 1 to 20, today included (FOR EACH)
    assert.deepEqual(await answer('[delay] month to date for each quarter calendar.retail'),
      await sum(`(CAST("date" AS DATE) BETWEEN DATE '2001-02-25' AND DATE '2001-03-16') OR (CAST("date" AS DATE) BETWEEN DATE '2001-05-27' AND DATE '2001-06-15')`));
  });

  test('the catalogue\'s examples of the documented phrases answer the FOR EACH rows (keywords-to-date\'s rule table)', async () => {
    // Written out from the rule table for Friday 15 June 2001: day 5 of its (Monday) week, week 3 of June (the
    // week of 1 June is the first), week 12 of the quarter (that of 1 April is the first), week 24 of the year
    // (that of Monday 1 January is the first), day 15 of the month,
    // the third month of its quarter, day 76 of the quarter, the second quarter, day 166 of the year.
    const d = 'CAST("date" AS DATE)';
    const weekOf = (p: string) => `(date_diff('day', date_trunc('week', date_trunc('${p}', ${d})), date_trunc('week', ${d})) // 7 + 1)`;
    const dayOfQuarter = `(date_diff('day', date_trunc('quarter', ${d}), ${d}) + 1)`;
    const rule: Record<string, string> = {
      'week to date for each week': `isodow(${d}) <= 5`,
      'week to date for each month': `isodow(${d}) <= 5 AND ${weekOf('month')} = 3`,
      'week to date for each quarter': `isodow(${d}) <= 5 AND ${weekOf('quarter')} = 12`,
      'week to date for each year': `isodow(${d}) <= 5 AND ${weekOf('year')} = 24`,
      'month to date for each month': `dayofmonth(${d}) <= 15`,
      'month to date for each quarter': `dayofmonth(${d}) <= 15 AND month(${d}) IN (3, 6, 9, 12)`,
      'month to date for each year': `dayofmonth(${d}) <= 15 AND month(${d}) = 6`,
      'quarter to date for each quarter': `${dayOfQuarter} <= 76`,
      'quarter to date for each year': `${dayOfQuarter} <= 76 AND quarter(${d}) = 2`,
      'year to date for each year': `dayofyear(${d}) <= 166`,
    };
    const phrases = KEYWORDS.filter((k) => k.phrase);
    assert.deepEqual(phrases.map((k) => k.name).sort(), Object.keys(rule).sort());
    for (const k of phrases) {
      // `by [date]` lists every distinct time (over 100,000 of them: compare the first page and the total).
      const by = /by \[(\w+)\]/.exec(k.example)![1]!;
      const key = by === 'date' ? 'epoch("date")' : by;
      const r = await core.call('POST', '/searchdata', { query_string: k.example, data_source_guid: FLIGHTS, batchsize: 20000 }, core.cookie);
      assert.equal(r.status, 200, `${k.example}: ${JSON.stringify(r.body)}`);
      const body = r.body as { data: unknown[][]; totalRowCount: number };
      const sql = `SELECT ${key}, sum(delay) FROM ${FLIGHTS_T} WHERE ${rule[k.name]!} GROUP BY 1`;
      assert.deepEqual(body.data, await expected(`${sql} ORDER BY 1 LIMIT 20000`), k.example);
      assert.deepEqual([[body.totalRowCount]], await expected(`SELECT count(*) FROM (${sql})`), k.example);
    }
  });

  test('a period shorter than the to-date unit is refused by name', async () => {
    assert.match(await refused('[delay] month to date for each week'), /a week does not hold a month/);
  });
});

describe('comparison filters under calendar.retail (connections-cust-cal: date keywords follow the calendar; "does not support a filter such as order date >= august 2025")', () => {
  const STOCKS_T = '"demo.engine_default_schema"."stocks"';
  const STOCKS = stableGuid('table', 'demo', 'engine_default_schema', 'stocks');
  const sum = async (where: string): Promise<unknown[][]> => expected(`SELECT sum(delay) FROM ${FLIGHTS_T} WHERE ${where}`);

  test('a plain date stays a date: >, between, after and before compare days, as without the calendar', async () => {
    const d = 'CAST("date" AS DATE)';
    assert.deepEqual(await answer("[delay] [date] > '2001-03-01' calendar.retail"), await sum(`${d} > DATE '2001-03-01'`));
    assert.deepEqual(await answer("[delay] [date] between '2001-02-25' and '2001-03-31' calendar.retail"), await sum(`${d} BETWEEN DATE '2001-02-25' AND DATE '2001-03-31'`));
    assert.deepEqual(await answer("[delay] [date] after '2001-05-27' calendar.retail"), await sum(`${d} > DATE '2001-05-27'`));
    assert.deepEqual(await answer("[delay] [date] before '2001-04-01' calendar.retail"), await sum(`${d} < DATE '2001-04-01'`));
  });

  test('a year is the calendar\'s year: [date] = 2005 keeps fiscal 2005 (4 Jul 2004 to 2 Jul 2005), != the others', async () => {
    // averages of prices, compared to 9 significant digits (the order of summation may differ)
    const round = (data: unknown[][]) => data.map(([s, p]) => [s, Number((p as number).toPrecision(9))]);
    const byCalendarYear = async (op: string): Promise<unknown[][]> => {
      const r = await core.call('POST', '/searchdata', { query_string: `[symbol] [price] [date] ${op} 2005 calendar.retail`, data_source_guid: STOCKS, batchsize: -1 }, core.cookie);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return round((r.body as { data: unknown[][] }).data);
    };
    const rows = async (sql: string) => round(await expected(`SELECT s.symbol, avg(s.price) FROM ${STOCKS_T} s JOIN ${CAL_T} c ON c."date" = CAST(s."date" AS DATE) WHERE ${sql} GROUP BY 1 ORDER BY 1`));
    assert.deepEqual(await byCalendarYear('='), await rows(`c."year" = '2005'`));
    assert.deepEqual(await byCalendarYear('='), await rows(`CAST(s."date" AS DATE) BETWEEN DATE '2004-07-04' AND DATE '2005-07-02'`));
    assert.deepEqual(await byCalendarYear('!='), await rows(`c."year" <> '2005'`));
  });

  test('an order comparison with a year (a named period) is refused citing the page; the alternative it gives works', async () => {
    for (const q of ['[delay] [date] >= 2001 calendar.retail', '[delay] [date] between 2000 and 2001 calendar.retail', '[delay] [date] after 2000 calendar.retail']) {
      assert.match(await refused(q), /connections-cust-cal.*order date after 12 months ago/, q);
    }
    assert.deepEqual(await answer('[delay] [date] >= 2001'), await sum('year("date") >= 2001'), 'Gregorian: a year compares years');
  });
});

test('without the calendar\'s table (an emulator started without --demo) calendar.retail is an unknown calendar', () => {
  const clauses = parseQuery('[date].monthly [delay] calendar.retail').query!.clauses;
  const columns: LogicalColumn[] = [
    { id: 'd', name: 'date', dataType: 'DATE_TIME', kind: 'ATTRIBUTE', aggregation: 'NONE', synonyms: [], physicalName: 'date' },
    { id: 'x', name: 'delay', dataType: 'INT32', kind: 'MEASURE', aggregation: 'SUM', synonyms: [], physicalName: 'delay' },
  ];
  assert.throws(() => compileSearch({ clauses, columns, table: '"t"', now: new Date(0), calendars: [] }), /Unknown calendar retail; the emulator knows calendar\.gregorian, calendar\.fiscal$/);
  assert.doesNotThrow(() => compileSearch({ clauses, columns, table: '"t"', now: new Date(0) }));
});
