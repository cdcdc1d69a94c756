// TML of answers on the emulator (emulator/src/tml/, docs/service-interface.md §11): export on v1 and
// v2, import with its policies (VALIDATE_ONLY and a failed ALL_OR_NONE change nothing; PARTIAL writes
// what validates; a guid updates, no guid creates), the search_query checked by the searchdata compiler,
// read-only table and worksheet TML, liveboard TML (export on v1 and v2, import refused per object,
// VALIDATE_ONLY checking each visualization), and metadata/answer/sql whose SQL gives the answer's rows.
// Plain fetch against a real emulator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { startCore, PREFIX, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let token = '';
let analystToken = '';

async function v2(path: string, body: unknown, t = token): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** A v1 call with a form body, as tml-api.adoc's curl examples send it. */
async function v1(path: string, form: Record<string, string>): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${PREFIX}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/plain', 'x-requested-by': 'ThoughtSpot', authorization: `Bearer ${token}` }, body: new URLSearchParams(form).toString() });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function tokenOf(username: string, password: string): Promise<string> {
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return ((await r.json()) as { token: string }).token;
}

async function answers(): Promise<{ id: string; name: string }[]> {
  const r = await v2('/metadata/search', { metadata: [{ type: 'ANSWER' }], record_size: -1 });
  return (r.body as { metadata_id: string; metadata_name: string }[]).map((x) => ({ id: x.metadata_id, name: x.metadata_name }));
}

async function exportAnswer(id: string): Promise<{ guid: string; answer: Record<string, any> }> {
  const r = await v2('/metadata/tml/export', { metadata: [{ identifier: id }], edoc_format: 'YAML' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body[0].info.status.status_code, 'OK', JSON.stringify(r.body[0]));
  return parse(r.body[0].edoc as string);
}

let demoId = '';

before(async () => {
  core = await startCore();
  token = await tokenOf('tsadmin', 'admin');
  analystToken = await tokenOf('analyst', 'analyst');
  demoId = (await answers()).find((a) => a.name === 'Top grossing genres')!.id;
});
after(async () => core?.stop());

describe('export', () => {
  test('v1: the demo answer as YAML (the default), with its query, data source and columns', async () => {
    const r = await v1('/metadata/tml/export', { export_ids: JSON.stringify([demoId]) });
    assert.equal(r.status, 200);
    const [o] = r.body.object;
    assert.deepEqual(o.info, { name: 'Top grossing genres', filename: 'Top grossing genres.answer.tml', status: { status_code: 'OK' }, type: 'answer', id: demoId });
    const doc = parse(o.edoc);
    assert.equal(doc.guid, demoId);
    assert.equal(doc.answer.search_query, '[Major Genre] [Worldwide Gross] top 5');
    assert.deepEqual(doc.answer.tables, [{ id: 'movies', name: 'movies' }]);
    assert.deepEqual(doc.answer.answer_columns, [{ name: 'Major Genre' }, { name: 'Total Worldwide Gross' }]);
  });
  test('v2: JSON (the default) by name and type, with export_fqn the data source GUID', async () => {
    const r = await v2('/metadata/tml/export', { metadata: [{ identifier: 'Top grossing genres', type: 'ANSWER' }], export_fqn: true });
    assert.equal(r.status, 200);
    const doc = JSON.parse(r.body[0].edoc);
    const ds = (await v2('/metadata/search', { metadata: [{ identifier: 'movies', type: 'LOGICAL_TABLE' }] })).body[0].metadata_id;
    assert.equal(doc.answer.tables[0].fqn, ds);
  });
  test('a table and a worksheet: read-only TML with their columns', async () => {
    const r = await v2('/metadata/tml/export', { metadata: [{ identifier: 'flights', type: 'LOGICAL_TABLE' }, { identifier: 'Flights Worksheet', type: 'LOGICAL_TABLE' }], edoc_format: 'YAML' });
    const [table, ws] = r.body.map((o: { edoc: string }) => parse(o.edoc));
    assert.equal(r.body[0].info.type, 'table');
    assert.deepEqual(table.table.columns.find((c: any) => c.name === 'delay'), { name: 'delay', db_column_name: 'delay', properties: { column_type: 'MEASURE', aggregation: 'SUM' }, db_column_properties: { data_type: 'INT32' }, description: 'Arrival delay in minutes' });
    assert.equal(r.body[1].info.type, 'worksheet');
    assert.deepEqual(ws.worksheet.worksheet_columns.map((c: any) => [c.name, c.column_id]).slice(0, 2), [['Departure', 'flights::date'], ['Origin', 'flights::origin']]);
  });
  test('an unknown GUID is an ERROR status, the others still export', async () => {
    const r = await v2('/metadata/tml/export', { metadata: [{ identifier: '00000000-0000-4000-8000-000000000000' }, { identifier: demoId }] });
    assert.equal(r.body[0].info.status.status_code, 'ERROR');
    assert.match(r.body[0].info.status.error_message, /No object with id/);
    assert.equal(r.body[1].info.status.status_code, 'OK');
  });
});

describe('liveboards: exported as documented, imported read only', () => {
  const pinboards = async (): Promise<{ id: string; name: string }[]> => {
    const r = await v2('/metadata/search', { metadata: [{ type: 'LIVEBOARD' }], record_size: -1 });
    return (r.body as { metadata_id: string; metadata_name: string }[]).map((x) => ({ id: x.metadata_id, name: x.metadata_name }));
  };
  test('v1 (YAML) and v2 (JSON, by name): guid, liveboard.name, visualizations with id and answer, layout', async () => {
    const board = (await pinboards()).find((p) => p.name === 'Flight Operations')!;
    const r1 = await v1('/metadata/tml/export', { export_ids: JSON.stringify([board.id]) });
    assert.equal(r1.status, 200);
    const [o] = r1.body.object;
    assert.deepEqual(o.info, { name: 'Flight Operations', filename: 'Flight Operations.liveboard.tml', status: { status_code: 'OK' }, type: 'liveboard', id: board.id });
    const doc = parse(o.edoc);
    assert.equal(doc.guid, board.id);
    assert.equal(doc.liveboard.name, 'Flight Operations');
    assert.equal(doc.liveboard.description, 'Delays and traffic of 2001');
    const vizs = doc.liveboard.visualizations as { id: string; viz_guid: string; answer: Record<string, any> }[];
    assert.deepEqual(vizs.map((v) => v.id), ['Viz_1', 'Viz_2', 'Viz_3']);
    assert.deepEqual(vizs.map((v) => v.answer.search_query), ['[origin] [delay] top 10', '[date].monthly [distance]', "[date].'day of week' average [delay]"]);
    assert.deepEqual(vizs[0]!.answer.tables, [{ id: 'flights', name: 'flights' }]);
    assert.equal(vizs[0]!.answer.name, 'Total delay by origin, top 10');
    assert.ok(vizs[0]!.answer.answer_columns.length === 2, JSON.stringify(vizs[0]!.answer.answer_columns));
    assert.deepEqual(doc.liveboard.layout.tiles.map((t: any) => t.visualization_id), ['Viz_1', 'Viz_2', 'Viz_3']);
    // the visualizations' GUIDs are those the service lists for the pinboard (v1 metadata/listvizheaders)
    const vizHeaders = await fetch(`${core.emu.url}${PREFIX}/metadata/listvizheaders?id=${board.id}`, { headers: { authorization: `Bearer ${token}`, 'x-requested-by': 'ThoughtSpot' } }).then((x) => x.json() as Promise<{ id: string }[]>);
    assert.deepEqual(vizs.map((v) => v.viz_guid).sort(), vizHeaders.map((h) => h.id).sort());
    const r2 = await v2('/metadata/tml/export', { metadata: [{ identifier: 'Markets and Weather', type: 'LIVEBOARD' }], export_fqn: true });
    assert.equal(r2.status, 200);
    assert.equal(r2.body[0].info.type, 'liveboard');
    const json = JSON.parse(r2.body[0].edoc);
    assert.deepEqual(json.liveboard.visualizations.map((v: any) => v.answer.tables[0].name), ['stocks', 'seattle-weather', 'seattle-weather']);
    assert.ok(json.liveboard.visualizations.every((v: any) => /^[0-9a-f-]{36}$/.test(v.answer.tables[0].fqn)));
  });
  test('by name, the type tells an answer from a liveboard of the same name', async () => {
    const made = await v2('/metadata/tml/import', { metadata_tmls: ['answer:\n  name: Flight Operations\n  tables:\n  - name: flights\n  search_query: "[origin] top 1"\n'], import_policy: 'PARTIAL' });
    assert.equal(made.body[0].response.status.status_code, 'OK', JSON.stringify(made.body));
    const r = await v2('/metadata/tml/export', { metadata: [{ identifier: 'Flight Operations', type: 'LIVEBOARD' }, { identifier: 'Flight Operations', type: 'ANSWER' }], edoc_format: 'YAML' });
    assert.deepEqual(r.body.map((o: any) => o.info.type), ['liveboard', 'answer']);
    assert.equal(parse(r.body[1].edoc).answer.search_query, '[origin] top 1');
  });
  test('an import answers ERROR per object and changes nothing; VALIDATE_ONLY checks each visualization\'s search_query', async () => {
    const before = await pinboards();
    const board = before.find((p) => p.name === 'Flight Operations')!;
    const edoc = (await v2('/metadata/tml/export', { metadata: [{ identifier: board.id }], edoc_format: 'YAML' })).body[0].edoc as string;
    for (const policy of ['PARTIAL', 'ALL_OR_NONE']) {
      const r = await v2('/metadata/tml/import', { metadata_tmls: [edoc.replace('name: Flight Operations', 'name: Renamed')], import_policy: policy });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body[0].response.status.status_code, 'ERROR');
      assert.match(r.body[0].response.status.error_message, /Liveboard TML cannot be imported into the emulator: its liveboards are read only/);
    }
    const v1r = await v1('/metadata/tml/import', { import_objects: JSON.stringify([edoc]), import_policy: 'PARTIAL' });
    assert.equal(v1r.body.object[0].response.status.status_code, 'ERROR');
    assert.deepEqual(await pinboards(), before);
    const ok = await v2('/metadata/tml/import', { metadata_tmls: [edoc], import_policy: 'VALIDATE_ONLY' });
    assert.deepEqual(ok.body[0].response.status, { status_code: 'OK' });
    const bad = await v2('/metadata/tml/import', { metadata_tmls: [edoc.replace('[date].monthly [distance]', '[date].monthly [distanse]')], import_policy: 'VALIDATE_ONLY' });
    assert.equal(bad.body[0].response.status.status_code, 'ERROR');
    assert.match(bad.body[0].response.status.error_message, /liveboard\.visualizations\[1\]\.answer \(Viz_2\): search_query is not valid on flights: .*distanse/);
  });
});

describe('import', () => {
  const tml = (over: Record<string, unknown> = {}, guid?: string): string =>
    JSON.stringify({ ...(guid ? { guid } : {}), answer: { name: 'Delay by origin', tables: [{ id: 'flights', name: 'flights' }], search_query: '[origin] [delay] top 3', display_mode: 'CHART_MODE', chart: { type: 'COLUMN' }, ...over } });

  test('VALIDATE_ONLY: per-object status with the compiler\'s message; nothing changes', async () => {
    const before = await answers();
    const r = await v2('/metadata/tml/import', { metadata_tmls: [tml(), tml({ search_query: '[origin] [no such column]' })], import_policy: 'VALIDATE_ONLY' });
    assert.equal(r.status, 200);
    assert.equal(r.body[0].response.status.status_code, 'OK');
    assert.equal(r.body[1].response.status.status_code, 'ERROR');
    assert.match(r.body[1].response.status.error_message, /search_query is not valid on flights: Unknown column \[no such column\]/);
    assert.deepEqual(await answers(), before);
  });
  test('ALL_OR_NONE with one bad object writes nothing, and says so for the good one', async () => {
    const before = await answers();
    const edited = await exportAnswer(demoId);
    edited.answer.search_query = '[Major Genre] [Worldwide Gross] top 3';
    const r = await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify(edited), tml({ tables: [{ name: 'no such table' }] })], import_policy: 'ALL_OR_NONE' });
    assert.equal(r.body[0].response.status.status_code, 'ERROR');
    assert.match(r.body[0].response.status.error_message, /ALL_OR_NONE/);
    assert.match(r.body[1].response.status.error_message, /no worksheet, view or table named "no such table"/);
    assert.deepEqual(await answers(), before);
    assert.equal((await exportAnswer(demoId)).answer.search_query, '[Major Genre] [Worldwide Gross] top 5');
  });
  test('PARTIAL: a TML without guid creates an answer; the bad one is skipped; what was sent comes back', async () => {
    const r = await v2('/metadata/tml/import', { metadata_tmls: [tml(), 'guid: d00f3754-15a9-4a7a-a3d5-3248ad19aa9d\n  answer:\n    name: x\n'] });
    assert.equal(r.body[0].response.status.status_code, 'OK');
    assert.deepEqual(r.body[1].response.status, { status_code: 'ERROR', error_message: 'Invalid YAML/JSON syntax in file.' });
    const id = r.body[0].response.header.id_guid as string;
    assert.equal(r.body[0].response.header.metadata_type, 'QUESTION_ANSWER_BOOK');
    assert.ok((await answers()).some((a) => a.id === id));
    const back = await exportAnswer(id);
    assert.equal(back.answer.search_query, '[origin] [delay] top 3');
    assert.equal(back.answer.display_mode, 'CHART_MODE');
    assert.deepEqual(back.answer.chart, { type: 'COLUMN' });
  });
  test('v1: a guid updates that answer (YAML text); the re-export holds the new query', async () => {
    const doc = await exportAnswer(demoId);
    const count = (await answers()).length;
    const yaml = `guid: ${demoId}\nanswer:\n  name: Top grossing genres\n  tables:\n  - name: movies\n  search_query: "[Major Genre] [US Gross] top 3"\n`;
    const r = await v1('/metadata/tml/import', { import_objects: JSON.stringify([yaml]), import_policy: 'PARTIAL' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.object[0].response.status.status_code, 'OK');
    assert.equal(r.body.object[0].response.header.id_guid, demoId);
    assert.equal((await answers()).length, count);
    const after = await exportAnswer(demoId);
    assert.equal(after.answer.search_query, '[Major Genre] [US Gross] top 3');
    assert.equal(after.answer.description, doc.answer.description, 'a member left out keeps its value');
    // put it back for the other tests
    await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify(doc)] });
  });
  test('other object types, a missing query and a repeated guid are errors per object', async () => {
    const r = await v2('/metadata/tml/import', { metadata_tmls: ['guid: x\ntable:\n  name: t\n', tml({ search_query: '' }), tml({}, demoId), tml({}, demoId)], import_policy: 'VALIDATE_ONLY' });
    const msgs = r.body.map((o: any) => o.response.status.error_message);
    assert.match(msgs[0], /Only answer TML can be imported into the emulator, not table/);
    assert.match(msgs[1], /search_query is missing/);
    assert.equal(msgs[2], undefined);
    assert.match(msgs[3], /appears twice/);
  });
  test('import needs DATAMANAGEMENT or ADMINISTRATION (403); a bad policy is 400', async () => {
    assert.equal((await v2('/metadata/tml/import', { metadata_tmls: [tml()], import_policy: 'VALIDATE_ONLY' }, analystToken)).status, 403);
    const bad = await v2('/metadata/tml/import', { metadata_tmls: [tml()], import_policy: 'SOMETIMES' });
    assert.equal(bad.status, 400);
    // the OpenAPI document's error shape: `error.message` an object with the v2 code, the text in `debug`
    assert.equal(bad.body.error.message.code, 10002);
    assert.match(bad.body.error.message.debug, /import_policy/);
  });
});

describe('metadata/answer/sql', () => {
  test('gives the SQL the emulator runs: run on the engine it gives the rows searchdata gives for the answer\'s query', async () => {
    const r = await v2('/metadata/answer/sql', { metadata_identifier: demoId });
    assert.equal(r.status, 200);
    assert.equal(r.body.metadata_type, 'ANSWER');
    const sql = r.body.sql_queries[0].sql_query as string;
    const doc = await exportAnswer(demoId);
    const viaSql = await core.sql(sql.split('\n-- $')[0]!);
    const search = await v2('/searchdata', { query_string: doc.answer.search_query, logical_table_identifier: doc.answer.tables[0].name, record_size: -1 });
    assert.deepEqual(viaSql, search.body.contents[0].data_rows);
  });
  test("metadata/answer/data: the answer's data follows its query, before and after an update", async () => {
    const rowsOf = async () => {
      const doc = await exportAnswer(demoId);
      const data = await v2('/metadata/answer/data', { metadata_identifier: demoId, record_size: -1 });
      const search = await v2('/searchdata', { query_string: doc.answer.search_query, logical_table_identifier: doc.answer.tables[0].name, record_size: -1 });
      assert.equal(data.status, 200, JSON.stringify(data.body));
      assert.deepEqual(data.body.contents[0].column_names, search.body.contents[0].column_names);
      return { data: data.body.contents[0].data_rows, search: search.body.contents[0].data_rows };
    };
    const before = await rowsOf();
    assert.deepEqual(before.data, before.search);
    assert.equal(before.data.length, 5);
    const doc = await exportAnswer(demoId);
    await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ ...doc, answer: { ...doc.answer, search_query: '[Major Genre] [Worldwide Gross] top 2' } })] });
    const after = await rowsOf();
    assert.deepEqual(after.data, after.search);
    assert.equal(after.data.length, 2);
    await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify(doc)] });
  });
  test('an unknown answer is 400', async () => {
    const r = await v2('/metadata/answer/sql', { metadata_identifier: 'no such answer' });
    assert.equal(r.status, 400);
  });
});
