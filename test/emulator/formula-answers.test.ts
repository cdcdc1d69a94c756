// Answers with formulas on the emulator: an Answer TML whose `formulas` its search names (by id and by
// name) imports, and `metadata/answer/data` gives the rows that plain TypeScript over the demo's raw
// movies.json computes — one answer per function class: aggregate (a ratio per group of the search),
// row-level number, conversion and date, text, and a window (rank over the search's groups). A formula
// with an error is refused on import with its name and the column or function it names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vegaDataDir } from '../../emulator/src/demo';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let token = '';

async function v2(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

before(async () => {
  core = await startCore();
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await r.json()) as { token: string }).token;
});
after(async () => core?.stop());

// ---- the raw file, read here without DuckDB ----
interface Movie { title: string | null; ww: number | null; budget: number | null; us: number | null; genre: string | null; rating: string | null; released: Date | null }
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const movies: Movie[] = (JSON.parse(readFileSync(join(vegaDataDir(), 'movies.json'), 'utf8')) as Record<string, unknown>[]).map((m) => {
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  const d = typeof m['Release Date'] === 'string' ? /^(\w{3}) (\d{2}) (\d{4})$/.exec(m['Release Date']) : null;
  return {
    title: m.Title === null || m.Title === undefined ? null : String(m.Title),
    ww: num(m['Worldwide Gross']), budget: num(m['Production Budget']), us: num(m['US Gross']),
    genre: typeof m['Major Genre'] === 'string' ? m['Major Genre'] : null,
    rating: typeof m['MPAA Rating'] === 'string' ? m['MPAA Rating'] : null,
    released: d && MONTHS.includes(d[1]!) ? new Date(Date.UTC(Number(d[3]), MONTHS.indexOf(d[1]!), Number(d[2]))) : null,
  };
});

/** Groups rows by a key (null kept as a group), in no order. */
function groupBy<K>(key: (m: Movie) => K): Map<K, Movie[]> {
  const g = new Map<K, Movie[]>();
  for (const m of movies) {
    const k = key(m);
    g.set(k, [...(g.get(k) ?? []), m]);
  }
  return g;
}
/** SQL's sum: null when no value is non-null. */
const sum = (xs: (number | null)[]): number | null => (xs.some((x) => x !== null) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : null);

/** Imports an Answer TML over movies with `formulas` and `query`, returns the answer's rows (by metadata/answer/data). */
async function run(name: string, formulas: Record<string, unknown>[], query: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const tml = { guid: null, answer: { name, tables: [{ id: 'movies', name: 'movies' }], formulas, search_query: query } };
  const imported = await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'PARTIAL', create_new: true });
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  const status = imported.body[0].response.status;
  assert.equal(status.status_code, 'OK', JSON.stringify(status));
  const id = imported.body[0].response.header.id_guid;
  const data = await v2('/metadata/answer/data', { metadata_identifier: id, record_size: -1 });
  assert.equal(data.status, 200, JSON.stringify(data.body));
  return { columns: data.body.contents[0].column_names, rows: data.body.contents[0].data_rows };
}

/** Rows sorted by their JSON, numbers rounded to 6 significant digits (sums of doubles in another order). */
function normal(rows: unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(6)) : v)))).sort();
}

describe('answers with formulas: their rows as plain TypeScript computes them', () => {
  test('aggregate: a ratio per group of the search, named by id; a row-level measure summed per group, named by name', async () => {
    const r = await run('Profit by genre', [
      { id: 'formula_Gross per budget', name: 'Gross per budget', expr: 'sum ( [Worldwide Gross] ) / sum ( [Production Budget] )', properties: { column_type: 'MEASURE' } },
      { id: 'formula_Profit', name: 'Profit', expr: '[Worldwide Gross] - [Production Budget]' , properties: { column_type: 'MEASURE', aggregation: 'SUM' } },
    ], '[Major Genre] [formula_Gross per budget] [Profit]');
    assert.deepEqual(r.columns, ['Major Genre', 'Gross per budget', 'Total Profit']);
    const expected = [...groupBy((m) => m.genre)].map(([g, ms]) => {
      const ww = sum(ms.map((m) => m.ww));
      const b = sum(ms.map((m) => m.budget));
      return [g, ww === null || !b ? null : ww / b, sum(ms.map((m) => (m.ww === null || m.budget === null ? null : m.ww - m.budget)))];
    });
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('a filter on an aggregating formula keeps the groups whose value passes it (HAVING)', async () => {
    const r = await run('Profitable genres', [{ id: 'formula_Gross per budget', name: 'Gross per budget', expr: 'sum ( [Worldwide Gross] ) / sum ( [Production Budget] )' }], '[Major Genre] [formula_Gross per budget] [Gross per budget] > 3');
    const expected = [...groupBy((m) => m.genre)].flatMap(([g, ms]) => {
      const ww = sum(ms.map((m) => m.ww));
      const b = sum(ms.map((m) => m.budget));
      const ratio = ww === null || !b ? null : ww / b;
      return ratio !== null && ratio > 3 ? [[g, ratio]] : [];
    });
    assert.ok(expected.length > 0 && expected.length < groupBy((m) => m.genre).size, 'the filter keeps some groups, not all');
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('every aggregate of the reference on one search: average, count, unique count, max, min, median, stddev, sum_if, count_if', async () => {
    const f = (name: string, expr: string) => ({ id: `formula_${name}`, name, expr });
    const r = await run('Aggregates by genre', [
      f('Avg', 'average ( [US Gross] )'), f('Cnt', 'count ( [Title] )'), f('Uniq', 'unique count ( [MPAA Rating] )'), f('Mx', 'max ( [US Gross] )'), f('Mn', 'min ( [US Gross] )'),
      f('Med', 'median ( [US Gross] )'), f('Sd', 'stddev ( [US Gross] )'), f('SumIf', 'sum_if ( [US Gross] > 100000000 , [US Gross] )'), f('CntIf', "count_if ( [MPAA Rating] = 'R' , [Title] )"),
    ], '[Major Genre] [Avg] [Cnt] [Uniq] [Mx] [Mn] [Med] [Sd] [SumIf] [CntIf]');
    assert.deepEqual(r.columns, ['Major Genre', 'Avg', 'Cnt', 'Uniq', 'Mx', 'Mn', 'Med', 'Sd', 'SumIf', 'CntIf']);
    const expected = [...groupBy((m) => m.genre)].map(([g, ms]) => {
      const us = ms.map((m) => m.us).filter((x): x is number => x !== null).sort((a, b) => a - b);
      const mean = us.reduce((a, x) => a + x, 0) / us.length;
      const sd = us.length > 1 ? Math.sqrt(us.reduce((a, x) => a + (x - mean) ** 2, 0) / (us.length - 1)) : null;
      return [g, us.length ? mean : null, ms.filter((m) => m.title !== null).length, new Set(ms.map((m) => m.rating).filter((x) => x !== null)).size,
        us.at(-1) ?? null, us[0] ?? null, us.length ? us[Math.floor((us.length - 1) / 2)]! : null, sd,
        sum(ms.map((m) => (m.us !== null && m.us > 100_000_000 ? m.us : null))), ms.filter((m) => m.rating === 'R' && m.title !== null).length];
    });
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('cumulative and moving: a running total and a window of the previous, current and next group, in the order of the attribute', async () => {
    const r = await run('Running totals', [
      { id: 'formula_Cum', name: 'Cum', expr: 'cumulative_sum ( [US Gross] , [Major Genre] )' },
      { id: 'formula_Mov', name: 'Mov', expr: 'moving_sum ( [US Gross] , 1 , 1 , [Major Genre] )' },
      // a negative num2 ends the window before the current group: the two groups before it
      { id: 'formula_Before', name: 'Before', expr: 'moving_sum ( [US Gross] , 2 , -1 , [Major Genre] )' },
    ], '[Major Genre] [Cum] [Mov] [Before]');
    // the groups in the attribute's order, nulls last (DuckDB's ascending default)
    const groups = [...groupBy((m) => m.genre)].sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0));
    const totals = groups.map(([, ms]) => sum(ms.map((m) => m.us)) ?? 0);
    const window = (from: number, to: number) => (Math.max(0, from) >= to ? null : totals.slice(Math.max(0, from), to).reduce((a, x) => a + x, 0));
    const expected = groups.map(([g], i) => [g, window(0, i + 1), window(i - 1, i + 2), window(i - 2, i)]);
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('conversion and date: the release decade as text, an attribute the search groups by', async () => {
    const r = await run('Gross by decade', [{ id: 'formula_Decade', name: 'Decade', expr: "to_string ( year ( [Release Date] ) - mod ( year ( [Release Date] ) , 10 ) )" }], '[Decade] [US Gross]');
    assert.deepEqual(r.columns, ['Decade', 'Total US Gross']);
    const expected = [...groupBy((m) => (m.released ? String(m.released.getUTCFullYear() - (m.released.getUTCFullYear() % 10)) : null))].map(([k, ms]) => [k, sum(ms.map((m) => m.us))]);
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('text: the first letter of a title and the total length of the titles', async () => {
    const r = await run('Titles by initial', [
      { id: 'formula_Initial', name: 'Initial', expr: "left ( [Title] , 1 )" },
      { id: 'formula_Title length', name: 'Title length', expr: 'strlen ( [Title] )', properties: { column_type: 'MEASURE' } },
    ], '[Initial] [Title length]');
    const expected = [...groupBy((m) => (m.title === null ? null : [...m.title][0] ?? ''))].map(([k, ms]) => [k, sum(ms.map((m) => (m.title === null ? null : [...m.title].length)))]);
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test("window: rank over the search's groups (rank (sum (…), 'desc'): 1 for the largest)", async () => {
    const r = await run('Genre rank', [{ id: 'formula_Rank', name: 'Rank', expr: "rank ( sum ( [Worldwide Gross] ) , 'desc' )" }], '[Major Genre] [Rank]');
    const totals = [...groupBy((m) => m.genre)].map(([g, ms]) => [g, sum(ms.map((m) => m.ww))] as const);
    // SQL orders nulls last in a descending window (DuckDB's default): the null total ranks after the rest
    const expected = totals.map(([g, t]) => [g, 1 + totals.filter(([, o]) => (t === null ? o !== null : o !== null && o > t)).length]);
    assert.deepEqual(normal(r.rows), normal(expected));
  });
});

describe('group functions: at the grain of their own attributes, not the search\'s', () => {
  test("group_sum: each genre's share of its rating's total, and that total beside it", async () => {
    const r = await run('Genre share', [
      { id: 'formula_Share', name: 'Share', expr: 'sum ( [Worldwide Gross] ) / group_sum ( [Worldwide Gross] , [MPAA Rating] )' },
      { id: 'formula_Rating total', name: 'Rating total', expr: 'group_sum ( [US Gross] , [MPAA Rating] )' },
    ], '[MPAA Rating] [Major Genre] [Share] [Rating total]');
    const rating = (m: Movie) => m.rating;
    const byRating = new Map([...groupBy(rating)].map(([k, ms]) => [k, sum(ms.map((m) => m.us))]));
    const wwByRating = new Map([...groupBy(rating)].map(([k, ms]) => [k, sum(ms.map((m) => m.ww))]));
    const expected = [...groupBy((m) => JSON.stringify([rating(m), m.genre]))].map(([k, ms]) => {
      const [rt, g] = JSON.parse(k) as [string | null, string | null];
      const ww = sum(ms.map((m) => m.ww));
      const total = wwByRating.get(rt) ?? null;
      return [rt, g, ww === null || !total ? null : ww / total, byRating.get(rt) ?? null];
    });
    assert.deepEqual(normal(r.rows), normal(expected));
  });
});

describe('group_aggregate: a subquery at its own grain, joined to the search\'s', () => {
  const total = (ms: Movie[]) => sum(ms.map((m) => m.ww));
  test('coarser than the search: query_groups () - {genre} is the rating alone, each genre row gets its rating\'s total; {} ignores the filter', async () => {
    const r = await run('Rating totals', [
      { id: 'formula_Rating ww', name: 'Rating ww', expr: 'group_aggregate ( sum ( [Worldwide Gross] ) , query_groups ( ) - { [Major Genre] } , query_filters ( ) )' },
      { id: 'formula_All ww', name: 'All ww', expr: 'group_aggregate ( sum ( [Worldwide Gross] ) , { [MPAA Rating] } , { } )' },
    ], "[MPAA Rating] [Major Genre] [Rating ww] [All ww] [Major Genre] != 'Drama'");
    const kept = movies.filter((m) => m.genre !== 'Drama' && m.genre !== null);
    const filtered = new Map([...groupBy((m) => (kept.includes(m) ? m.rating : '\u0000'))].map(([k, ms]) => [k, total(ms)]));
    const all = new Map([...groupBy((m) => m.rating)].map(([k, ms]) => [k, total(ms)]));
    const expected = [...new Map(kept.map((m) => [JSON.stringify([m.rating, m.genre]), [m.rating, m.genre]])).values()].map(([rt, g]) => [rt, g, filtered.get(rt as string | null) ?? null, all.get(rt as string | null) ?? null]);
    assert.deepEqual(normal(r.rows), normal(expected));
  });
  test('finer than the search: per (rating, genre) maxima re-aggregated by max, and group_unique_count by rating', async () => {
    const r = await run('Finer', [
      { id: 'formula_Top', name: 'Top', expr: 'group_aggregate ( max ( [US Gross] ) , { [MPAA Rating] , [Major Genre] } , { } )' },
      { id: 'formula_Genres', name: 'Genres', expr: 'group_unique_count ( [Major Genre] , [MPAA Rating] )' },
    ], '[MPAA Rating] [Top] [Genres]');
    const expected = [...groupBy((m) => m.rating)].map(([rt, ms]) => {
      const us = ms.map((m) => m.us).filter((x): x is number => x !== null);
      return [rt, us.length ? Math.max(...us) : null, new Set(ms.map((m) => m.genre).filter((g) => g !== null)).size];
    });
    assert.deepEqual(normal(r.rows), normal(expected));
  });
});

describe('answers with formula errors are refused on import, naming the formula and what is wrong', () => {
  for (const [expr, message] of [
    ['sum ( [Title] )', /Ratio .*sum takes number .*\[Title\]/],
    ['summ ( [US Gross] )', /Ratio .*Unknown function summ\. Did you mean sum/],
    ['[US Gros] * 2', /Ratio .*Unknown column \[US Gros\]/],
    ['[Ratio] + 1', /Ratio .*refers to itself/],
    ['sql_int_op ( "ceil ({0})" , [US Gross] )', /sql_int_op runs SQL on the data warehouse/],
  ] as const) {
    test(expr, async () => {
      const tml = { guid: null, answer: { name: 'Bad', tables: [{ id: 'movies', name: 'movies' }], formulas: [{ id: 'formula_Ratio', name: 'Ratio', expr }], search_query: '[Major Genre] [Ratio]' } };
      const r = await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'VALIDATE_ONLY' });
      const status = r.body[0].response.status;
      assert.equal(status.status_code, 'ERROR', JSON.stringify(r.body));
      assert.match(status.error_message, message);
    });
  }
});
