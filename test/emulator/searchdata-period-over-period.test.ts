// The period-over-period keywords of `growth of <measure> by <date> <bucket> <period-over-period>`
// (docs.thoughtspot.com cloud/latest/search-growth, "Display periods (daily) over time"; keywords.ts
// `PERIOD_OVER_PERIOD`): each answer checked against rows computed apart from the emulator's compiler,
// plain TypeScript over the demo's raw seattle-weather.csv or DuckDB SQL written here by hand over the demo
// table. How periods line up where the page is silent (docs/service-notes.md §2.5 "Growth and
// year-over-year"): by date, as year-over-year: the same day of the month one month (three months) back, null
// when that month has no such day; the same week number in the previous month or quarter, weeks numbered as
// ISO 8601 numbers them in a year; the same weekday a week back; the same hour a day back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { periodOverPeriodBucketError } from '../../common/src/language/keywords';
import { adminCore, debugOf } from './core-support';
import { assertRows, weather, type WeatherDay } from './weather-support';

const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const WEATHER = stableGuid('table', 'demo', 'engine_default_schema', 'seattle-weather');
const DAY = 86400;

const core = adminCore();

/** The documented formula: (v − prev) × 100 / prev; null without an earlier value or when it is 0. */
const growth = (v: number, prev: number | undefined): number | null => (prev === undefined || prev === 0 ? null : ((v - prev) * 100) / prev);

// ---- the raw file (weather-support.ts), read without DuckDB ----

const tempByDay = new Map(weather.map((w) => [`${w.y}-${w.m}-${w.d}`, w.tempMax]));
/** Days in a month (month 1–12). */
const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Daily growth of the average temp_max against the same day of the month `months` back (none when that month is shorter). */
function dailyMonthsBack(months: number): unknown[][] {
  return weather.map((w) => {
    const back = w.y * 12 + (w.m - 1) - months;
    const [py, pm] = [Math.floor(back / 12), (back % 12) + 1];
    const prev = w.d <= daysIn(py, pm) ? tempByDay.get(`${py}-${pm}-${w.d}`) : undefined;
    return [w.epoch, w.tempMax, growth(w.tempMax, prev)];
  });
}

/** The row of a day in an answer whose first column is the day (epoch seconds). */
const rowOf = (rows: unknown[][], y: number, m: number, d: number): unknown[] => rows.find((r) => r[0] === Date.UTC(y, m - 1, d) / 1000)!;

describe('month-over-month (search-growth): each day against the same day of the previous month', () => {
  test('daily: the same day of the month one month back; a day the previous month lacks has none', async () => {
    const expected = dailyMonthsBack(1);
    const r = await core.answer('growth of [temp_max] by [date] daily month-over-month', WEATHER);
    assert.deepEqual(r.columnNames, ['Day(date)', 'Average temp_max', 'Growth of Average temp_max']);
    assertRows(r.data, expected);
    // the leap day: 29 March 2012 against 29 February 2012; 29 March 2013 has no 29 February 2013
    assert.equal(rowOf(r.data, 2012, 3, 29)[2], growth(tempByDay.get('2012-3-29')!, tempByDay.get('2012-2-29')!));
    assert.equal(rowOf(r.data, 2013, 3, 29)[2], null);
    // month ends: 31 March and 31 May have no day 31 a month before; 31 August has 31 July
    assert.equal(rowOf(r.data, 2012, 3, 31)[2], null);
    assert.equal(rowOf(r.data, 2012, 5, 31)[2], null);
    assert.equal(rowOf(r.data, 2012, 8, 31)[2], growth(tempByDay.get('2012-8-31')!, tempByDay.get('2012-7-31')!));
    // the first month has no previous month in the data
    assert.ok(r.data.slice(0, 31).every((row) => row[2] === null));
  });

  test('weekly: the week of the same number in the previous month (a week is its Thursday\'s month\'s)', async () => {
    assertRows((await core.answer('growth of [precipitation] by [date] weekly month-over-month', WEATHER)).data, weeklyPeriodsBack(1));
  });
});

describe('quarter-over-quarter (search-growth): each period against the same place in the previous quarter', () => {
  test('monthly: month 2 of Q3 against month 2 of Q2 (hand-written SQL)', async () => {
    const r = await core.answer('growth of [precipitation] by [date] monthly quarter-over-quarter', WEATHER);
    const expected = await core.sql(
      `WITH m AS (SELECT date_trunc('month', "date") AS k, sum(precipitation) AS v FROM "demo.engine_default_schema"."seattle-weather" GROUP BY 1)
       SELECT epoch(a.k), a.v, (a.v - b.v) * 100.0 / NULLIF(b.v, 0) FROM m a LEFT JOIN m b ON b.k = a.k - INTERVAL 3 MONTH ORDER BY a.k`,
    );
    assert.equal(expected.length, 48);
    assertRows(r.data, expected);
    const august = r.data.find((row) => row[0] === Date.UTC(2013, 7, 1) / 1000)!;
    const may = r.data.find((row) => row[0] === Date.UTC(2013, 4, 1) / 1000)!;
    assert.equal(august[2], growth(august[1] as number, may[1] as number));
  });

  test('daily: the same day of the month three months back (31 May has no 31 February; 29 May 2012 has 29 February)', async () => {
    const r = await core.answer('growth of [temp_max] by [date] daily quarter-over-quarter', WEATHER);
    assertRows(r.data, dailyMonthsBack(3));
    assert.equal(rowOf(r.data, 2012, 5, 31)[2], null);
    assert.equal(rowOf(r.data, 2012, 5, 29)[2], growth(tempByDay.get('2012-5-29')!, tempByDay.get('2012-2-29')!));
    assert.equal(rowOf(r.data, 2013, 5, 29)[2], null);
  });

  test('weekly: the week of the same number in the previous quarter', async () => {
    assertRows((await core.answer('growth of [precipitation] by [date] weekly quarter-over-quarter', WEATHER)).data, weeklyPeriodsBack(3));
  });
});

describe('weekly year-over-year: ISO weeks, or the fiscal year\'s weeks under calendar.fiscal', () => {
  test('weekly year-over-year compares ISO week n with ISO week n of the previous ISO year', async () => {
    assertRows((await core.answer('growth of [precipitation] by [date] weekly year-over-year', WEATHER)).data, weeklyPeriodsBack(12));
  });

  test('under calendar.fiscal (the demo\'s fiscal year starts in April) week n of a fiscal year against week n of the previous one', async () => {
    const r = await core.answer('growth of [precipitation] by [date] weekly year-over-year calendar.fiscal', WEATHER);
    assertRows(r.data, weeklyPeriodsBack(12, weather, 3));
    assert.notDeepEqual(r.data, weeklyPeriodsBack(12), 'the fiscal weeks are not the ISO ones');
  });
});

describe('week-over-week and day-over-day (search-growth)', () => {
  test('week-over-week, daily: each day against the same weekday a week before', async () => {
    const byEpoch = new Map(weather.map((w) => [w.epoch, w.tempMax]));
    const expected = weather.map((w) => [w.epoch, w.tempMax, growth(w.tempMax, byEpoch.get(w.epoch - 7 * DAY))]);
    assertRows((await core.answer('growth of [temp_max] by [date] daily week-over-week', WEATHER)).data, expected);
  });

  test('day-over-day, hourly: each hour against the same hour a day before (hand-written SQL)', async () => {
    const r = await core.answer('growth of [delay] by [date] hourly day-over-day', FLIGHTS);
    assert.deepEqual(r.columnNames, ['Hour(date)', 'Total delay', 'Growth of Total delay']);
    const expected = await core.sql(
      `WITH h AS (SELECT date_trunc('hour', "date") AS k, sum(delay) AS v FROM "demo.engine_default_schema"."flights" GROUP BY 1)
       SELECT epoch(a.k), a.v, (a.v - b.v) * 100.0 / NULLIF(b.v, 0) FROM h a LEFT JOIN h b ON b.k = a.k - INTERVAL 24 HOUR ORDER BY a.k`,
    );
    assert.ok(expected.length > 1000 && expected.filter((row) => row[2] !== null).length > 1000, 'the flights have hours a day apart');
    assertRows(r.data, expected);
  });
});

describe('an attribute splits the series: each value compared with its own earlier period', () => {
  const kinds = [...new Set(weather.map((w) => w.kind))].sort();
  /** The answer's rows of one weather kind, without the kind: [date, measure, growth]. */
  const seriesOf = (rows: unknown[][], kind: string): unknown[][] => {
    const i = rows[0]!.findIndex((v) => typeof v === 'string');
    return rows.filter((r) => r[i] === kind).map((r) => r.filter((_, j) => j !== i)).sort((a, b) => (a[0] as number) - (b[0] as number));
  };

  test('weekly quarter-over-quarter by [weather]', async () => {
    const r = await core.answer('[weather] growth of [precipitation] by [date] weekly quarter-over-quarter', WEATHER);
    assert.ok(kinds.length > 2);
    for (const kind of kinds) assertRows(seriesOf(r.data, kind), weeklyPeriodsBack(3, weather.filter((w) => w.kind === kind)));
  });

  test('daily week-over-week by [weather]: a day whose weather differed a week before has no earlier value', async () => {
    const r = await core.answer('[weather] growth of [temp_max] by [date] daily week-over-week', WEATHER);
    for (const kind of kinds) {
      const days = weather.filter((w) => w.kind === kind);
      const byEpoch = new Map(days.map((w) => [w.epoch, w.tempMax]));
      assertRows(seriesOf(r.data, kind), days.map((w) => [w.epoch, w.tempMax, growth(w.tempMax, byEpoch.get(w.epoch - 7 * DAY))]));
    }
  });
});

describe('a bucket the keyword cannot follow (search-growth\'s table) is a 400 with the language service\'s text', () => {
  for (const [query, keyword, bucket] of [
    ['growth of [delay] by [date] monthly month-over-month', 'month-over-month', 'monthly'],
    ['growth of [delay] by [date].weekly week-over-week', 'week-over-week', 'weekly'],
    ['growth of [delay] by [date] daily day-over-day', 'day-over-day', 'daily'],
    ['growth of [delay] by [date] hourly year-over-year', 'year-over-year', 'hourly'],
    ['growth of [delay] by [date] quarterly quarter-over-quarter', 'quarter-over-quarter', 'quarterly'],
    // no bucket written: the default, monthly
    ['growth of [delay] by [date] week-over-week', 'week-over-week', 'monthly'],
  ] as const) {
    test(query, async () => {
      const r = await core.searchdata(query, FLIGHTS);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.ok(debugOf(r.body).join(' ').includes(periodOverPeriodBucketError(keyword, bucket)!), JSON.stringify(r.body));
    });
  }
});

/**
 * Weekly growth of the summed precipitation of `days` against the week of the same number one period of
 * `months` months back, computed here: a week runs Monday to Sunday and belongs to the period holding its
 * Thursday; week 1 of a period is the first week whose Thursday is in it. Periods start in the months
 * `firstMonth` (0 = January) + k × `months` (a fiscal year starting in April: 12 and 3).
 */
function weeklyPeriodsBack(months: 1 | 3 | 12, days: readonly WeatherDay[] = weather, firstMonth = 0): unknown[][] {
  const mondayOf = (epoch: number): number => epoch - (((Math.floor(epoch / DAY) + 3) % 7) * DAY); // 1970-01-01 was a Thursday
  /** The period of a week as a month count (year × 12 + month index of its first month) and the week's number in it. */
  const place = (monday: number): [number, number] => {
    const thursday = new Date((monday + 3 * DAY) * 1000);
    const mi = thursday.getUTCFullYear() * 12 + thursday.getUTCMonth();
    const start = mi - ((((mi - firstMonth) % months) + months) % months);
    const firstThursdayWeek = mondayOf(Date.UTC(Math.floor(start / 12), start % 12, 4) / 1000);
    return [start, (monday - firstThursdayWeek) / (7 * DAY) + 1];
  };
  const sums = new Map<number, number>();
  for (const w of days) sums.set(mondayOf(w.epoch), (sums.get(mondayOf(w.epoch)) ?? 0) + w.precipitation);
  const weeks = [...sums].sort((a, b) => a[0] - b[0]);
  const byPlace = new Map(weeks.map(([k, v]) => [place(k).join('/'), v]));
  if (days === weather) assert.ok(weeks.some(([k]) => place(k)[1] === 5), 'the data has months with a fifth week');
  return weeks.map(([k, v]) => {
    const [start, n] = place(k);
    return [k, v, growth(v, byPlace.get(`${start - months}/${n}`))];
  });
}
