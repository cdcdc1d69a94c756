// `in` / `not in` subsearches through the emulator's /searchdata (in.adoc, not_in.adoc; docs/service-notes.md
// §2.8) on the demo's flights. The expected rows come from plain DuckDB SQL written here, apart from
// compile.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore, debugOf } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
/** The ten origins of the largest total delay (ties by code), in SQL of its own. */
const TOP10 = `SELECT origin FROM ${T} GROUP BY origin ORDER BY sum(delay) DESC, origin ASC LIMIT 10`;

const core = adminCore();

const answer = (query: string) => core.searchdata(query, FLIGHTS);

test('[origin] in (top 10 [origin] [delay]): the rows of the ten origins the subsearch returns (intersection)', async () => {
  const a = await answer('[origin] [delay] [origin] in (top 10 [origin] [delay])');
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.columnNames, ['origin', 'Total delay']);
  const want = await core.sql(`SELECT origin, sum(delay) FROM ${T} WHERE origin IN (${TOP10}) GROUP BY origin ORDER BY origin`);
  assert.equal(want.length, 10);
  assert.deepEqual(a.data, want);
});

test('the catalogue\'s order, [origin] in (…) [delay]: the total delay of those origins', async () => {
  const a = await answer('[origin] in (top 10 [origin] [delay]) [delay]');
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin IN (${TOP10})`);
  assert.deepEqual(a.data, [[want]]);
});

test('not in: the relative complement', async () => {
  const a = await answer('[origin] [delay] [origin] not in (top 10 [origin] [delay])');
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const want = await core.sql(`SELECT origin, sum(delay) FROM ${T} WHERE origin IS NULL OR origin NOT IN (${TOP10}) GROUP BY origin ORDER BY origin`);
  assert.ok(want.length > 10);
  assert.deepEqual(a.data, want);
});

test('a subsearch with a filter of its own: the destinations flown to from SEA', async () => {
  const a = await answer("[destination] count [destination] [destination] in ([destination] [origin] = 'SEA')");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const want = await core.sql(`SELECT destination, count(destination) FROM ${T} WHERE destination IN (SELECT destination FROM ${T} WHERE origin = 'SEA') GROUP BY destination ORDER BY destination`);
  assert.ok(want.length > 0);
  assert.deepEqual(a.data, want);
});

test('a subsearch must start with the column before in; in needs a column', async () => {
  const wrong = await answer('[origin] [delay] [origin] in (top 10 [destination] [delay])');
  assert.equal(wrong.status, 400);
  assert.match(debugOf(wrong.body).join(' '), /must start with \[origin\]/);
  const none = await answer('in (top 10 [origin] [delay]) [delay]');
  assert.equal(none.status, 400);
  assert.match(debugOf(none.body).join(' '), /in needs the column it filters/);
});

test('{null} is in neither answer: in and not in keep only values (keywords-in.adoc: "searches with the in keyword do not include {null} values")', async () => {
  const MOVIES = stableGuid('table', 'demo', 'engine_default_schema', 'movies');
  const M = '"demo.engine_default_schema"."movies"';
  const count = async (q: string) => {
    const r = await core.call('POST', '/searchdata', { query_string: q, data_source_guid: MOVIES, batchsize: -1 }, core.cookie);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as unknown[][];
  };
  const [[nulls]] = await core.sql(`SELECT count(*) FROM ${M} WHERE "Major Genre" IS NULL`);
  assert.ok(Number(nulls) > 0, 'the demo has movies with no genre');
  const [[notDrama]] = await core.sql(`SELECT count("Title") FROM ${M} WHERE "Major Genre" IS NOT NULL AND "Major Genre" <> 'Drama'`);
  assert.deepEqual(await count("count [Title] [Major Genre] not in ([Major Genre] = 'Drama')"), [[Number(notDrama)]]);
  const [[drama]] = await core.sql(`SELECT count("Title") FROM ${M} WHERE "Major Genre" = 'Drama'`);
  assert.deepEqual(await count("count [Title] [Major Genre] in ([Major Genre] = 'Drama')"), [[Number(drama)]]);
});

test('20,000 nested subsearches: a 400 at the nesting limit (parser.ts MAX_SUBSEARCH_DEPTH), no stack overflow, and the next query answers', async () => {
  const n = 20_000;
  const q = `${'[origin] in ('.repeat(n)}[origin]${')'.repeat(n)}`;
  const r = await core.call('POST', '/searchdata', { query_string: q, data_source_guid: FLIGHTS, batchsize: -1 }, core.cookie, true);
  assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 500));
  assert.match(debugOf(r.body).join(' '), /nest deeper than 100 levels/);
  assert.doesNotMatch(JSON.stringify(r.body), /call stack/);
  const next = await answer('[origin] in (top 10 [origin] [delay]) [delay]');
  assert.equal(next.status, 200, JSON.stringify(next.body));
});
