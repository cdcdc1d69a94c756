// Worksheet and Model TML of models on the emulator (emulator/src/tml/models.ts): the demo model exports with
// its tables, joins, table paths, formulas and columns; that TML imports back as a new model that answers as
// the demo's does; a model TML (`model_tables` with `joins: [{with, on}]`) imports and answers; an import
// over a model's GUID changes it, and searchdata follows; a definition with problems is refused naming each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { stableGuid } from '../../emulator/src/guid';
import { startCore, PREFIX, type Core } from './core-support';

const V2 = '/api/rest/2.0';
const MODEL = stableGuid('worksheet', 'Flights Model');
let core: Core;
let token = '';
let cookie = '';

async function v2(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function importTml(docs: unknown[], extra: Record<string, unknown> = {}): Promise<{ status: { status_code: string; error_message?: string }; header?: { id_guid?: string; metadata_type: string } }[]> {
  const r = await v2('/metadata/tml/import', { metadata_tmls: docs.map((d) => stringify(d)), import_policy: 'PARTIAL', ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { response: never }[]).map((x) => x.response);
}

async function rows(query: string, ds: string): Promise<{ status: number; columnNames?: string[]; data?: unknown[][]; body: any }> {
  const r = await core.call('POST', '/searchdata', { query_string: query, data_source_guid: ds, batchsize: -1 }, cookie);
  return { status: r.status, columnNames: r.body?.columnNames, data: r.body?.data, body: r.body };
}

let exported: { guid: string; worksheet: Record<string, any> };

before(async () => {
  core = await startCore();
  cookie = await core.login('tsadmin', 'admin');
  const t = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await t.json()) as { token: string }).token;
  const r = await v2('/metadata/tml/export', { metadata: [{ identifier: MODEL }], edoc_format: 'YAML' });
  assert.equal(r.body[0].info.status.status_code, 'OK', JSON.stringify(r.body));
  assert.equal(r.body[0].info.filename, 'Flights Model.worksheet.tml');
  exported = parse(r.body[0].edoc as string);
});
after(async () => core?.stop());

describe('model TML', () => {
  test('the demo model exports its tables, joins, table paths, formulas and columns', () => {
    const w = exported.worksheet;
    assert.equal(exported.guid, MODEL);
    assert.deepEqual(w.tables, [{ name: 'flights' }, { name: 'airports' }]);
    assert.deepEqual(w.joins.map((j: any) => [j.name, j.source, j.destination, j.type, j.on]), [
      ['flights_origin', 'flights', 'airports', 'LEFT_OUTER', '[flights::origin] = [airports::iata]'],
      ['flights_destination', 'flights', 'airports', 'LEFT_OUTER', '[flights::destination] = [airports::iata]'],
    ]);
    assert.deepEqual(w.table_paths.map((p: any) => [p.id, p.table, p.join_path]), [['flights_1', 'flights', [{}]], ['airports_1', 'airports', [{ join: ['flights_origin'] }]], ['airports_2', 'airports', [{ join: ['flights_destination'] }]]]);
    assert.deepEqual(w.formulas.map((f: any) => f.id), ['formula_Delayed Share']);
    const col = (n: string) => w.worksheet_columns.find((c: any) => c.name === n);
    assert.equal(col('Destination City').column_id, 'airports_2::city');
    assert.equal(col('Delayed Share').formula_id, 'formula_Delayed Share');
  });

  test('the exported TML imports back as a new model that answers as the demo model does', async () => {
    const copy = { worksheet: { ...exported.worksheet, name: 'Flights Model Copy' } };
    const [res] = await importTml([copy]);
    assert.equal(res!.status.status_code, 'OK', JSON.stringify(res));
    assert.equal(res!.header!.metadata_type, 'LOGICAL_TABLE');
    const q = "[Origin State] [Destination State] [Delay] [Origin State] = 'OR'";
    const [a, b] = [await rows(q, MODEL), await rows(q, res!.header!.id_guid!)];
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.ok(a.data!.length > 1);
    assert.deepEqual(b.data, a.data);
  });

  test('a model TML (model_tables joined with `with`) imports and answers through its join', async () => {
    const doc = {
      model: {
        name: 'Flights by Origin',
        model_tables: [{ name: 'flights', joins: [{ with: 'airports', on: '[flights::origin] = [airports::iata]', type: 'INNER' }] }, { name: 'airports' }],
        columns: [
          { name: 'Origin State', column_id: 'airports::state' },
          { name: 'Miles', column_id: 'flights::distance', properties: { column_type: 'MEASURE', aggregation: 'SUM' } },
        ],
      },
    };
    const [res] = await importTml([doc]);
    assert.equal(res!.status.status_code, 'OK', JSON.stringify(res));
    const mine = await rows("[Origin State] [Miles] [Origin State] = 'WA'", res!.header!.id_guid!);
    const demo = await rows("[Origin State] [Distance] [Origin State] = 'WA'", MODEL);
    assert.deepEqual(mine.columnNames, ['Origin State', 'Total Miles']);
    assert.deepEqual(mine.data, demo.data);
  });

  test("an import over the model's GUID changes it, and searchdata answers the new columns", async () => {
    const before = await rows('[Origin City] [Distance]', MODEL);
    assert.equal(before.status, 200);
    const w = { ...exported.worksheet, worksheet_columns: exported.worksheet.worksheet_columns.map((c: any) => (c.name === 'Origin City' ? { ...c, name: 'From City' } : c)) };
    const [res] = await importTml([{ guid: MODEL, worksheet: w }]);
    assert.equal(res!.status.status_code, 'OK', JSON.stringify(res));
    assert.equal(res!.header!.id_guid, MODEL);
    const renamed = await rows('[From City] [Distance]', MODEL);
    assert.deepEqual([renamed.columnNames, renamed.data], [['From City', 'Total Distance'], before.data]);
    assert.equal((await rows('[Origin City] [Distance]', MODEL)).status, 400);
    const [back] = await importTml([{ guid: MODEL, worksheet: exported.worksheet }]);
    assert.equal(back!.status.status_code, 'OK');
  });

  test('a definition with problems is refused, each named with its place; nothing is created', async () => {
    const w = exported.worksheet;
    const bad = {
      worksheet: {
        ...w,
        name: 'Broken Model',
        joins: [{ ...w.joins[0], on: '[flights::origin] = [airports::latitude]' }, { ...w.joins[1], on: '[flights::destination] = [airports::nowhere]' }],
        worksheet_columns: [...w.worksheet_columns, { name: 'Gate', column_id: 'flights_1::gate' }, { name: 'Origin', column_id: 'flights_1::origin' }],
      },
    };
    const [res] = await importTml([bad]);
    assert.equal(res!.status.status_code, 'ERROR');
    const msg = res!.status.error_message!;
    for (const part of [/worksheet\.joins\[0\]\.on: join flights_origin: \[flights::origin\] is VARCHAR and \[airports::latitude\] is DOUBLE/, /worksheet\.joins\[1\]\.on: join flights_destination: table airports has no column nowhere/, /column Gate: table flights has no column gate/, /column Origin is not unique/]) assert.match(msg, part);
    const list = await v2('/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], record_size: -1 });
    assert.ok(!(list.body as { metadata_name: string }[]).some((x) => x.metadata_name === 'Broken Model'));
  });
});

test('v1 export of a model by its GUID gives the same worksheet TML', async () => {
  const r = await fetch(`${core.emu.url}${PREFIX}/metadata/tml/export`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` }, body: new URLSearchParams({ export_ids: JSON.stringify([MODEL]) }).toString() });
  const body = (await r.json()) as { object: { edoc: string }[] };
  assert.deepEqual(parse(body.object[0]!.edoc).worksheet.joins, exported.worksheet.joins);
});
