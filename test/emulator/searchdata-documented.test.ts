// searchdata answers whose meaning the service's documentation spells out, each checked against rows
// computed apart from the emulator's compiler: JavaScript over the demo's raw vega-datasets files (or over
// the demo table's plain rows), or DuckDB SQL written here by hand. Sources, per test:
// - `similar to`: docs.thoughtspot.com cloud/latest/keywords-en-US#similar-to (thoughtspot/thoughtspot-docs
//   cloud/modules/ROOT/partials/keywords/similar-to.adoc, not-similar-to.adoc).
// - period to date with a date bucket: docs.thoughtspot.com cloud/latest/keywords-to-date.
// - `growth of` and year-over-year: docs.thoughtspot.com cloud/latest/search-growth.
// docs/service-notes.md §2.4, §2.5 restate them.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vegaDataDir } from '../../emulator/src/demo';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore } from './core-support';
import { assertRows, weather, type WeatherDay } from './weather-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const MOVIES = stableGuid('table', 'demo', 'engine_default_schema', 'movies');
const WEATHER = stableGuid('table', 'demo', 'engine_default_schema', 'seattle-weather');
const DAY = 86400;

// The pinned clock of every emulator test: Friday 15 June 2001.
const core = adminCore();

async function answer(query: string, ds: string): Promise<{ columnNames: string[]; data: unknown[][] }> {
  const r = await core.call('POST', '/searchdata', { query_string: query, data_source_guid: ds, batchsize: -1 }, core.cookie);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { columnNames: string[]; data: unknown[][] };
}

// ---- the raw files, read here without DuckDB ----


const movieTitles: (string | null)[] = (JSON.parse(readFileSync(join(vegaDataDir(), 'movies.json'), 'utf8')) as { Title: unknown }[]).map((m) => (m.Title === null || m.Title === undefined ? null : String(m.Title)));

/** Sums `value` per key, returned as [key, sum] sorted by key. */
function sumBy<T>(rows: T[], key: (r: T) => number | undefined, value: (r: T) => number): [number, number][] {
  const m = new Map<number, number>();
  for (const r of rows) {
    const k = key(r);
    if (k === undefined) continue;
    m.set(k, (m.get(k) ?? 0) + value(r));
  }
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

const yearStart = (w: WeatherDay): number => Date.UTC(w.y, 0, 1) / 1000;
const monthStart = (w: WeatherDay): number => Date.UTC(w.y, w.m - 1, 1) / 1000;
const quarterStart = (w: WeatherDay): number => Date.UTC(w.y, w.m - 1 - ((w.m - 1) % 3), 1) / 1000;
/** Monday of the week of an epoch-seconds day (1970-01-01 was a Thursday). */
const mondayOf = (epoch: number): number => epoch - (((Math.floor(epoch / DAY) + 3) % 7) * DAY);

describe('similar to: the text contains a match of the pattern (% any run, _ one character), any case', () => {
  /** The documented meaning, written as a regular expression over the lower-cased text. */
  const matches = (text: string, pattern: string): boolean => {
    const re = pattern
      .toLowerCase()
      .split('')
      .map((ch) => (ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    return new RegExp(re).test(text.toLowerCase());
  };
  const distinctSorted = (xs: (string | null)[]): (string | null)[] => [...new Set(xs)].sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1));
  const titlesOf = (rows: unknown[][]): (string | null)[] => distinctSorted(rows.map((r) => r[0] as string | null));

  test("similar to 'star' finds the titles that contain star, not only the title 'star'", async () => {
    const expected = distinctSorted(movieTitles.filter((t): t is string => t !== null && matches(t, 'star')));
    assert.ok(expected.length > 5 && expected.every((t) => t !== null && t.toLowerCase() !== 'star'), 'the data has titles with star inside them');
    const r = await answer("[Title] [Title] similar to 'star'", MOVIES);
    assert.deepEqual(titlesOf(r.data), expected);
  });

  test('wildcards: % is any run of characters and _ one character, matched anywhere in the text', async () => {
    for (const pattern of ['star%war', 'r_ck', '%man_']) {
      const expected = distinctSorted(movieTitles.filter((t): t is string => t !== null && matches(t, pattern)));
      assert.ok(expected.length > 0, pattern);
      const r = await answer(`[Title] [Title] similar to '${pattern}'`, MOVIES);
      assert.deepEqual(titlesOf(r.data), expected, pattern);
    }
  });

  test('two similar to on one column are OR-ed, as the page\'s second example shows', async () => {
    const expected = distinctSorted(movieTitles.filter((t): t is string => t !== null && (matches(t, 'jacket') || matches(t, 'lord of'))));
    assert.ok(expected.length >= 2);
    const r = await answer("[Title] [Title] similar to 'jacket' [Title] similar to 'lord of'", MOVIES);
    assert.deepEqual(titlesOf(r.data), expected);
  });

  test('not similar to keeps the titles that contain no match of any of the patterns', async () => {
    const expected = distinctSorted(movieTitles.filter((t) => t === null || !(matches(t, 'the') || matches(t, 'a_e'))));
    const r = await answer("[Title] [Title] not similar to 'the' [Title] not similar to 'a_e'", MOVIES);
    assert.deepEqual(titlesOf(r.data), expected);
  });
});

describe('period to date with a date bucket (keywords-to-date): a bucket of the same or a larger grain makes it "for each period"', () => {
  test('[date].monthly month to date [delay]: one row per month, days 1 to 15 of each (hand-written SQL)', async () => {
    const r = await answer('[date].monthly month to date [delay]', FLIGHTS);
    assert.deepEqual(r.columnNames, ['Month(date)', 'Total delay']);
    const expected = await core.sql(`SELECT epoch(date_trunc('month', "date")), sum(delay) FROM ${T} WHERE dayofmonth("date") <= 15 GROUP BY 1 ORDER BY 1`);
    assert.equal(expected.length, 6, 'January to June 2001');
    assertRows(r.data, expected);
  });

  test('a smaller bucket keeps the current period: [delay] [date].daily month to date is 1 to 15 June (hand-written SQL)', async () => {
    const r = await answer('[delay] [date].daily month to date', FLIGHTS);
    const expected = await core.sql(`SELECT epoch(date_trunc('day', "date")), sum(delay) FROM ${T} WHERE "date" >= TIMESTAMP '2001-06-01' AND "date" < TIMESTAMP '2001-06-16' GROUP BY 1 ORDER BY 1`);
    assert.equal(expected.length, 15);
    assertRows(r.data, expected);
  });

  test('month to date, yearly: each year, June 1 to 15 (today\'s month of year, days up to today\'s day of month)', async () => {
    const r = await answer('[precipitation] [date].yearly month to date', WEATHER);
    assertRows(r.data, sumBy(weather, (w) => (w.m === 6 && w.d <= 15 ? yearStart(w) : undefined), (w) => w.precipitation));
  });

  test('month to date, quarterly: each quarter, the third month (as June is in its quarter), days 1 to 15', async () => {
    const r = await answer('[precipitation] [date].quarterly month to date', WEATHER);
    const expected = sumBy(weather, (w) => (w.m % 3 === 0 && w.d <= 15 ? quarterStart(w) : undefined), (w) => w.precipitation);
    assert.equal(expected.length, 16);
    assertRows(r.data, expected);
  });

  test('week to date, monthly: each month, the week at today\'s place in its month, Monday to Friday', async () => {
    // 15 June 2001 is the Friday of the third week that touches June (weeks from Monday: 28 May, 4 June, 11 June).
    const today = Date.UTC(2001, 5, 15) / 1000;
    const weekIndex = (epoch: number, first: number): number => (mondayOf(epoch) - mondayOf(first)) / (7 * DAY);
    assert.equal(weekIndex(today, Date.UTC(2001, 5, 1) / 1000), 2);
    const r = await answer('[date].monthly week to date [precipitation]', WEATHER);
    const expected = sumBy(weather, (w) => (weekIndex(w.epoch, monthStart(w)) === 2 && (w.epoch - mondayOf(w.epoch)) / DAY <= 4 ? monthStart(w) : undefined), (w) => w.precipitation);
    assertRows(r.data, expected);
  });

  test('quarter to date, yearly: each year, the second quarter up to its 76th day', async () => {
    const dayOfQuarter = (w: WeatherDay): number => (w.epoch - quarterStart(w)) / DAY + 1;
    const r = await answer('[precipitation] [date].yearly quarter to date', WEATHER);
    assertRows(r.data, sumBy(weather, (w) => (Math.ceil(w.m / 3) === 2 && dayOfQuarter(w) <= 76 ? yearStart(w) : undefined), (w) => w.precipitation));
  });

  test('year to date, yearly: each year up to its 166th day (15 June 2001 is day 166)', async () => {
    const r = await answer('[precipitation] [date].yearly year to date', WEATHER);
    assertRows(r.data, sumBy(weather, (w) => ((w.epoch - yearStart(w)) / DAY + 1 <= 166 ? yearStart(w) : undefined), (w) => w.precipitation));
  });
});

describe('growth of (search-growth): (value − previous value) / previous value × 100, the previous value as it is', () => {
  /** Growth of sorted [key, value] pairs: each relative to the one before; null for the first and after a 0. */
  const growth = (series: [number, number][]): [number, number, number | null][] =>
    series.map(([k, v], i) => {
      const prev = i > 0 ? series[i - 1]![1] : undefined;
      return [k, v, prev === undefined || prev === 0 ? null : ((v - prev) * 100) / prev];
    });
  let flightRows: [number, number][];
  before(async () => {
    flightRows = (await core.sql(`SELECT epoch("date"), delay FROM ${T} WHERE delay IS NOT NULL`)) as [number, number][];
  });

  test('daily: the days after a negative total keep the sign of the change (17 such days in the demo)', async () => {
    const expected = growth(sumBy(flightRows, ([t]) => Math.floor(t / DAY) * DAY, ([, d]) => d));
    const afterNegative = expected.filter((_, i) => i > 0 && expected[i - 1]![1] < 0);
    assert.equal(afterNegative.length, 17, 'days whose growth divides by a negative total');
    const r = await answer('growth of [delay] by [date] daily', FLIGHTS);
    assert.deepEqual(r.columnNames, ['Day(date)', 'Total delay', 'Growth of Total delay']);
    assertRows(r.data, expected);
  });

  test('weekly and monthly follow the same formula', async () => {
    const weekly = growth(sumBy(flightRows, ([t]) => mondayOf(Math.floor(t / DAY) * DAY), ([, d]) => d));
    assertRows((await answer('growth of [delay] by [date] weekly', FLIGHTS)).data, weekly);
    const monthly = growth(
      sumBy(
        flightRows,
        ([t]) => {
          const d = new Date(t * 1000);
          return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
        },
        ([, d]) => d,
      ),
    );
    assertRows((await answer('growth of [delay] by [date] monthly', FLIGHTS)).data, monthly);
  });
});

describe('year-over-year (search-growth): each period against the same period one year earlier', () => {
  test('daily: each day against the same calendar date a year before; 29 February has none', async () => {
    const byDay = new Map(weather.map((w) => [`${w.y}-${w.m}-${w.d}`, w.tempMax]));
    const expected = weather.map((w) => {
      const prev = w.m === 2 && w.d === 29 ? undefined : byDay.get(`${w.y - 1}-${w.m}-${w.d}`);
      return [w.epoch, w.tempMax, prev === undefined || prev === 0 ? null : ((w.tempMax - prev) * 100) / prev];
    });
    const r = await answer('growth of [temp_max] by [date] daily year-over-year', WEATHER);
    assert.deepEqual(r.columnNames, ['Day(date)', 'Average temp_max', 'Growth of Average temp_max']);
    assertRows(r.data, expected);
    // 1 March 2013 is compared with 1 March 2012, not with 29 February 2012 (both are day 60 of their year).
    const march1 = r.data.find((row) => row[0] === Date.UTC(2013, 2, 1) / 1000)!;
    assert.equal(march1[2], ((byDay.get('2013-3-1')! - byDay.get('2012-3-1')!) * 100) / byDay.get('2012-3-1')!);
  });

  test('weekly: each ISO week against the same week number of the previous ISO year (week 53 has none)', async () => {
    /** ISO 8601 week-numbering year and week of a day (the week's Thursday decides the year). */
    const isoWeek = (epoch: number): [number, number] => {
      const thursday = new Date((mondayOf(epoch) + 3 * DAY) * 1000);
      const y = thursday.getUTCFullYear();
      return [y, Math.floor((thursday.getTime() / 1000 - Date.UTC(y, 0, 1) / 1000) / (7 * DAY)) + 1];
    };
    const weeks = sumBy(weather, (w) => mondayOf(w.epoch), (w) => w.precipitation);
    const byWeek = new Map(weeks.map(([k, v]) => [isoWeek(k).join('-'), v]));
    const expected = weeks.map(([k, v]) => {
      const [y, n] = isoWeek(k);
      const prev = byWeek.get(`${y - 1}-${n}`);
      return [k, v, prev === undefined || prev === 0 ? null : ((v - prev) * 100) / prev];
    });
    assert.ok(weeks.some(([k]) => isoWeek(k)[1] === 53), 'the data has a week 53 (2015)');
    assertRows((await answer('growth of [precipitation] by [date] weekly year-over-year', WEATHER)).data, expected);
  });

  test('monthly: each month against the same month a year before (hand-written SQL)', async () => {
    const r = await answer('growth of [precipitation] by [date] monthly year-over-year', WEATHER);
    const expected = await core.sql(
      `WITH m AS (SELECT date_trunc('month', "date") AS k, sum(precipitation) AS v FROM "demo.engine_default_schema"."seattle-weather" GROUP BY 1)
       SELECT epoch(a.k), a.v, (a.v - b.v) * 100.0 / NULLIF(b.v, 0) FROM m a LEFT JOIN m b ON b.k = a.k - INTERVAL 1 YEAR ORDER BY a.k`,
    );
    assert.equal(expected.length, 48);
    assertRows(r.data, expected);
  });
});
