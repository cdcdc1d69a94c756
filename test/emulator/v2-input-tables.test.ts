// REST API v2 input tables on the emulator, through HTTP (emulator/src/v2/inputTables.ts; OpenAPI
// createInputTable, updateInputTable, deleteInputTable of thoughtspot/rest-api-sdk): a table linked to
// a worksheet, whose update replaces its rows and refuses a whole request for one bad cell; the rows
// checked through searchdata, on the input table and on the worksheet it is joined into on its key column.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let admin: string;

async function v2(path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function token(username: string, password: string): Promise<string> {
  const r = await v2('/auth/token/full', { username, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.token as string;
}

/** The rows of a search over a data source, sorted. */
async function rowsOf(id: string, query: string): Promise<unknown[][]> {
  const r = await v2('/searchdata', { query_string: query, logical_table_identifier: id, record_size: -1 }, admin);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.contents[0].data_rows as unknown[][]).map((row) => row.map((v) => (typeof v === 'number' ? v : String(v)))).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

/** The GUID of the data source named `name`. */
async function modelId(name: string): Promise<string> {
  const r = await v2('/metadata/search', { metadata: [{ identifier: name, type: 'LOGICAL_TABLE' }] }, admin);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body[0].metadata_id as string;
}

const DEFINITION = {
  referenced_columns: ['Origin'],
  new_columns: [
    { name: 'target', data_type: 'DOUBLE', type: 'MEASURE' },
    { name: 'status', data_type: 'VARCHAR', type: 'ATTRIBUTE', allowed_values: ['open', 'closed'] },
    { name: 'due', data_type: 'DATE', type: 'ATTRIBUTE' },
  ],
};

before(async () => {
  core = await startCore();
  admin = await token('tsadmin', 'admin');
});
after(async () => core?.stop());

describe('input tables', () => {
  let id = '';

  test('create links a table to a worksheet and answers its GUID; the table is a data source searchdata reads', async () => {
    const r = await v2('/input-tables/create', { table_name: 'delay_targets', model_identifier: 'Flights Worksheet', table_definition: DEFINITION }, admin);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    id = r.body.input_table_identifier;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const found = await v2('/metadata/search', { metadata: [{ identifier: id, type: 'LOGICAL_TABLE' }], include_details: true }, admin);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body[0].metadata_name, 'delay_targets');
    assert.deepEqual(await rowsOf(id, '[Origin] [target]'), []);
  });

  test('update writes the rows (rows_loaded), and a second update replaces them', async () => {
    const first = await v2(`/input-tables/${id}/update`, { columns: ['Origin', 'target', 'status', 'due'], rows: [['SEA', '1.5', 'open', '2001-07-01'], ['LAX', '2', 'closed', '']] }, admin);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { rows_loaded: 2 });
    assert.deepEqual(await rowsOf(id, '[Origin] [target]'), [['LAX', 2], ['SEA', 1.5]]);
    const worksheet = await modelId('Flights Worksheet');
    assert.deepEqual(await rowsOf(worksheet, "[Origin] [status] [due] [Origin] = 'SEA', 'LAX', 'BOS'"), [['BOS', 'null', 'null'], ['LAX', 'closed', 'null'], ['SEA', 'open', 993945600]], 'the worksheet reads the rows joined on its Origin; an origin without one has nulls');
    const second = await v2(`/input-tables/${id}/update`, { columns: ['Origin', 'target'], rows: [['SFO', '3']] }, admin);
    assert.deepEqual(second.body, { rows_loaded: 1 });
    assert.deepEqual(await rowsOf(id, '[Origin] [target]'), [['SFO', 3]], 'each update replaces the rows (OpenAPI updateInputTable)');
  });

  test('a value outside allowed_values, a bad number or date, or an unknown column refuses the whole request and writes nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{ columns: ['Origin', 'status'], rows: [['JFK', 'open'], ['BOS', 'pending']] }, /rows\[1\], column status: "pending" is not one of its allowed_values/],
      [{ columns: ['Origin', 'target'], rows: [['JFK', 'lots']] }, /rows\[0\], column target: "lots" is not a number/],
      [{ columns: ['Origin', 'due'], rows: [['JFK', '07/01/2001']] }, /not an ISO date/],
      [{ columns: ['Origin', 'nope'], rows: [['JFK', 'x']] }, /Unknown column name nope/],
      [{ columns: ['Origin', 'target'], rows: [['JFK']] }, /rows\[0\]: expected 2 strings/],
    ];
    for (const [req, message] of cases) {
      const r = await v2(`/input-tables/${id}/update`, req, admin);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error.message.debug, message);
    }
    assert.deepEqual(await rowsOf(id, '[Origin] [target]'), [['SFO', 3]]);
  });

  test('403 without DATAMANAGEMENT or ADMINISTRATION; 404 for an unknown model or input table; 400 for no columns or a taken name', async () => {
    const analyst = await token('analyst', 'analyst');
    assert.equal((await v2('/input-tables/create', { table_name: 'mine', model_identifier: 'Flights Worksheet', table_definition: DEFINITION }, analyst)).status, 403);
    assert.equal((await v2(`/input-tables/${id}/update`, { columns: ['Origin'], rows: [] }, analyst)).status, 403);
    assert.equal((await v2('/input-tables/create', { table_name: 'x', model_identifier: 'No Such Model', table_definition: DEFINITION }, admin)).status, 404);
    assert.equal((await v2('/input-tables/00000000-0000-0000-0000-000000000000/update', { columns: ['Origin'], rows: [] }, admin)).status, 404);
    assert.equal((await v2('/input-tables/create', { table_name: 'x', model_identifier: 'Flights Worksheet', table_definition: { referenced_columns: [], new_columns: [] } }, admin)).status, 400);
    assert.equal((await v2('/input-tables/create', { table_name: 'delay_targets', model_identifier: 'Flights Worksheet', table_definition: DEFINITION }, admin)).status, 400);
    assert.equal((await v2('/input-tables/create', { table_name: 'x', model_identifier: 'Flights Worksheet', table_definition: { referenced_columns: [], new_columns: [{ name: 'a', data_type: 'BLOB', type: 'ATTRIBUTE' }] } }, admin)).status, 400);
  });

  test('a column named like one of the model\'s, or key columns on two table paths or a formula: 400, nothing created', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['Flights Worksheet', { referenced_columns: ['Origin'], new_columns: [{ name: 'delay', data_type: 'DOUBLE', type: 'MEASURE' }] }, /already has a column delay/],
      ['Flights Model', { referenced_columns: ['Origin City', 'Destination City'], new_columns: [{ name: 'fare', data_type: 'DOUBLE', type: 'MEASURE' }] }, /must read one table/],
      ['Flights Model', { referenced_columns: ['Delayed Share'], new_columns: [{ name: 'fare', data_type: 'DOUBLE', type: 'MEASURE' }] }, /formula column/],
    ];
    for (const [model, table_definition, message] of cases) {
      const r = await v2('/input-tables/create', { table_name: 'fares', model_identifier: model, table_definition }, admin);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error.message.debug, message);
    }
    assert.equal((await v2('/metadata/search', { metadata: [{ identifier: 'fares', type: 'LOGICAL_TABLE' }] }, admin)).body.length, 0);
  });

  test('an input table keyed on a model column of a joined path joins from that path', async () => {
    const r = await v2('/input-tables/create', { table_name: 'state_notes', model_identifier: 'Flights Model', table_definition: { referenced_columns: ['Origin State'], new_columns: [{ name: 'state note', data_type: 'VARCHAR', type: 'ATTRIBUTE' }] } }, admin);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const notes = r.body.input_table_identifier;
    assert.equal((await v2(`/input-tables/${notes}/update`, { columns: ['Origin State', 'state note'], rows: [['WA', 'rainy']] }, admin)).status, 200);
    assert.deepEqual(await rowsOf(await modelId('Flights Model'), "[Origin] [Origin State] [state note] [Origin] = 'SEA', 'LAX'"), [['LAX', 'CA', 'null'], ['SEA', 'WA', 'rainy']]);
    assert.equal((await fetch(`${core.emu.url}${V2}/input-tables/${notes}/delete`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } })).status, 204);
  });

  test('an input table whose name holds brackets joins its model all the same: the model names it without them', async () => {
    const c = await v2('/input-tables/create', { table_name: 'goals [2001]', model_identifier: 'Flights Worksheet', table_definition: { referenced_columns: ['Origin'], new_columns: [{ name: 'goal', data_type: 'VARCHAR', type: 'ATTRIBUTE' }] } }, admin);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const u = await v2(`/input-tables/${c.body.input_table_identifier}/update`, { columns: ['Origin', 'goal'], rows: [['SEA', 'on time']] }, admin);
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.deepEqual(await rowsOf(await modelId('Flights Worksheet'), "[Origin] [goal] [Origin] = 'SEA'"), [['SEA', 'on time']]);
    assert.equal((await v2(`/input-tables/${c.body.input_table_identifier}/delete`, {}, admin)).status, 204);
  });

  test('delete drops the input table (204) and takes it out of the worksheet; then it is unknown', async () => {
    const r = await fetch(`${core.emu.url}${V2}/input-tables/${id}/delete`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(r.status, 204);
    assert.equal((await v2(`/input-tables/${id}/update`, { columns: ['Origin'], rows: [] }, admin)).status, 404);
    const worksheet = await modelId('Flights Worksheet');
    const gone = await v2('/searchdata', { query_string: '[Origin] [status]', logical_table_identifier: worksheet }, admin);
    assert.equal(gone.status, 400, JSON.stringify(gone.body));
    assert.match(gone.body.error.message.debug, /Unknown column \[status\]/);
    assert.deepEqual(await rowsOf(worksheet, "[Origin] [Origin] = 'SEA'"), [['SEA']], 'the worksheet searches as before');
    const again = await v2('/input-tables/create', { table_name: 'delay_targets', model_identifier: 'Flights Worksheet', table_definition: DEFINITION }, admin);
    assert.equal(again.status, 200, 'the name is free again');
  });
});
