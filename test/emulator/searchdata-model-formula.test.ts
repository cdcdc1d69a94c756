// A model's formula columns computed by searchdata (emulator/src/dataModel.ts, searchdata/model.ts): the demo's
// `Flights Model` formula `Delayed Share` (sum ( if ( [Delay] > 15 ) then 1 else 0 ) / count ( [Delay] )) alone, with
// an attribute of each path and as a filter, against the same share computed here in TypeScript over the flights
// as loaded and the raw airports.csv, on v1 and v2, and under an answer's formula; a seed model's formulas over a
// joined table (by name and by table path) and row-level ones; a wrong formula refused at seed start and TML import.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startEmulator } from '../../emulator/src/app';
import { stableGuid } from '../../emulator/src/guid';
import { airports } from './airports-support';
import { compareKeys } from './grouped-rows';
import { adminCore } from './core-support';

const MODEL = stableGuid('worksheet', 'Flights Model');
const FLIGHTS = '"demo.engine_default_schema"."flights"';
const V2 = '/api/rest/2.0';
const core = adminCore();

interface Flight { delay: number | null; origin: string; destination: string }
let flights: Flight[] = [];
let token = '';
const byCode = new Map(airports.map((a) => [a.iata, a]));
const state = (code: string): string | null => byCode.get(code)?.state ?? null;
const city = (code: string): string | null => byCode.get(code)?.city ?? null;

before(async () => {
  await core.ready;
  flights = ((await core.sql(`SELECT delay, origin, destination FROM ${FLIGHTS}`)) as [number | null, string, string][]).map(([delay, origin, destination]) => ({ delay, origin, destination }));
  const auth = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await auth.json()) as { token: string }).token;
});

/**
 * The delayed share per key (flights more than `lateMinutes` (15) minutes late over the flights with a delay, as
 * the formula says), groups kept by `keep` (the filter on the formula's value), rows sorted by key with nulls last.
 */
function shareBy(key: (f: Flight) => (string | null)[], keep: (share: number) => boolean = () => true, lateMinutes = 15): unknown[][] {
  const groups = new Map<string, { key: (string | null)[]; late: number; count: number }>();
  for (const f of flights) {
    const k = key(f);
    const id = JSON.stringify(k);
    const g = groups.get(id) ?? { key: k, late: 0, count: 0 };
    if (f.delay !== null && f.delay > lateMinutes) g.late += 1;
    if (f.delay !== null) g.count += 1;
    groups.set(id, g);
  }
  return [...groups.values()].map((g) => ({ ...g, share: g.count ? g.late / g.count : null })).filter((g) => g.share !== null && keep(g.share)).sort((x, y) => compareKeys(x.key, y.key)).map((g) => [...g.key, g.share]);
}

async function v2Rows(query: string, ds = MODEL): Promise<{ status: number; names?: string[]; rows?: unknown[][]; body: unknown }> {
  const r = await fetch(`${core.emu.url}${V2}/searchdata`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query_string: query, logical_table_identifier: ds, record_size: -1 }) });
  const body = (await r.json()) as { contents?: { column_names: string[]; data_rows: unknown[][] }[] };
  return { status: r.status, names: body.contents?.[0]?.column_names, rows: body.contents?.[0]?.data_rows, body };
}

describe('the demo model formula column Delayed Share, against the share computed apart', () => {
  const cases: { what: string; query: string; names: string[]; expected: () => unknown[][]; some?: boolean }[] = [
    { what: 'alone: one row for every flight', query: '[Delayed Share]', names: ['Delayed Share'], expected: () => shareBy(() => []) },
    { what: 'by an attribute of the root path', query: '[Origin] [Delayed Share]', names: ['Origin', 'Delayed Share'], expected: () => shareBy((f) => [f.origin]), some: true },
    { what: 'by the origin airport (airports_1)', query: '[Origin State] [Delayed Share]', names: ['Origin State', 'Delayed Share'], expected: () => shareBy((f) => [state(f.origin)]), some: true },
    { what: 'by the destination airport (airports_2)', query: '[Destination City] [Delayed Share]', names: ['Destination City', 'Delayed Share'], expected: () => shareBy((f) => [city(f.destination)]), some: true },
    { what: 'as a filter on its value per group', query: '[Origin State] [Delayed Share] [Delayed Share] > 0.2', names: ['Origin State', 'Delayed Share'], expected: () => shareBy((f) => [state(f.origin)], (s) => s > 0.2), some: true },
  ];
  for (const c of cases) {
    test(`${c.what}: ${c.query} (v1 and v2)`, async () => {
      const expected = c.expected();
      if (c.some) assert.ok(expected.length > 1, 'the case has rows to compare');
      const v1 = await core.answer(c.query, MODEL);
      assert.deepEqual(v1.columnNames, c.names);
      assert.deepEqual(v1.data, expected);
      const v2 = await v2Rows(c.query);
      assert.equal(v2.status, 200, JSON.stringify(v2.body));
      assert.deepEqual(v2.names, c.names);
      assert.deepEqual(v2.rows, expected);
    });
  }

  test('the filter on the formula keeps some groups and drops others', () => {
    const all = shareBy((f) => [state(f.origin)]).length;
    const kept = shareBy((f) => [state(f.origin)], (s) => s > 0.2).length;
    assert.ok(kept > 1 && kept < all, `${kept} of ${all}`);
  });

  test('with a filter on an attribute of a joined path', async () => {
    const expected = shareBy((f) => (state(f.origin) === 'WA' ? [] : ['other'])).filter((r) => r.length === 1);
    assert.equal(expected.length, 1);
    assert.deepEqual((await core.answer("[Delayed Share] [Origin State] = 'WA'", MODEL)).data, expected);
  });

  test('metadata/details gives the formula column its expression\'s type, and no aggregation of its own (it aggregates)', async () => {
    const r = await core.call('GET', '/metadata/details', { type: 'LOGICAL_TABLE', id: JSON.stringify([MODEL]) }, core.cookie);
    assert.equal(r.status, 200);
    const col = (r.body.storables[0].columns as { header: { name: string }; dataType: string; type: string; defaultAggrType: string }[]).find((c) => c.header.name === 'Delayed Share');
    assert.deepEqual([col?.dataType, col?.type, col?.defaultAggrType], ['DOUBLE', 'MEASURE', 'NONE']);
  });

  test("an answer on the model computes its own formula over the model's formula column, per group", async () => {
    const post = async (path: string, body: unknown): Promise<any> => (await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })).json();
    const tml = { guid: null, answer: { name: 'Delayed percent by state', tables: [{ id: 'Flights Model', name: 'Flights Model' }], formulas: [{ id: 'formula_Delayed Percent', name: 'Delayed Percent', expr: '[Delayed Share] * 100' }], search_query: '[Origin State] [Delayed Percent]' } };
    const imported = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'PARTIAL', create_new: true });
    assert.equal(imported[0].response.status.status_code, 'OK', JSON.stringify(imported));
    const data = await post('/metadata/answer/data', { metadata_identifier: imported[0].response.header.id_guid, record_size: -1 });
    assert.deepEqual(data.contents[0].column_names, ['Origin State', 'Delayed Percent']);
    const expected = shareBy((f) => [state(f.origin)]).map(([k, v]) => [k, (v as number) * 100]);
    assert.deepEqual(data.contents[0].data_rows, expected);
  });

  test('a model imported again with another formula answers with the new one, and once deleted answers no more (nothing kept)', async () => {
    const post = async (path: string, body: unknown): Promise<any> => (await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })).json();
    const w = parse((await post('/metadata/tml/export', { metadata: [{ identifier: MODEL }], edoc_format: 'YAML' }))[0].edoc).worksheet as Record<string, any>;
    const late = (minutes: number) => w.formulas.map((f: { expr: string }) => ({ ...f, expr: f.expr.replace('> 15', `> ${minutes}`) }));
    assert.ok(late(60)[0].expr.includes('> 60'), 'the formula names the 15 minutes it is changed from');
    const first = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ worksheet: { ...w, name: 'Cache Check Model', formulas: late(15) } })], import_policy: 'PARTIAL', create_new: true });
    const guid = first[0].response.header.id_guid as string;
    const query = '[Origin State] [Delayed Share]';
    // twice: the second answer comes from whatever searchdata keeps (compiled query, prepared statement)
    for (let i = 0; i < 2; i++) assert.deepEqual((await core.answer(query, guid)).data, shareBy((f) => [state(f.origin)]));
    const again = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ guid, worksheet: { ...w, name: 'Cache Check Model', formulas: late(60) } })], import_policy: 'PARTIAL' });
    assert.equal(again[0].response.header.id_guid, guid, JSON.stringify(again));
    const expected = shareBy((f) => [state(f.origin)], () => true, 60);
    assert.notDeepEqual(expected, shareBy((f) => [state(f.origin)]));
    assert.deepEqual((await core.answer(query, guid)).data, expected);
    const deleted = await fetch(`${core.emu.url}${V2}/metadata/delete`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ metadata: [{ identifier: guid }] }) });
    assert.equal(deleted.status, 204);
    const gone = await core.call('POST', '/searchdata', { query_string: query, data_source_guid: guid }, core.cookie);
    assert.equal(gone.status, 400, JSON.stringify(gone.body));
  });

  test('a model TML whose formula is wrong is refused at import, naming the formula and its error', async () => {
    const r = await fetch(`${core.emu.url}${V2}/metadata/tml/export`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ metadata: [{ identifier: MODEL }], edoc_format: 'YAML' }) });
    const w = parse(((await r.json()) as { edoc: string }[])[0]!.edoc).worksheet as Record<string, any>;
    const bad = { worksheet: { ...w, name: 'Wrong Formula Model', formulas: [{ ...w.formulas[0], expr: 'sum ( [Delay] ) / count ( [Late] )' }] } };
    const imp = await fetch(`${core.emu.url}${V2}/metadata/tml/import`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ metadata_tmls: [stringify(bad)], import_policy: 'PARTIAL' }) });
    const [res] = ((await imp.json()) as { response: { status: { status_code: string; error_message?: string } } }[]).map((x) => x.response);
    assert.equal(res!.status.status_code, 'ERROR');
    assert.match(res!.status.error_message!, /worksheet\.formulas\[0\]\.expr: formula Delayed Share .*Late/);
  });
});

describe('a seed model whose formulas name a joined table', () => {
  const folder = (formulas: unknown[]): string => {
    const dir = mkdtempSync(join(tmpdir(), 'tsq-seed-formula-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,customer,amount\n1,c1,10\n2,c2,5\n3,c1,7\n4,c9,1\n');
    writeFileSync(join(dir, 'customers.csv'), 'code,city\nc1,Oslo\nc2,Bergen\n');
    const columns = [{ name: 'Buyer City', column_id: 'customers::city' }, { name: 'Customer', column_id: 'orders::customer' }, { name: 'Amount', column_id: 'orders::amount' }, ...formulas.map((f) => ({ name: (f as { name: string }).name, formula_id: (f as { id: string }).id }))];
    const model = { name: 'Sales', tables: [{ name: 'orders' }, { name: 'customers' }], joins: [{ name: 'buyer', source: 'orders', destination: 'customers', type: 'LEFT_OUTER', on: '[orders::customer] = [customers::code]' }], formulas, columns };
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ tables: [{ database: 'shop', name: 'orders', csv: 'orders.csv' }, { database: 'shop', name: 'customers', csv: 'customers.csv' }], models: [model] }));
    return dir;
  };

  test('an aggregate formula over the joined city and a row-level one answer, by v1', async () => {
    const dir = folder([
      { id: 'f_oslo', name: 'Oslo Amount', expr: "sum_if ( [Buyer City] = 'Oslo' , [Amount] )" },
      { id: 'f_size', name: 'Size', expr: "if ( [Amount] > 6 ) then 'big' else 'small'" },
      { id: 'f_oslo_share', name: 'Oslo Share', expr: '[Oslo Amount] / sum ( [Amount] )' },
      { id: 'f_oslo_path', name: 'Oslo Amount By Path', expr: "sum_if ( [customers::city] = 'Oslo' , [orders::amount] )" },
      { id: 'f_len', name: 'Code Length', expr: 'strlen ( [Customer] )', properties: { column_type: 'MEASURE' } },
    ]);
    const emu = await startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir });
    try {
      const login = await fetch(`${emu.url}/callosum/v1/tspublic/v1/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=tsadmin&password=admin' });
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const ask = async (query: string): Promise<unknown> => {
        const qs = new URLSearchParams({ query_string: query, data_source_guid: stableGuid('worksheet', 'Sales') });
        const r = await fetch(`${emu.url}/callosum/v1/tspublic/v1/searchdata?${qs}`, { method: 'POST', headers: { cookie } });
        const body = (await r.json()) as { columnNames: string[]; data: unknown[][] };
        assert.equal(r.status, 200, JSON.stringify(body));
        return [body.columnNames, body.data];
      };
      // Oslo's orders are 10 and 7 (c1); the formula needs the customers table, the query names none of its columns
      assert.deepEqual(await ask('[Oslo Amount]'), [['Oslo Amount'], [[17]]]);
      // by table path: `[customers::city]` is the model's Buyer City, no column of that name
      assert.deepEqual(await ask('[Oslo Amount By Path]'), [['Oslo Amount By Path'], [[17]]]);
      // a formula over another formula: 17 of the 23 ordered
      assert.deepEqual(await ask('[Oslo Share]'), [['Oslo Share'], [[17 / 23]]]);
      assert.deepEqual(await ask('[Customer] [Oslo Amount]'), [['Customer', 'Oslo Amount'], [['c1', 17], ['c2', null], ['c9', null]]]);
      assert.deepEqual(await ask('[Size] [Amount]'), [['Size', 'Total Amount'], [['big', 17], ['small', 6]]]);
      // a row-level measure formula is aggregated by the search, and typed by its expression (strlen gives an int)
      assert.deepEqual(await ask('[Buyer City] [Code Length]'), [['Buyer City', 'Total Code Length'], [['Bergen', 2], ['Oslo', 4], [null, 2]]]);
      const details = await fetch(`${emu.url}/callosum/v1/tspublic/v1/metadata/details?${new URLSearchParams({ type: 'LOGICAL_TABLE', id: JSON.stringify([stableGuid('worksheet', 'Sales')]) })}`, { headers: { cookie } });
      const cols = ((await details.json()) as { storables: { columns: { header: { name: string }; dataType: string }[] }[] }).storables[0]!.columns;
      assert.deepEqual(['Size', 'Code Length'].map((n) => cols.find((c) => c.header.name === n)?.dataType), ['VARCHAR', 'INT64']);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a seed model whose formulas refer to each other in a loop stops the start, naming the loop', async () => {
    const dir = folder([{ id: 'f_a', name: 'A', expr: '[B] + 1' }, { id: 'f_b', name: 'B', expr: '[A] * 2' }]);
    try {
      await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir }), /worksheet\.formulas\[\d\]\.expr: formula [AB] .*refers to itself.*(A → B → A|B → A → B)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a seed model whose formula names an unknown function stops the start, naming the formula', async () => {
    const dir = folder([{ id: 'f_oslo', name: 'Oslo Amount', expr: "summ ( [Amount] )" }]);
    try {
      await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir }), /worksheet\.formulas\[0\]\.expr: formula Oslo Amount \(summ \( \[Amount\] \)\): .*summ/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
