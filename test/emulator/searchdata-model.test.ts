// searchdata on the demo's model `Flights Model` (emulator/src/demo.ts, dataModel.ts, searchdata/model.ts): flights
// with their origin and destination airports, two paths to one table. Each answer is compared with a join written
// here in TypeScript over the rows of the flights table as loaded and the raw airports.csv (airports-support.ts),
// on v1 and v2; the SQL joins only the paths the query's columns need (formula columns: searchdata-model-formula.test.ts).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuery } from '../../common/src/language/parser';
import { modelDefinitionOf } from '../../common/src/tml/modelTml';
import { demoSeed } from '../../emulator/src/demo';
import { buildModel } from '../../emulator/src/dataModel';
import { MetadataStore, type LogicalTable } from '../../emulator/src/metadataStore';
import { compileSearch, QueryError } from '../../emulator/src/searchdata/compile';
import { MODEL_RELATION, modelView } from '../../emulator/src/searchdata/model';
import { stableGuid } from '../../emulator/src/guid';
import { airports } from './airports-support';
import { compareKeys } from './grouped-rows';
import { adminCore } from './core-support';

const MODEL = stableGuid('worksheet', 'Flights Model');
const FLIGHTS = '"demo.engine_default_schema"."flights"';
const core = adminCore();

interface Flight { delay: number; distance: number; origin: string; destination: string }
let flights: Flight[] = [];
const byCode = new Map(airports.map((a) => [a.iata, a]));

before(async () => {
  await core.ready;
  flights = ((await core.sql(`SELECT delay, distance, origin, destination FROM ${FLIGHTS}`)) as [number, number, string, string][]).map(([delay, distance, origin, destination]) => ({ delay, distance, origin, destination }));
});

/** Sums `measure` per key of each flight (a LEFT join: a flight whose airport is missing has a null key), rows sorted by key as text. */
function sumBy(key: (f: Flight) => (string | null)[], measure: (f: Flight) => number, keep: (f: Flight) => boolean = () => true): unknown[][] {
  const sums = new Map<string, { key: (string | null)[]; sum: number }>();
  for (const f of flights) {
    if (!keep(f)) continue;
    const k = key(f);
    const id = JSON.stringify(k);
    const e = sums.get(id) ?? { key: k, sum: 0 };
    e.sum += measure(f);
    sums.set(id, e);
  }
  return [...sums.values()].sort((x, y) => compareKeys(x.key, y.key)).map((e) => [...e.key, e.sum]);
}
const state = (code: string): string | null => byCode.get(code)?.state ?? null;
const city = (code: string): string | null => byCode.get(code)?.city ?? null;

async function v2Rows(query: string): Promise<{ names: string[]; rows: unknown[][] }> {
  const auth = await fetch(`${core.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  const { token } = (await auth.json()) as { token: string };
  const r = await fetch(`${core.emu.url}/api/rest/2.0/searchdata`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query_string: query, logical_table_identifier: MODEL, record_size: -1 }) });
  const body = (await r.json()) as { contents: { column_names: string[]; data_rows: unknown[][] }[] };
  assert.equal(r.status, 200, JSON.stringify(body));
  return { names: body.contents[0]!.column_names, rows: body.contents[0]!.data_rows };
}

describe('searchdata on the demo model, against a join written apart', () => {
  const cases: { what: string; query: string; names: string[]; expected: () => unknown[][] }[] = [
    { what: 'one table (flights only)', query: '[Origin] [Distance]', names: ['Origin', 'Total Distance'], expected: () => sumBy((f) => [f.origin], (f) => f.distance) },
    { what: 'both tables (the origin airport)', query: '[Origin State] [Distance]', names: ['Origin State', 'Total Distance'], expected: () => sumBy((f) => [state(f.origin)], (f) => f.distance) },
    {
      what: 'both paths to airports, with a filter on one',
      query: "[Origin State] [Destination State] [Delay] [Origin State] = 'WA'",
      names: ['Origin State', 'Destination State', 'Total Delay'],
      expected: () => sumBy((f) => [state(f.origin), state(f.destination)], (f) => f.delay, (f) => state(f.origin) === 'WA'),
    },
    {
      what: 'columns written with their table path',
      query: "[airports_2::city] [flights_1::distance] [airports_1::city] = 'Seattle'",
      names: ['Destination City', 'Total Distance'],
      expected: () => sumBy((f) => [city(f.destination)], (f) => f.distance, (f) => city(f.origin) === 'Seattle'),
    },
  ];
  for (const c of cases) {
    test(`${c.what}: ${c.query} (v1 and v2)`, async () => {
      const expected = c.expected();
      assert.ok(expected.length > 1, 'the case has rows to compare');
      const v1 = await core.answer(c.query, MODEL);
      assert.deepEqual(v1.columnNames, c.names);
      assert.deepEqual(v1.data, expected);
      const v2 = await v2Rows(c.query);
      assert.deepEqual(v2.names, c.names);
      assert.deepEqual(v2.rows, expected);
    });
  }

  test('an unknown table path is named with the paths the model has', async () => {
    const r = await core.searchdata('[airports_3::city]', MODEL);
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /airports_3.*flights_1, airports_1, airports_2/);
  });
});

describe('the SQL of a model joins only the paths the query needs', () => {
  // the demo model built over a catalog holding the demo's flights and airports declarations (no data needed to compile)
  const catalog = new MetadataStore(mkdtempSync(join(tmpdir(), 'tsq-model-')));
  const seed = demoSeed();
  for (const name of ['flights', 'airports']) {
    const t = seed.tables!.find((x) => x.name === name)!;
    const id = stableGuid('table', 'demo', 'engine_default_schema', name);
    catalog.state.tables.push({ id, name, author: 'a', created: 0, modified: 0, modifiedBy: 'a', tags: [], sharedWith: [], isAutoCreated: false, subtype: 'ONE_TO_ONE_LOGICAL', tableId: id, database: 'demo', schema: 'engine_default_schema', tableName: name, sqlName: `"demo.engine_default_schema"."${name}"`, columns: t.columns!.map((c) => ({ id: c.name, name: c.name, dataType: c.dataType, kind: c.kind ?? 'ATTRIBUTE', aggregation: 'NONE', synonyms: [], physicalName: c.name })) });
  }
  const m = seed.models![0]!;
  const model: LogicalTable = buildModel(catalog, modelDefinitionOf({ worksheet: { ...m, worksheet_columns: m.columns } }), { id: MODEL, name: m.name, author: 'a', created: 0, modified: 0, modifiedBy: 'a', tags: [], sharedWith: [], isAutoCreated: false });
  const sqlOf = (query: string, m: LogicalTable = model): string => {
    const view = modelView(m, catalog);
    return view.wrap(compileSearch({ clauses: parseQuery(query).query!.clauses, columns: view.columns, table: MODEL_RELATION, now: new Date(0), tablePaths: view.tablePaths })).sql;
  };
  for (const [query, joins] of [['[Origin] [Delay]', 0], ['[Origin City] [Delay]', 1], ['[Origin City] [Destination City] [Delay]', 2], ["[Delay] [Destination State] = 'WA'", 1], ['[Delayed Share]', 0], ['[Origin City] [Delayed Share]', 1]] as const) {
    test(`${query}: ${joins} join(s)`, () => {
      assert.equal(sqlOf(query).match(/ JOIN /g)?.length ?? 0, joins, sqlOf(query));
    });
  }
  test('a model stored before its formula columns kept their formula computes them from its formulas', () => {
    const stored: LogicalTable = { ...model, columns: model.columns.map(({ formula: _, ...c }) => c) };
    assert.ok(model.columns.some((c) => c.formula) && !stored.columns.some((c) => c.formula));
    assert.equal(sqlOf('[Origin City] [Delayed Share]', stored), sqlOf('[Origin City] [Delayed Share]'));
  });
  test('a stored join whose condition cannot be read is refused naming the join, never compiled to SQL without its ON', () => {
    const broken: LogicalTable = { ...model, model: { ...model.model!, joins: model.model!.joins.map((j) => ({ ...j, on: '[odd]name::x] = [flights::origin]' })) } };
    const join = broken.model!.joins[0]!.name;
    assert.throws(() => sqlOf('[Origin City] [Delay]', broken), (e: Error) => e instanceof QueryError && e.message.includes(`its join ${join} has a condition TSQ cannot read`));
    // a search needing no join still runs
    assert.doesNotMatch(sqlOf('[Origin] [Delay]', broken), / JOIN /);
  });
});
