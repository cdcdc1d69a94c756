// The emulator's public API other than searchdata, over plain fetch: sessions and cookies, object headers
// with the documented parameters, metadata details, visualization headers, pinboard data, privileges and the
// catalogued administration operations changing what other calls observe.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { adminCore, debugOf, PREFIX } from './core-support';

const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const OPS = stableGuid('pinboard', 'Flight Operations');
const ANSWER = stableGuid('answer', 'Top grossing genres');

const core = adminCore();
let admin: string;
let analyst: string;

before(async () => {
  await core.ready;
  admin = core.cookie;
  analyst = await core.login('analyst', 'analyst');
});

describe('sessions (docs/service-notes.md §5.1)', () => {
  test('login sets HttpOnly JSESSIONID and clientId cookies; both prefixes answer', async () => {
    const r = await fetch(`${core.emu.url}/tspublic/v1/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=TSADMIN&password=admin&rememberme=true' });
    assert.equal(r.status, 204, '204 "Successful login", no body (https://developers.thoughtspot.com/docs/api-auth-session)');
    const cookies = r.headers.getSetCookie();
    for (const name of ['JSESSIONID', 'clientId']) {
      const c = cookies.find((x) => x.startsWith(`${name}=`));
      assert.ok(c, name);
      assert.match(c!, /HttpOnly/);
    }
    const cookie = cookies.map((c) => c.split(';')[0]).join('; ');
    const h = await fetch(`${core.emu.url}/tspublic/v1/metadata/listobjectheaders?type=TAG`, { headers: { cookie } });
    assert.equal(h.status, 200);
  });
  test('a wrong password answers 401 with the error body', async () => {
    const r = await core.call('POST', '/session/login', { username: 'tsadmin', password: 'wrong' }, undefined, true);
    assert.equal(r.status, 401);
    assert.match(r.body.incident_id_guid, /^[0-9a-f-]{36}$/);
    assert.equal(debugOf(r.body)[0], 'Unable to verify user. Please login again.');
  });
  test('logout ends the session', async () => {
    const c = await core.login('analyst', 'analyst');
    assert.equal((await core.call('GET', '/metadata/listobjectheaders', {}, c)).status, 200);
    assert.equal((await core.call('POST', '/session/logout', {}, c)).status, 204);
    assert.equal((await core.call('GET', '/metadata/listobjectheaders', {}, c)).status, 401);
  });
  test('an empty JSON body with Content-Type application/json is accepted (the seed examples send none)', async () => {
    const r = await fetch(`${core.emu.url}${PREFIX}/searchdata?query_string=%5Borigin%5D&data_source_guid=${FLIGHTS}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: admin } });
    assert.equal(r.status, 200);
  });
});

describe('metadata/listobjectheaders (docs/service-interface.md §4.2, docs/service-notes.md §3.1)', () => {
  const list = async (params: Record<string, string | number | boolean>, who = admin) => {
    const r = await core.call('GET', '/metadata/listobjectheaders', params, who);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { id: string; name: string; owner: string; author: string; created: number }[];
  };
  test('tables are LOGICAL_TABLEs with stable GUIDs and owner = id', async () => {
    const tables = await list({ type: 'LOGICAL_TABLE', subtypes: '["ONE_TO_ONE_LOGICAL"]' });
    assert.deepEqual(tables.map((t) => t.name).sort(), ['airports', 'cars', 'flights', 'movies', 'retail_calendar', 'seattle-weather', 'stocks']);
    const f = tables.find((t) => t.name === 'flights')!;
    assert.equal(f.id, FLIGHTS);
    assert.equal(f.owner, f.id);
    assert.deepEqual(Object.keys(f).sort(), ['author', 'created', 'description', 'id', 'isAutoCreated', 'isAutoDelete', 'modified', 'modifiedBy', 'name', 'owner']);
  });
  test('subtypes WORKSHEET lists the worksheet and the model only', async () => {
    assert.deepEqual((await list({ type: 'LOGICAL_TABLE', subtypes: '["WORKSHEET"]' })).map((t) => t.name).sort(), ['Flights Model', 'Flights Worksheet']);
  });
  test('LOGICAL_COLUMN headers are owned by their table', async () => {
    const cols = await list({ type: 'LOGICAL_COLUMN', pattern: 'destination' });
    assert.ok(cols.some((c) => c.owner === FLIGHTS));
    assert.ok(cols.every((c) => c.name.toLowerCase() === 'destination'));
    assert.ok(cols.some((c) => c.name === 'Destination'), 'the worksheet column matches too');
  });
  test('pattern uses % as the wildcard, case-insensitively', async () => {
    assert.deepEqual((await list({ type: 'LOGICAL_TABLE', pattern: 'S%', sort: 'NAME' })).map((t) => t.name), ['seattle-weather', 'stocks']);
    assert.deepEqual((await list({ type: 'LOGICAL_TABLE', pattern: '%WEATHER' })).map((t) => t.name), ['seattle-weather']);
  });
  test('sort, sortascending, offset and batchsize page through the list', async () => {
    const all = (await list({ type: 'LOGICAL_TABLE', sort: 'NAME', sortascending: false })).map((t) => t.name);
    assert.deepEqual(all, [...all].sort((a, b) => b.toLowerCase().localeCompare(a.toLowerCase())));
    const page = (await list({ type: 'LOGICAL_TABLE', sort: 'NAME', sortascending: false, offset: 2, batchsize: 2 })).map((t) => t.name);
    assert.deepEqual(page, all.slice(2, 4));
  });
  test('tagname, fetchids, skipids and auto_created filter', async () => {
    assert.deepEqual((await list({ type: 'LOGICAL_TABLE', tagname: '["finance"]' })).map((t) => t.name), ['stocks']);
    assert.deepEqual((await list({ type: 'LOGICAL_TABLE', fetchids: JSON.stringify([FLIGHTS]) })).map((t) => t.id), [FLIGHTS]);
    assert.ok(!(await list({ type: 'LOGICAL_TABLE', skipids: JSON.stringify([FLIGHTS]) })).some((t) => t.id === FLIGHTS));
    assert.deepEqual(await list({ type: 'LOGICAL_TABLE', auto_created: true }), []);
  });
  test('books, tags, visualizations and users are listed by type', async () => {
    assert.deepEqual((await list({ type: 'PINBOARD_ANSWER_BOOK', sort: 'NAME' })).map((b) => b.name), ['Flight Delays by Airport', 'Flight Operations', 'Markets and Weather']);
    assert.deepEqual((await list({ type: 'QUESTION_ANSWER_BOOK' })).map((b) => b.id).sort(), [ANSWER, stableGuid('answer', 'Late flights by origin state')].sort());
    const sheets = await list({ type: 'PINBOARD_ANSWER_SHEET' });
    assert.equal(sheets.filter((s) => s.owner === OPS).length, 3);
    assert.ok((await list({ type: 'TAG' })).some((t) => t.name === 'demo'));
    assert.deepEqual((await list({ type: 'USER', sort: 'NAME' })).map((u) => u.name), ['analyst', 'tsadmin']);
  });
  test('category MY lists what the user authored', async () => {
    assert.ok((await list({ type: 'LOGICAL_TABLE', category: 'MY' })).length > 0);
    assert.deepEqual(await list({ type: 'LOGICAL_TABLE', category: 'MY' }, analyst), []);
    assert.deepEqual(await list({ type: 'LOGICAL_TABLE', category: 'FAVORITE' }), []);
  });
  test('an unknown type answers 500 and an unknown subtype 400, as the service does', async () => {
    assert.equal((await core.call('GET', '/metadata/listobjectheaders', { type: 'NOPE' }, admin)).status, 500);
    const r = await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE', subtypes: '["NOPE"]' }, admin);
    assert.equal(r.status, 400);
    assert.match(debugOf(r.body).join(' '), /subtype/);
    assert.equal((await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE', batchsize: 'x' }, admin)).status, 400);
  });
});

describe('details, visualization headers and pinboard data', () => {
  test('metadata/details gives columns with dataType, type, defaultAggrType, synonyms (docs/service-notes.md §3.2)', async () => {
    const r = await core.call('GET', '/metadata/details', { type: 'LOGICAL_TABLE', id: JSON.stringify([FLIGHTS]) }, analyst);
    assert.equal(r.status, 200);
    const s = r.body.storables[0];
    assert.equal(s.header.id, FLIGHTS);
    assert.equal(s.type, 'ONE_TO_ONE_LOGICAL');
    const byName = Object.fromEntries(s.columns.map((c: any) => [c.header.name, c]));
    assert.deepEqual(Object.keys(byName), ['date', 'delay', 'distance', 'origin', 'destination']);
    assert.deepEqual([byName.date.dataType, byName.date.type, byName.date.defaultAggrType], ['DATE_TIME', 'ATTRIBUTE', 'NONE']);
    assert.deepEqual([byName.delay.dataType, byName.delay.type, byName.delay.defaultAggrType], ['INT32', 'MEASURE', 'SUM']);
    assert.deepEqual(byName.origin.synonyms, ['from']);
    assert.ok(s.columns.every((c: any) => c.header.owner === FLIGHTS));
    assert.equal(byName.delay.header.id, stableGuid('column', FLIGHTS, 'delay'));
  });
  test('metadata/details of an unknown id answers 400', async () => {
    assert.equal((await core.call('GET', '/metadata/details', { type: 'LOGICAL_TABLE', id: '["nope"]' }, admin)).status, 400);
  });
  test('listvizheaders gives the visualizations owned by the pinboard', async () => {
    const r = await core.call('GET', '/metadata/listvizheaders', { id: OPS }, analyst);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 3);
    assert.ok(r.body.every((v: any) => v.owner === OPS && typeof v.created === 'number'));
  });
  test('pinboarddata answers every visualization, or those named by vizid, keyed by id', async () => {
    const vizs = (await core.call('GET', '/metadata/listvizheaders', { id: OPS }, admin)).body as { id: string; name: string }[];
    const all = await core.call('POST', '/pinboarddata', { id: OPS }, admin);
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body).sort(), vizs.map((v) => v.id).sort());
    const first = all.body[vizs[0]!.id];
    assert.equal(first.name, vizs[0]!.name);
    assert.deepEqual(first.columnNames, ['origin', 'Total delay']);
    assert.equal(first.rowCount, 10);
    const one = await core.call('POST', '/pinboarddata', { id: OPS, vizid: JSON.stringify([vizs[1]!.id]), batchsize: 2, pagenumber: 2 }, admin);
    assert.deepEqual(Object.keys(one.body), [vizs[1]!.id]);
    assert.equal(one.body[vizs[1]!.id].rowCount, 2);
    assert.equal(one.body[vizs[1]!.id].offset, 2);
    assert.equal((await core.call('POST', '/pinboarddata', { id: FLIGHTS }, admin)).status, 400);
  });
});

describe('privileges and administration operations', () => {
  test('the analyst reads the demo data but may not administer (403 with the seed text)', async () => {
    assert.equal((await core.call('POST', '/searchdata', { query_string: '[origin]', data_source_guid: FLIGHTS }, analyst)).status, 200);
    for (const [m, p, params] of [
      ['GET', '/user/list', {}],
      ['POST', '/group/addprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Analysts"]' }],
      ['POST', '/user/transfer/ownership', { fromUserName: 'tsadmin', toUserName: 'analyst' }],
      ['POST', `/materialization/refreshview/${FLIGHTS}`, {}],
    ] as const) {
      const r = await core.call(m, p, params, analyst);
      assert.equal(r.status, 403, p);
      assert.deepEqual(debugOf(r.body), ['User does not have required privileges. Please contact your administrator.']);
    }
  });
  test('user/list names users, groups and memberships', async () => {
    const r = await core.call('GET', '/user/list', {}, admin);
    assert.equal(r.status, 200);
    const a = r.body.find((p: any) => p.name === 'analyst');
    assert.equal(a.principalTypeEnum, 'LOCAL_USER');
    assert.deepEqual(a.groupNames, ['Analysts']);
    assert.ok(!a.privileges.includes('DATAMANAGEMENT'));
    assert.ok(r.body.some((p: any) => p.name === 'Data Managers' && p.principalTypeEnum === 'LOCAL_GROUP'));
  });
  test('user/sync adds a user; removing its group privilege takes effect at once', async () => {
    const dry = await core.call('POST', '/user/sync', { principals: JSON.stringify([{ name: 'loader', principalTypeEnum: 'LOCAL_USER', groupNames: ['Data Managers'] }]), password: 'pw1' }, admin, true);
    assert.deepEqual(dry.body.usersAdded, ['loader']);
    assert.equal((await core.call('POST', '/session/login', { username: 'loader', password: 'pw1' }, undefined, true)).status, 401, 'applyChanges defaults to false');
    const r = await core.call('POST', '/user/sync', { principals: JSON.stringify([{ name: 'loader', principalTypeEnum: 'LOCAL_USER', groupNames: ['Data Managers'] }]), password: 'pw1', applyChanges: true }, admin, true);
    assert.equal(r.status, 200);
    const loader = await core.emu.ctx.verifyPassword('loader', 'pw1');
    assert.ok(loader?.privileges.has('DATAMANAGEMENT'));
    assert.equal((await core.call('POST', '/group/removeprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Data Managers"]' }, admin, true)).status, 200);
    assert.equal(core.emu.ctx.userById(loader!.id)?.privileges.has('DATAMANAGEMENT'), false);
    assert.equal((await core.call('POST', '/group/addprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Data Managers"]' }, admin, true)).status, 200);
    assert.equal(core.emu.ctx.userById(loader!.id)?.privileges.has('DATAMANAGEMENT'), true);
    assert.equal((await core.call('POST', '/group/addprivilege', { privilege: 'FLYING', groupNames: '["Data Managers"]' }, admin, true)).status, 400);
    assert.equal((await core.call('POST', '/group/addprivilege', { privilege: 'AUTHORING', groupNames: '["Nobody"]' }, admin, true)).status, 400);
  });
  test("removing a group's DATAMANAGEMENT makes its users' StartLoad answer 403 (load API through the same context)", async () => {
    const principals = JSON.stringify([{ name: 'loader2', principalTypeEnum: 'LOCAL_USER', groupNames: ['Data Managers'] }]);
    assert.equal((await core.call('POST', '/user/sync', { principals, password: 'pw2', applyChanges: true }, admin, true)).status, 200);
    const session = await fetch(`${core.emu.url}/ts_dataservice/v1/public/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'loader2', password: 'pw2' }) });
    assert.equal(session.status, 200);
    const cookie = session.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const start = () => fetch(`${core.emu.url}/ts_dataservice/v1/public/loads`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ target: { database: 'demo', table: 'flights' } }) });
    const ok = await start();
    assert.equal(ok.status, 200, await ok.text());
    assert.equal((await core.call('POST', '/group/removeprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Data Managers"]' }, admin, true)).status, 200);
    const refused = await start();
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /User does not have required privileges/);
    assert.equal((await core.call('POST', '/group/addprivilege', { privilege: 'DATAMANAGEMENT', groupNames: '["Data Managers"]' }, admin, true)).status, 200);
  });
  test('user/updatepassword needs the current password and ends other sessions', async () => {
    const other = await core.login('analyst', 'analyst');
    const wrong = await core.call('POST', '/user/updatepassword', { name: 'analyst', currentpassword: 'nope', password: 'new-pw' }, analyst, true);
    assert.equal(wrong.status, 400);
    assert.equal((await core.call('POST', '/user/updatepassword', { name: 'analyst', currentpassword: 'analyst', password: 'new-pw' }, analyst, true)).status, 200);
    assert.equal((await core.call('GET', '/metadata/listobjectheaders', {}, other)).status, 401);
    assert.equal((await core.call('POST', '/session/login', { username: 'analyst', password: 'analyst' }, undefined, true)).status, 401);
    assert.ok(await core.emu.ctx.verifyPassword('analyst', 'new-pw'));
    assert.equal((await core.call('POST', '/user/updatepassword', { name: 'tsadmin', currentpassword: 'admin', password: 'x' }, analyst, true)).status, 403);
    // the field names of ThoughtSpot's Python client (tsrestapiv1.py user_updatepassword): newpassword, answered with JSON
    const viaPython = await core.call('POST', '/user/updatepassword', { name: 'analyst', currentpassword: 'new-pw', newpassword: 'analyst' }, analyst, true);
    assert.equal(viaPython.status, 200);
    assert.deepEqual(viaPython.body, {});
    assert.ok(await core.emu.ctx.verifyPassword('analyst', 'analyst'), 'newpassword is the new password');
  });
  test('user/transfer/ownership moves authorship, which category MY observes', async () => {
    assert.equal((await core.call('POST', '/user/transfer/ownership', { fromUserName: 'tsadmin', toUserName: 'analyst' }, admin)).status, 204);
    const mine = await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_TABLE', category: 'MY' }, analyst);
    assert.ok(mine.body.some((t: any) => t.id === FLIGHTS));
    assert.equal((await core.call('POST', '/user/transfer/ownership', { fromUserName: 'analyst', toUserName: 'tsadmin' }, admin)).status, 204);
    assert.equal((await core.call('POST', '/user/transfer/ownership', { fromUserName: 'ghost', toUserName: 'tsadmin' }, admin)).status, 400);
  });
  test('materialization/refreshview answers 200 with a JSON body for a data source and 400 for an unknown id', async () => {
    const r = await core.call('POST', `/materialization/refreshview/${FLIGHTS}`, {}, admin);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {});
    assert.equal((await core.call('POST', '/materialization/refreshview/nope', {}, admin)).status, 400);
  });
  test('an unknown operation answers 404 with the error body', async () => {
    const r = await core.call('GET', '/no/such/thing', {}, admin);
    assert.equal(r.status, 404);
    assert.ok(debugOf(r.body).length > 0);
  });
});
