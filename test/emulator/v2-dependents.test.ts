// Dependents on the emulator: REST API v2 metadata/search with include_dependent_objects and v1
// dependency/listdependents (emulator/src/dependents.ts): a table's dependents are the worksheets and models
// over it (a model over several tables is a dependent of each) and the answers and liveboards on it, keyed by
// v1 type; v2 gives at most dependent_objects_record_size of them (default 50, -1 all). The client's
// listDependents gives the same objects on either generation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, type Core } from './core-support';
import { AnalyticsServiceClient } from '../../common/src/api';

const V2 = '/api/rest/2.0';
let core: Core;
let token: string;

async function search(body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}/metadata/search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

/** The dependents' names of the table `name`, by v1 type. */
async function dependents(name: string, more: Record<string, unknown> = {}): Promise<Record<string, string[]>> {
  const r = await search({ metadata: [{ identifier: name, type: 'LOGICAL_TABLE' }], include_dependent_objects: true, ...more });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const t = r.body[0];
  return Object.fromEntries(Object.entries(t.dependent_objects[t.metadata_id] as Record<string, { name: string }[]>).map(([k, v]) => [k, v.map((h) => h.name)]));
}

before(async () => {
  core = await startCore();
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await r.json()) as { token: string }).token;
});
after(async () => core?.stop());

test('the models over a table are its LOGICAL_TABLE dependents; a model over two tables is a dependent of both', async () => {
  const models = (await search({ metadata: [{ type: 'LOGICAL_TABLE', subtypes: ['WORKSHEET'] }], record_size: -1 })).body.map((e: { metadata_name: string }) => e.metadata_name);
  const flights = await dependents('flights');
  const airports = await dependents('airports');
  assert.ok(flights.LOGICAL_TABLE?.length, JSON.stringify(flights));
  for (const m of [...flights.LOGICAL_TABLE!, ...(airports.LOGICAL_TABLE ?? [])]) assert.ok(models.includes(m), `${m} is a worksheet or model`);
  const both = airports.LOGICAL_TABLE?.filter((m) => flights.LOGICAL_TABLE!.includes(m)) ?? [];
  assert.equal(both.length, 1, `one model joins flights and airports: ${JSON.stringify({ flights, airports })}`);
  assert.ok(flights.PINBOARD_ANSWER_BOOK?.length, 'and the liveboard on flights');
  assert.deepEqual(await dependents(both[0]!), { PINBOARD_ANSWER_BOOK: ['Flight Delays by Airport'], QUESTION_ANSWER_BOOK: ['Late flights by origin state'] }, 'over the model itself: the demo answer and liveboard with formulas');
});

test('dependent_objects_record_size bounds the dependents of each object, -1 lists all; a wrong value is a 400', async () => {
  const all = Object.values(await dependents('flights', { dependent_objects_record_size: -1 })).flat();
  assert.ok(all.length >= 2);
  const one = await dependents('flights', { dependent_objects_record_size: 1 });
  assert.deepEqual(Object.values(one).flat(), all.slice(0, 1));
  assert.deepEqual(Object.values(await dependents('flights')).flat(), all.slice(0, 50), 'the default is 50');
  assert.equal((await search({ metadata: [{ type: 'LOGICAL_TABLE' }], include_dependent_objects: true, dependent_objects_record_size: 'many' })).status, 400);
});

test('v1 dependency/listdependents answers the same dependents, keyed by GUID then v1 type', async () => {
  const flights = (await search({ metadata: [{ identifier: 'flights', type: 'LOGICAL_TABLE' }] })).body[0].metadata_id as string;
  const cookie = await core.login('tsadmin', 'admin');
  const r = await core.call('POST', '/dependency/listdependents', { type: 'LOGICAL_TABLE', id: JSON.stringify([flights]) }, cookie);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const v1 = Object.fromEntries(Object.entries((r.body as Record<string, Record<string, { name: string }[]>>)[flights]!).map(([k, v]) => [k, v.map((h) => h.name)]));
  assert.deepEqual(v1, await dependents('flights', { dependent_objects_record_size: -1 }));
  const bad = await core.call('POST', '/dependency/listdependents', { type: 'LOGICAL_TABLE', id: JSON.stringify(['no-such-guid']) }, cookie);
  assert.equal(bad.status, 400);
});

test('the client: listDependents on v1 and on v2 gives the same objects, complete; an unknown data source fails', async () => {
  const flights = (await search({ metadata: [{ identifier: 'flights', type: 'LOGICAL_TABLE' }] })).body[0].metadata_id as string;
  const expected = Object.entries(await dependents('flights', { dependent_objects_record_size: -1 })).flatMap(([type, names]) => names.map((name) => ({ type, name })));
  for (const apiVersion of ['v1', 'v2'] as const) {
    const c = new AnalyticsServiceClient({ url: core.emu.url, username: 'tsadmin', password: 'admin', apiVersion });
    try {
      const d = await c.listDependents(flights);
      assert.equal(d.complete, true);
      assert.deepEqual(d.objects.map((o) => ({ type: o.type, name: o.name })), expected, apiVersion);
      assert.ok(d.objects.every((o) => /^[0-9a-f-]{36}$/.test(o.id)), apiVersion);
      await assert.rejects(c.listDependents('00000000-0000-0000-0000-000000000000'), apiVersion);
    } finally {
      await c.close();
    }
  }
});

/** The column `column` of the data source `table` through v2 metadata/search of LOGICAL_COLUMN with its dependents: its GUID and its dependents' names by v1 type. */
async function columnDependents(table: string, column: string): Promise<{ id: string; byType: Record<string, string[]> }> {
  const r = await search({ metadata: [{ identifier: column, type: 'LOGICAL_COLUMN' }], include_dependent_objects: true, dependent_objects_record_size: -1, record_size: -1 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const c = (r.body as { metadata_id: string; metadata_header: { ownerName: string }; dependent_objects: Record<string, Record<string, { name: string }[]>> }[]).find((e) => e.metadata_header.ownerName === table);
  assert.ok(c, `${table} has a column ${column}`);
  return { id: c.metadata_id, byType: Object.fromEntries(Object.entries(c.dependent_objects[c.metadata_id]!).map(([k, v]) => [k, v.map((h) => h.name)])) };
}

test('a column\'s dependents: the models reading it, the answers and liveboards whose search names it there or through a model column or formula', async () => {
  // movies: one answer searches [Major Genre] [Worldwide Gross]; nothing names [Director]
  assert.deepEqual((await columnDependents('movies', 'Major Genre')).byType, { QUESTION_ANSWER_BOOK: ['Top grossing genres'] });
  assert.deepEqual((await columnDependents('movies', 'Director')).byType, {});
  // flights.destination: both models have a column over it, no search names it
  assert.deepEqual((await columnDependents('flights', 'destination')).byType, { LOGICAL_TABLE: ['Flights Worksheet', 'Flights Model'] });
  // flights.delay: the model's formulas over its [Delay] column feed the answer's [Late Flights] and [Delayed Share]
  const delay = await columnDependents('flights', 'delay');
  assert.deepEqual(delay.byType, { LOGICAL_TABLE: ['Flights Worksheet', 'Flights Model'], QUESTION_ANSWER_BOOK: ['Late flights by origin state'], PINBOARD_ANSWER_BOOK: ['Flight Operations', 'Flight Delays by Airport'] });
  // airports.state: the model's [Origin State] and [Destination State] through its table paths
  assert.deepEqual((await columnDependents('airports', 'state')).byType, { LOGICAL_TABLE: ['Flights Model'], QUESTION_ANSWER_BOOK: ['Late flights by origin state'], PINBOARD_ANSWER_BOOK: ['Flight Delays by Airport'] });
  assert.deepEqual((await columnDependents('airports', 'iata')).byType, {}, 'a join key no search names');
});

test('v1 dependency/listdependents of LOGICAL_COLUMN, and the client on v1 and v2, give the same dependents of a column', async () => {
  const delay = await columnDependents('flights', 'delay');
  const cookie = await core.login('tsadmin', 'admin');
  const r = await core.call('POST', '/dependency/listdependents', { type: 'LOGICAL_COLUMN', id: JSON.stringify([delay.id]) }, cookie);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const v1 = Object.fromEntries(Object.entries((r.body as Record<string, Record<string, { name: string }[]>>)[delay.id]!).map(([k, v]) => [k, v.map((h) => h.name)]));
  assert.deepEqual(v1, delay.byType);
  assert.equal((await core.call('POST', '/dependency/listdependents', { type: 'LOGICAL_COLUMN', id: JSON.stringify(['no-such-guid']) }, cookie)).status, 400);
  const expected = Object.entries(delay.byType).flatMap(([type, names]) => names.map((name) => ({ type, name })));
  for (const apiVersion of ['v1', 'v2'] as const) {
    const c = new AnalyticsServiceClient({ url: core.emu.url, username: 'tsadmin', password: 'admin', apiVersion });
    try {
      const d = await c.listDependents(delay.id, {}, 'LOGICAL_COLUMN');
      assert.deepEqual(d.objects.map((o) => ({ type: o.type, name: o.name })), expected, apiVersion);
      await assert.rejects(c.listDependents('00000000-0000-0000-0000-000000000000', {}, 'LOGICAL_COLUMN'), apiVersion);
    } finally {
      await c.close();
    }
  }
});
