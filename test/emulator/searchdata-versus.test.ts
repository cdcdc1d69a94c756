// `vs` / `versus` and `vs all` through the emulator's /searchdata (vs.adoc, all.adoc; docs/service-notes.md
// §2.3) on the demo's flights. The expected rows come from plain DuckDB SQL written here, apart from
// compile.ts: one group of rows per side, under a first column naming the side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore, debugOf } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

const core = adminCore();

const answer = (query: string) => core.searchdata(query, FLIGHTS);

test("[delay] [origin] = 'SEA' vs [origin] = 'PDX': the total delay of each side", async () => {
  const a = await answer("[delay] [origin] = 'SEA' vs [origin] = 'PDX'");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.columnNames, ['Versus', 'Total delay']);
  const [[sea]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin = 'SEA'`);
  const [[pdx]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin = 'PDX'`);
  assert.deepEqual(a.data, [["[origin] = 'SEA'", sea], ["[origin] = 'PDX'", pdx]]);
});

test('vs all: the other side is every row; versus is the same keyword', async () => {
  const a = await answer("[delay] [origin] = 'SEA' versus all");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const [[sea]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin = 'SEA'`);
  const [[all]] = await core.sql(`SELECT sum(delay) FROM ${T}`);
  assert.deepEqual(a.data, [["[origin] = 'SEA'", sea], ['all', all]]);
});

test('vs everything is vs all (software/…/partials/keywords/everything.adoc: revenue asia vs everything)', async () => {
  const a = await answer("[delay] [origin] = 'PDX' vs everything");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const [[pdx]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin = 'PDX'`);
  const [[all]] = await core.sql(`SELECT sum(delay) FROM ${T}`);
  assert.deepEqual(a.data, [["[origin] = 'PDX'", pdx], ['all', all]]);
});

test('a side may be a date filter (filtered-agg-forms: sales monthly accessory6 vs last year), labelled as written', async () => {
  const a = await answer("[delay] [origin] = 'SEA' vs [date]  last month");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  // the clock is Friday 15 June 2001: last month is May 2001
  const [[sea]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE origin = 'SEA'`);
  const [[may]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE "date" >= TIMESTAMP '2001-05-01' AND "date" < TIMESTAMP '2001-06-01'`);
  assert.deepEqual(a.data, [["[origin] = 'SEA'", sea], ['[date] last month', may]]);
  const b = await answer("[delay] last month vs [origin] = 'SEA'");
  assert.equal(b.status, 200, JSON.stringify(b.body));
  assert.deepEqual(b.data, [['last month', may], ["[origin] = 'SEA'", sea]]);
});

test('attributes and common filters apply to every side; several begins with on one side are OR-ed (vs.adoc)', async () => {
  const a = await answer("[destination] [delay] [distance] > 1000 [origin] begins with 'S' [origin] begins with 'L' vs [origin] begins with 'P'");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.columnNames, ['Versus', 'destination', 'Total delay']);
  const left = await core.sql(`SELECT '[origin] begins with ''S'' [origin] begins with ''L''', destination, sum(delay) FROM ${T} WHERE distance > 1000 AND (lower(origin) LIKE 's%' OR lower(origin) LIKE 'l%') GROUP BY destination ORDER BY destination`);
  const right = await core.sql(`SELECT '[origin] begins with ''P''', destination, sum(delay) FROM ${T} WHERE distance > 1000 AND lower(origin) LIKE 'p%' GROUP BY destination ORDER BY destination`);
  assert.ok(left.length > 0 && right.length > 0);
  assert.deepEqual(a.data, [...left, ...right]);
});

test('a vs with no filter on a side is a 400; all alone has no meaning', async () => {
  const a = await answer('[delay] vs all');
  assert.equal(a.status, 400);
  assert.match(debugOf(a.body).join(' '), /vs needs a filter before it/);
  const b = await answer("[delay] [origin] = 'SEA' vs [delay]");
  assert.equal(b.status, 400);
  assert.match(debugOf(b.body).join(' '), /vs needs a filter after it/);
});
