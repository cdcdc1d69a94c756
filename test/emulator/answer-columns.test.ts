// The emulator's one rule for the columns of an answer (emulator/src/searchdata/compile.ts, issue 38):
// a column that stands only in a filter — any filter: =, !=, a list of values, >, between, begins with,
// in a subsearch, near — is no column of the answer, as exported TML's `answer_columns` leave it out. The
// same columns come back from searchdata and as `answer_columns` of the Answer TML the emulator exports
// for an answer of that search; and an exported Answer TML imported again and exported again is the same
// text, byte for byte. A Liveboard TML as clusters export it (a note tile, test/fixtures/exportedTml.ts)
// validates. Plain fetch against a real emulator (v2).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { exportedLiveboard } from '../fixtures/exportedTml';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let token = '';

async function v2(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** searchdata of `query` on `table`: its status and column names (or the error message). */
async function columnsOf(query: string, table: string): Promise<{ status: number; columns?: string[]; message?: string }> {
  const r = await v2('/searchdata', { query_string: query, logical_table_identifier: table, record_size: -1 });
  return r.status === 200 ? { status: 200, columns: r.body.contents[0].column_names } : { status: r.status, message: JSON.stringify(r.body) };
}

/** Imports an Answer TML of `query` on `table` (a new answer) and gives the text of its export (YAML). */
async function roundTrip(name: string, query: string, table: string): Promise<string> {
  const tml = `guid: null\nanswer:\n  name: ${JSON.stringify(name)}\n  tables:\n  - id: ${table}\n    name: ${table}\n  search_query: "${query.replace(/"/g, '\\"')}"\n`;
  const i = await v2('/metadata/tml/import', { metadata_tmls: [tml], import_policy: 'PARTIAL' });
  assert.equal(i.status, 200, JSON.stringify(i.body));
  assert.equal(i.body[0].response.status.status_code, 'OK', JSON.stringify(i.body[0]));
  const e = await v2('/metadata/tml/export', { metadata: [{ identifier: i.body[0].response.header.id_guid }], edoc_format: 'YAML' });
  assert.equal(e.body[0].info.status.status_code, 'OK', JSON.stringify(e.body[0]));
  return e.body[0].edoc as string;
}

before(async () => {
  core = await startCore();
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await r.json()) as { token: string }).token;
});
after(async () => core?.stop());

describe('a column only in a filter is no column of the answer', () => {
  for (const [kind, query, table, columns] of [
    ['=', "[delay] [origin] = 'SEA'", 'flights', ['Total delay']],
    ['!=', "[delay] [origin] != 'SEA'", 'flights', ['Total delay']],
    ['a list of values', "[delay] [origin] = 'SEA', 'PDX'", 'flights', ['Total delay']],
    ['>', '[delay] [distance] > 1000', 'flights', ['Total delay']],
    ['between', '[delay] [distance] between 100 and 1000', 'flights', ['Total delay']],
    ['begins with', "[delay] [origin] begins with 'S'", 'flights', ['Total delay']],
    ['in a subsearch', "[delay] [origin] in ([origin] [destination] = 'SEA')", 'flights', ['Total delay']],
    ['in a subsearch of filters only', "[delay] [origin] in ([origin] = 'SEA')", 'flights', ['Total delay']],
    ['near', "[iata] [city] near 'seattle'", 'airports', ['iata']],
    ['a measure filter beside an attribute filter, nothing else listed', "[delay] > 100 [origin] = 'SEA'", 'flights', ['Total delay']],
    ['listed as well as filtered: a column', "[delay] [origin] = 'SEA' [origin]", 'flights', ['origin', 'Total delay']],
  ] as const) {
    test(`${kind}: searchdata and the exported answer_columns agree`, async () => {
      const got = await columnsOf(query, table);
      assert.deepEqual(got, { status: 200, columns }, query);
      const doc = parse(await roundTrip(`Columns ${kind}`, query, table));
      // the same columns; an export lists them by name in code-unit order, as most exported files do
      assert.deepEqual(doc.answer.answer_columns, [...columns].sort().map((name) => ({ name })), query);
    });
  }
  test('a query of attribute filters only shows the filtered attributes, as the exported files that list nothing else keep them', async () => {
    for (const [query, table, columns] of [["[origin] = 'SEA'", 'flights', ['origin']], ["[origin] = 'SEA' [destination] != 'LAX' [origin] != 'PDX'", 'flights', ['origin', 'destination']], ["[city] near 'seattle'", 'airports', ['city']]] as const) {
      assert.deepEqual(await columnsOf(query, table), { status: 200, columns }, query);
    }
    const r = await v2('/searchdata', { query_string: "[origin] = 'SEA'", logical_table_identifier: 'flights', record_size: -1 });
    assert.deepEqual(r.body.contents[0].data_rows, [['SEA']]);
  });
  test('the rows follow: [delay] > 100 [origin] = \'SEA\' is one total', async () => {
    const r = await v2('/searchdata', { query_string: "[delay] > 100 [origin] = 'SEA'", logical_table_identifier: 'flights', record_size: -1 });
    const [[want]] = await core.sql(`SELECT sum(delay) FROM "demo.engine_default_schema"."flights" WHERE delay > 100 AND lower(origin) = 'sea'`) as [[unknown]];
    assert.deepEqual(r.body.contents[0].data_rows, [[Number(want)]]);
  });
});

describe('import → export → import', () => {
  test('an exported Answer TML imported again exports the same text, byte for byte', async () => {
    const first = await roundTrip('Round trip', "[origin] [delay] [destination] = 'SEA' sort by [delay] descending", 'flights');
    for (let i = 0; i < 2; i++) {
      const again = await v2('/metadata/tml/import', { metadata_tmls: [first], import_policy: 'PARTIAL' });
      assert.equal(again.body[0].response.status.status_code, 'OK', JSON.stringify(again.body[0]));
      const e = await v2('/metadata/tml/export', { metadata: [{ identifier: parse(first).guid }], edoc_format: 'YAML' });
      assert.equal(e.body[0].edoc, first);
    }
  });
  test('the demo answer (with its kept presentation) too', async () => {
    const list = await v2('/metadata/search', { metadata: [{ type: 'ANSWER' }], record_size: -1 });
    for (const a of list.body as { metadata_id: string }[]) {
      const e = await v2('/metadata/tml/export', { metadata: [{ identifier: a.metadata_id }], edoc_format: 'YAML' });
      const text = e.body[0].edoc as string;
      const again = await v2('/metadata/tml/import', { metadata_tmls: [text], import_policy: 'PARTIAL' });
      assert.equal(again.body[0].response.status.status_code, 'OK', JSON.stringify(again.body[0]));
      const e2 = await v2('/metadata/tml/export', { metadata: [{ identifier: a.metadata_id }], edoc_format: 'YAML' });
      assert.equal(e2.body[0].edoc, text, a.metadata_id);
    }
  });
});

describe('a Liveboard TML as exported', () => {
  test('VALIDATE_ONLY: a note tile, guid: null, obj_id and every exported member are OK; a bad column is still an ERROR', async () => {
    const ok = await v2('/metadata/tml/import', { metadata_tmls: [exportedLiveboard({ flights: 'flights', movies: 'movies' })], import_policy: 'VALIDATE_ONLY' });
    assert.deepEqual(ok.body[0].response.status, { status_code: 'OK' }, JSON.stringify(ok.body[0]));
    const bad = await v2('/metadata/tml/import', { metadata_tmls: [exportedLiveboard({ flights: 'flights', movies: 'movies' }, 'delai')], import_policy: 'VALIDATE_ONLY' });
    assert.equal(bad.body[0].response.status.status_code, 'ERROR', JSON.stringify(bad.body[0]));
    assert.match(bad.body[0].response.status.error_message, /delai/);
  });
});
