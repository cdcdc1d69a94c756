// searchdata of the emulator, each answer checked against the same question asked of DuckDB directly
// (hand-written SQL on the emulator's own database), plus paging, FULL rows, errors and injection attempts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore, debugOf } from './core-support';
import { assertRows } from './weather-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const MOVIES = stableGuid('table', 'demo', 'engine_default_schema', 'movies');
const WORKSHEET = stableGuid('worksheet', 'Flights Worksheet');

const core = adminCore();

async function search(query: string, extra: Record<string, string | number> = {}, ds = FLIGHTS, who = core.cookie) {
  return core.call('POST', '/searchdata', { query_string: query, data_source_guid: ds, ...extra }, who);
}

describe('searchdata answers match DuckDB', () => {
  const cases: [string, string, string[], string, string?][] = [
    ['an attribute and a measure group and sum, ordered by the attribute', '[origin] [delay]', ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} GROUP BY origin ORDER BY origin`],
    ['measures come after attributes, each in query order', '[delay] [destination] [distance] [origin]', ['destination', 'origin', 'Total delay', 'Total distance'], `SELECT destination, origin, sum(delay), sum(distance) FROM ${T} GROUP BY destination, origin ORDER BY destination, origin`],
    ['top N ranks by the first measure', '[origin] [delay] top 5', ['origin', 'Total delay'], `SELECT origin, sum(delay) s FROM ${T} GROUP BY origin ORDER BY s DESC, origin LIMIT 5`],
    ['bottom N with another aggregation', 'bottom 3 [destination] average [distance]', ['destination', 'Average distance'], `SELECT destination, avg(distance) a FROM ${T} GROUP BY destination ORDER BY a ASC, destination LIMIT 3`],
    ['top without N means 10', '[origin] top [distance]', ['origin', 'Total distance'], `SELECT origin, sum(distance) s FROM ${T} GROUP BY origin ORDER BY s DESC, origin LIMIT 10`],
    ['sort by a measure ascending', '[origin] [delay] sort by [delay] ascending', ['origin', 'Total delay'], `SELECT origin, sum(delay) s FROM ${T} GROUP BY origin ORDER BY s ASC, origin`],
    ['a list of text values matches case-insensitively and adds no column', "[destination] [delay] [origin] = 'sea', 'PDX'", ['destination', 'Total delay'], `SELECT destination, sum(delay) FROM ${T} WHERE origin IN ('SEA', 'PDX') GROUP BY destination ORDER BY destination`],
    ['!= and > on numbers', "[origin] count [delay] [origin] != 'ORD' [distance] > 2000", ['origin', 'Count delay'], `SELECT origin, count(delay) FROM ${T} WHERE origin <> 'ORD' AND distance > 2000 GROUP BY origin ORDER BY origin`],
    ['between … and on numbers', '[origin] [delay] [distance] between 100 and 150', ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE distance BETWEEN 100 AND 150 GROUP BY origin ORDER BY origin`],
    ['several begins with on one column are OR-ed', "[origin] [origin] begins with 's' [origin] begins with 'L' [delay]", ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE origin LIKE 'S%' OR origin LIKE 'L%' GROUP BY origin ORDER BY origin`],
    ['contains and not ends with', "[origin] [origin] contains 'a' [origin] not ends with 'x' max [delay]", ['origin', 'Max delay'], `SELECT origin, max(delay) FROM ${T} WHERE origin LIKE '%A%' AND origin NOT LIKE '%X' GROUP BY origin ORDER BY origin`],
    ['aggregate filter with for acts on groups', '[origin] [delay] for sum [delay] > 20000', ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} GROUP BY origin HAVING sum(delay) > 20000 ORDER BY origin`],
    ['unique count', '[origin] unique count [destination] top 3', ['origin', 'Unique Count destination'], `SELECT origin, count(DISTINCT destination) c FROM ${T} GROUP BY origin ORDER BY c DESC, origin LIMIT 3`],
    ['monthly buckets come back as epoch seconds', '[date].monthly [delay]', ['Month(date)', 'Total delay'], `SELECT epoch(date_trunc('month', date)), sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`],
    ['a bare bucket keyword applies to the previous date column', '[date] weekly [distance]', ['Week(date)', 'Total distance'], `SELECT epoch(date_trunc('week', date)), sum(distance) FROM ${T} GROUP BY 1 ORDER BY 1`],
    ["'day of week' is 1 (Monday) to 7", "[date].'day of week' count [delay]", ['Day of week(date)', 'Count delay'], `SELECT isodow(date), count(delay) FROM ${T} GROUP BY 1 ORDER BY 1`],
    ['date after a day', "[origin] [delay] [date] after '2001-06-20' [origin] = 'SEA'", ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE CAST(date AS DATE) > DATE '2001-06-20' AND origin = 'SEA' GROUP BY origin ORDER BY origin`],
    ['last 2 months with the pinned clock (2001-06-15)', '[delay] [date] last 2 months', ['Total delay'], `SELECT sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-04-01' AND date < TIMESTAMP '2001-06-01'`],
    ['this month and yesterday', '[origin] [delay] [date] yesterday top 3', ['origin', 'Total delay'], `SELECT origin, sum(delay) s FROM ${T} WHERE date >= TIMESTAMP '2001-06-14' AND date < TIMESTAMP '2001-06-15' GROUP BY origin ORDER BY s DESC, origin LIMIT 3`],
    ['year to date', 'count [delay] [date] year to date', ['Count delay'], `SELECT count(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-01-01' AND date < TIMESTAMP '2001-06-16'`],
    ['growth of … by … monthly', 'growth of [delay] by [date] monthly', ['Month(date)', 'Total delay', 'Growth of Total delay'], `SELECT epoch(m), s, (s - lag(s) OVER (ORDER BY m)) * 100.0 / lag(s) OVER (ORDER BY m) FROM (SELECT date_trunc('month', date) m, sum(delay) s FROM ${T} GROUP BY 1) ORDER BY m`],
    ['{null} keeps rows without a value', '[origin] count [delay] [delay] = {null}', ['origin', 'Count delay'], `SELECT origin, count(delay) FROM ${T} WHERE delay IS NULL GROUP BY origin ORDER BY origin`],
    ['attributes alone give distinct combinations', "[origin] [destination] [origin] = 'sea'", ['origin', 'destination'], `SELECT DISTINCT origin, destination FROM ${T} WHERE origin = 'SEA' ORDER BY origin, destination`],
    ['between two dates compares by day', "[origin] [delay] [date] between '2001-03-01' and '03/02/2001' [origin] = 'LAX'", ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE CAST(date AS DATE) BETWEEN DATE '2001-03-01' AND DATE '2001-03-02' AND origin = 'LAX' GROUP BY origin ORDER BY origin`],
    ['a year as a date value compares years', "[Major Genre] [US Gross] [Release Date] after 2005 [Release Date] before '2008'", ['Major Genre', 'Total US Gross'], `SELECT "Major Genre", sum("US Gross") FROM "demo.engine_default_schema"."movies" WHERE year("Release Date") > 2005 AND year("Release Date") < 2008 GROUP BY 1 ORDER BY 1`, MOVIES],
    ['a filter on a date part', "[origin] [delay] [date].'day of week' = 7 [origin] = 'sea'", ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE isodow(date) = 7 AND origin = 'SEA' GROUP BY origin ORDER BY origin`],
    ['similar to: a pattern with wildcards found anywhere in the text', "[origin] [origin] similar to 's_a' [delay]", ['origin', 'Total delay'], `SELECT origin, sum(delay) FROM ${T} WHERE origin ILIKE '%s_a%' GROUP BY origin ORDER BY origin`],
    ['N units ago', '[delay] [date] 3 months ago', ['Total delay'], `SELECT sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-03-01' AND date < TIMESTAMP '2001-04-01'`],
    ['last N days excludes today', 'count [delay] [date] last 7 days', ['Count delay'], `SELECT count(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-06-08' AND date < TIMESTAMP '2001-06-15'`],
    ['calendar.fiscal starts the year in April', '[date].quarterly [delay] calendar.fiscal', ['Quarter(date)', 'Total delay'], `SELECT epoch(date_trunc('quarter', date - INTERVAL 3 MONTH) + INTERVAL 3 MONTH) q, sum(delay) FROM ${T} GROUP BY q ORDER BY q`],
    ['top N ranked by another measure', '[origin] [delay] [distance] top 3 ranked by [distance]', ['origin', 'Total delay', 'Total distance'], `SELECT origin, sum(delay), sum(distance) d FROM ${T} GROUP BY origin ORDER BY d DESC, origin LIMIT 3`],
    ['ranked by a measure that is not listed', '[origin] [delay] top 3 ranked by [distance]', ['origin', 'Total delay'], `SELECT origin, s FROM (SELECT origin, sum(delay) s, sum(distance) d FROM ${T} GROUP BY origin ORDER BY d DESC, origin LIMIT 3) ORDER BY d DESC, origin`],
    ['sort by a measure that is not listed', '[origin] sort by [distance] descending top 4', ['origin'], `SELECT origin FROM (SELECT origin, sum(distance) d FROM ${T} GROUP BY origin ORDER BY origin DESC LIMIT 4) ORDER BY d DESC, origin`],
    ['top N for each value of an attribute', "top 2 [destination] [delay] for each [origin] [origin] = 'SEA', 'PDX'", ['destination', 'origin', 'Total delay'], `SELECT destination, origin, s FROM (SELECT destination, origin, sum(delay) s FROM ${T} WHERE origin IN ('SEA', 'PDX') GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY origin ORDER BY s DESC, destination) <= 2 ORDER BY origin, s DESC, destination`],
    ['an aggregate filter on attributes alone', "[origin] for count [delay] > 3000", ['origin'], `SELECT origin FROM ${T} GROUP BY origin HAVING count(delay) > 3000 ORDER BY origin`],
    ['column names and keywords match case-insensitively', '[ORIGIN] [Delay] TOP 2', ['origin', 'Total delay'], `SELECT origin, sum(delay) s FROM ${T} GROUP BY origin ORDER BY s DESC, origin LIMIT 2`],
  ];
  for (const [what, query, names, sql, ds] of cases) {
    test(what, async () => {
      const r = await search(query, {}, ds);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.columnNames, names);
      const expected = await core.sql(sql);
      assertRows(r.body.data, expected);
      assert.equal(r.body.totalRowCount, expected.length);
      assert.equal(r.body.rowCount, expected.length);
    });
  }

  test('a worksheet answers like its table, under its own column names', async () => {
    const r = await search('[Origin] [Delay] top 3', {}, WORKSHEET);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.columnNames, ['Origin', 'Total Delay']);
    assertRows(r.body.data, await core.sql(`SELECT origin, sum(delay) s FROM ${T} GROUP BY origin ORDER BY s DESC, origin LIMIT 3`));
  });

  test('an answer of several result chunks (DuckDB gives 2,048 rows a chunk) comes back whole and in order', async () => {
    const expected = await core.sql(`SELECT origin, destination, sum(delay) FROM ${T} GROUP BY ALL ORDER BY origin, destination`);
    assert.ok(expected.length > 2048, `${expected.length} rows: not enough for two chunks`);
    const r = await search('[origin] [destination] [delay]');
    assert.equal(r.status, 200);
    assertRows(r.body.data, expected);
    assert.equal(r.body.rowCount, expected.length);
  });

  test('the demo flights table has 200,000 rows with date, delay, distance, origin, destination', async () => {
    assertRows(await core.sql(`SELECT count(*) FROM ${T}`), [[200000]]);
    const r = await search('count [delay] total count [origin]');
    assert.equal(r.status, 200);
    assertRows(r.body.data, await core.sql(`SELECT count(delay), count(*) FROM ${T}`));
  });
});

describe('searchdata paging and formats (docs/service-notes.md §1.2-1.4)', () => {
  const base = `SELECT origin FROM ${T} GROUP BY origin ORDER BY origin`;
  test('batchsize -1 gives pageSize 100000 and offset 0', async () => {
    const r = await search('[origin]');
    assert.equal(r.body.pageSize, 100000);
    assert.equal(r.body.offset, 0);
    assert.equal(r.body.samplingRatio, 1);
  });
  test('pagenumber is 1-based and wins over offset', async () => {
    const all = await core.sql(base);
    const r = await search('[origin]', { batchsize: 7, pagenumber: 3, offset: 1 });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, all.slice(14, 21));
    assert.equal(r.body.totalRowCount, all.length);
    assert.equal(r.body.rowCount, 7);
    assert.equal(r.body.pageSize, 7);
    assert.equal(r.body.offset, 14);
  });
  test('offset is 0-based; a loop adding rowCount reads every row once', async () => {
    const all = await core.sql(base);
    const got: unknown[][] = [];
    let offset = 0;
    for (;;) {
      const r = await search('[origin]', { batchsize: 50, offset });
      got.push(...r.body.data);
      offset += r.body.rowCount;
      if (r.body.rowCount < r.body.pageSize) break;
    }
    assert.deepEqual(got, all);
  });
  test('a page past the end is empty but still counts the whole result', async () => {
    const r = await search('[origin]', { batchsize: 10, pagenumber: 1000 });
    assert.equal(r.body.rowCount, 0);
    assert.equal(r.body.totalRowCount, (await core.sql(base)).length);
  });
  test('at most 100,000 rows a call', async () => {
    const r = await search('[date] [origin] [destination]', { batchsize: 500000 });
    assert.equal(r.status, 200);
    assert.equal(r.body.pageSize, 100000);
    assert.equal(r.body.rowCount, 100000);
    const [[total]] = (await core.sql(`SELECT count(*) FROM (SELECT DISTINCT date, origin, destination FROM ${T})`)) as [[number]];
    assert.equal(r.body.totalRowCount, total);
  });
  test('FULL rows are objects keyed by column name with nulls left out', async () => {
    const r = await search("[Title] [Major Genre] [Title] begins with 'the b'", { formattype: 'FULL' }, MOVIES);
    assert.equal(r.status, 200);
    const expected = await core.sql(`SELECT "Title", "Major Genre" FROM "demo.engine_default_schema"."movies" WHERE lower("Title") LIKE 'the b%' GROUP BY ALL ORDER BY 1, 2`);
    assert.equal(r.body.data.length, expected.length);
    r.body.data.forEach((row: Record<string, unknown>, i: number) => {
      const [title, genre] = expected[i]!;
      assert.equal(row.Title, title);
      if (genre === null) assert.ok(!('Major Genre' in row), 'null left out');
      else assert.equal(row['Major Genre'], genre);
    });
    assert.ok(expected.some((e) => e[1] === null), 'the fixture has a null genre');
  });
});

describe('searchdata errors', () => {
  const bad: [string, string, Record<string, string | number>, RegExp][] = [
    ['an unknown column', '[nope] [delay]', {}, /nope/],
    ['a period-over-period keyword after a bucket it cannot follow', 'growth of [delay] by [date] monthly month-over-month', {}, /month-over-month follows a weekly or daily bucket, not monthly/],
    ['a syntax error', '[origin', {}, /./],
    ['sum of a text column', 'sum [origin]', {}, /origin/],
    ['a text value on a number', "[origin] [delay] > 'abc'", {}, /abc/],
    // a bucket word on a text column is its value (the token form, docs/service-notes.md §2.11); on a number it is no value
    ['a date bucket on a numeric column', '[delay].monthly', {}, /monthly/],
    ['pagenumber 0', '[origin]', { pagenumber: 0 }, /pagenumber/],
    ['a bad formattype', '[origin]', { formattype: 'XML' }, /formattype/],
  ];
  for (const [what, q, extra, re] of bad) {
    test(`${what} answers 400 naming the problem`, async () => {
      const r = await search(q, extra);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.incident_id_guid, /^[0-9a-f-]{36}$/);
      assert.match(debugOf(r.body).join(' '), re);
    });
  }
  test('an unknown data source answers 400', async () => {
    const r = await search('[origin]', {}, '00000000-0000-0000-0000-000000000000');
    assert.equal(r.status, 400);
    assert.match(debugOf(r.body).join(' '), /data source/);
  });
  test('no session answers 401 with the seed text', async () => {
    const r = await search('[origin]', {}, FLIGHTS, '');
    assert.equal(r.status, 401);
    assert.deepEqual(debugOf(r.body), ['Unable to verify user. Please login again.']);
  });
});

describe('no query text can inject SQL', () => {
  test('values are bound: quotes, semicolons and comments are just text', async () => {
    for (const v of ['SEA; DROP TABLE flights; --', 'x OR 1=1', '%', '\\']) {
      const r = await search(`[origin] [delay] [origin] = '${v}'`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.data, []);
      const c = await search(`[origin] [delay] [origin] contains '${v}'`);
      assert.equal(c.status, 200);
      assert.deepEqual(c.body.data, []);
    }
    assertRows(await core.sql(`SELECT count(*) FROM ${T}`), [[200000]]);
  });
  test('column names are looked up, never pasted: an injected name is an unknown column', async () => {
    for (const name of ['origin" FROM x; DROP TABLE flights; --', 'origin") OR ("1', "delay'; SELECT 1; --"]) {
      const r = await search(`[${name}] [delay]`);
      assert.equal(r.status, 400);
      assert.match(debugOf(r.body).join(' '), /Unknown column/);
    }
    const g = await search('[origin]', {}, `${FLIGHTS}' OR '1'='1`);
    assert.equal(g.status, 400);
    assertRows(await core.sql(`SELECT count(*) FROM ${T}`), [[200000]]);
  });
});
