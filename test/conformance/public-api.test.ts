// Conformance of the public API (docs/service-interface.md §4.2): for each catalogued operation, the
// request exactly as the service's REST API v1 documentation's example writes it (headers, encoding,
// parameters) against the emulator, checking status, content type and body shape; then the same call
// through TSQ's client (common/src/api). Each test names the page its example comes from.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextOffset } from '../../common/src/api';
import { ServiceCatalog } from '../../common/src/catalog';
import {
  assertErrorBody,
  assertJson,
  assertNoContent,
  assertObjectHeader,
  assertSearchResult,
  assertVizHeader,
  example,
  FORM_POST_HEADERS,
  GET_HEADERS,
  JSON_POST_HEADERS,
  startConformance,
  type Conformance,
} from './support';

let c: Conformance;
let flightsId: string;
let pinboardId: string;
let vizIds: string[];

before(async () => {
  c = await startConformance();
  const tables = await example(c.emu.url, 'GET', '/metadata/listobjectheaders?type=LOGICAL_TABLE', GET_HEADERS, undefined, c.adminCookie);
  flightsId = (tables.json as { id: string; name: string }[]).find((t) => t.name === 'flights')!.id;
  const boards = await example(c.emu.url, 'GET', '/metadata/listobjectheaders?type=PINBOARD_ANSWER_BOOK', GET_HEADERS, undefined, c.adminCookie);
  pinboardId = (boards.json as { id: string; name: string }[]).find((b) => b.name === 'Flight Operations')!.id;
  const vizzes = await example(c.emu.url, 'GET', `/metadata/listvizheaders?id=${pinboardId}`, GET_HEADERS, undefined, c.adminCookie);
  vizIds = (vizzes.json as { id: string }[]).map((v) => v.id);
});
after(async () => c?.stop());

describe('session (https://docs.thoughtspot.com/software/7.0/session-api, https://developers.thoughtspot.com/docs/api-auth-session)', () => {
  test('POST session/login: form username, password, rememberme → 204 with the session cookies', async () => {
    // curl -X POST --header 'Content-Type: application/x-www-form-urlencoded' --header 'Accept: application/json'
    //   --header 'X-Requested-By: ThoughtSpot' -d 'username=test&password=fhfh2323bbn&rememberme=false' …/session/login
    const a = await example(c.emu.url, 'POST', '/session/login', FORM_POST_HEADERS, 'username=analyst&password=analyst&rememberme=false');
    assertNoContent(a);
    const names = a.headers.getSetCookie().map((x) => x.split('=')[0]);
    assert.ok(names.includes('JSESSIONID') && names.includes('clientId'), names.join());
    const wrong = await example(c.emu.url, 'POST', '/session/login', FORM_POST_HEADERS, 'username=analyst&password=nope&rememberme=false');
    assertErrorBody(wrong, 401, /Unable to verify user/);
    // the client: a login that answers 204 with no body is a success
    await c.client('analyst', 'analyst').login();
  });
  test('POST session/logout: Content-Type application/json, no body → 204, and the session is over', async () => {
    const login = await example(c.emu.url, 'POST', '/session/login', FORM_POST_HEADERS, 'username=analyst&password=analyst&rememberme=false');
    const cookie = login.headers.getSetCookie().map((x) => x.split(';')[0]).join('; ');
    assertNoContent(await example(c.emu.url, 'POST', '/session/logout', JSON_POST_HEADERS, undefined, cookie));
    assertErrorBody(await example(c.emu.url, 'GET', '/metadata/listobjectheaders', GET_HEADERS, undefined, cookie), 401);
    const client = c.client('analyst', 'analyst');
    await client.login();
    await client.logout();
  });
});

describe('metadata (https://docs.thoughtspot.com/software/7.0/metadata-api, https://developers.thoughtspot.com/docs/metadata-api)', () => {
  test('GET metadata/listobjectheaders?type=PINBOARD_ANSWER_BOOK&subtypes=WORKSHEET&category=ALL&sort=CREATED&offset=-1 → array of object headers', async () => {
    // the example names subtypes that apply to LOGICAL_TABLE only; for a pinboard list they are ignored
    const a = await example(c.emu.url, 'GET', '/metadata/listobjectheaders?type=PINBOARD_ANSWER_BOOK&subtypes=WORKSHEET&category=ALL&sort=CREATED&offset=-1', GET_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    const headers = a.json as Record<string, unknown>[];
    assert.ok(Array.isArray(headers) && headers.length >= 2, 'the demo pinboards');
    for (const h of headers) assertObjectHeader(h);
    const viaClient = await c.client().listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', subtypes: ['WORKSHEET'], category: 'ALL', sort: 'CREATED', offset: -1 });
    assert.deepEqual(viaClient.map((h) => h.id), headers.map((h) => h.id));
  });
  test('GET metadata/listvizheaders?id=<pinboard> → array of visualization headers owned by the pinboard', async () => {
    const a = await example(c.emu.url, 'GET', `/metadata/listvizheaders?id=${pinboardId}`, GET_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    const vizzes = a.json as Record<string, unknown>[];
    assert.ok(vizzes.length >= 1);
    for (const v of vizzes) {
      assertVizHeader(v);
      assert.equal(v.owner, pinboardId);
    }
    assert.deepEqual((await c.client().listVizHeaders(pinboardId)).map((v) => v.id), vizzes.map((v) => v.id));
  });
  test('GET metadata/details?type=LOGICAL_TABLE&id=["<guid>"]&showhidden=false → {storables} with typed columns', async () => {
    const a = await example(c.emu.url, 'GET', `/metadata/details?type=LOGICAL_TABLE&id=%5B%22${flightsId}%22%5D&showhidden=false`, GET_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    const body = a.json as { storables: { header: { id: string }; columns: { header: { name: string }; dataType: string; type: string }[] }[] };
    assert.equal(body.storables.length, 1);
    assert.equal(body.storables[0]!.header.id, flightsId);
    for (const col of body.storables[0]!.columns) {
      assert.equal(typeof col.header.name, 'string');
      assert.equal(typeof col.dataType, 'string');
      assert.match(col.type, /^(ATTRIBUTE|MEASURE)$/);
    }
    const columns = await new ServiceCatalog(c.client()).columns(flightsId);
    assert.deepEqual(columns?.columns.map((x) => x.name), body.storables[0]!.columns.map((x) => x.header.name));
  });
});

describe('pinboard data (https://docs.thoughtspot.com/software/7.2/pinboarddata)', () => {
  test('POST pinboarddata?id=…&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT, Content-Type application/json, no body', async () => {
    const a = await example(c.emu.url, 'POST', `/pinboarddata?id=${pinboardId}&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT`, JSON_POST_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    const body = a.json as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(body).sort(), [...vizIds].sort(), 'keyed by visualization id');
    for (const v of Object.values(body)) {
      assert.equal(typeof v.name, 'string');
      assertSearchResult(v);
    }
    const viaClient = await c.client().pinboardData({ id: pinboardId });
    assert.deepEqual(Object.keys(viaClient).sort(), Object.keys(body).sort());
  });
  test('POST pinboarddata?id=…&vizid=["<viz>"]&… → only that visualization; vizid=[] → every visualization (as the Python client sends it)', async () => {
    const one = vizIds[0]!;
    const a = await example(c.emu.url, 'POST', `/pinboarddata?id=${pinboardId}&vizid=%5B%22${one}%22%5D&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT`, JSON_POST_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    assert.deepEqual(Object.keys(a.json as object), [one]);
    assert.deepEqual(Object.keys(await c.client().pinboardData({ id: pinboardId, vizIds: [one] })), [one]);
    // thoughtspot_rest_api_v1 TSRestApiV1.pinboarddata always sends vizid=json.dumps(vizids), [] meaning all
    const empty = await example(c.emu.url, 'POST', `/pinboarddata?id=${pinboardId}&vizid=%5B%5D&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT`, JSON_POST_HEADERS, undefined, c.adminCookie);
    assertJson(empty);
    assert.deepEqual(Object.keys(empty.json as object).sort(), [...vizIds].sort());
    assert.deepEqual(Object.keys(await c.client().pinboardData({ id: pinboardId, vizIds: [] })).sort(), [...vizIds].sort());
    assertErrorBody(await example(c.emu.url, 'POST', `/pinboarddata?id=${pinboardId}&vizid=%5B%22nope%22%5D`, JSON_POST_HEADERS, undefined, c.adminCookie), 400);
  });
});

describe('search data (https://docs.thoughtspot.com/software/7.1/search-data-api, https://developers.thoughtspot.com/docs/search-data-api)', () => {
  test('POST searchdata?query_string=…&data_source_guid=…&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT, Content-Type application/json, no body', async () => {
    const q = encodeURIComponent('[delay] [origin]');
    const a = await example(c.emu.url, 'POST', `/searchdata?query_string=${q}&data_source_guid=${flightsId}&batchsize=-1&pagenumber=-1&offset=-1&formattype=COMPACT`, JSON_POST_HEADERS, undefined, c.adminCookie);
    assertJson(a);
    const body = a.json as Record<string, unknown>;
    assertSearchResult(body);
    const viaClient = await c.client().searchData({ queryString: '[delay] [origin]', dataSourceGuid: flightsId });
    assert.deepEqual(viaClient.columnNames, body.columnNames);
    assert.equal(viaClient.totalRowCount, body.totalRowCount);
  });
  test('paging: pagenumber is 1-based, pagenumber=0 is a 400 naming it, and offset paging continues from the echoed offset', async () => {
    const q = encodeURIComponent('[origin]');
    const zero = await example(c.emu.url, 'POST', `/searchdata?query_string=${q}&data_source_guid=${flightsId}&batchsize=5&pagenumber=0`, JSON_POST_HEADERS, undefined, c.adminCookie);
    assertErrorBody(zero, 400, /pagenumber/);
    const client = c.client();
    const all = await client.searchData({ queryString: '[origin]', dataSourceGuid: flightsId });
    const page1 = await client.searchData({ queryString: '[origin]', dataSourceGuid: flightsId, batchSize: 5 });
    const page2 = await client.searchData({ queryString: '[origin]', dataSourceGuid: flightsId, batchSize: 5, offset: nextOffset(page1) });
    const byPage = await client.searchData({ queryString: '[origin]', dataSourceGuid: flightsId, batchSize: 5, pageNumber: 2 });
    assert.deepEqual(page2.data, all.data.slice(5, 10));
    assert.deepEqual(byPage.data, page2.data);
  });
});

describe('user (https://developers.thoughtspot.com/docs/user-api, https://docs.thoughtspot.com/software/7.0/user-api)', () => {
  test('GET user/list → array of principals', async () => {
    const a = await example(c.emu.url, 'GET', '/user/list', { Accept: 'application/json' }, undefined, c.adminCookie);
    assertJson(a);
    const principals = a.json as Record<string, unknown>[];
    for (const p of principals) {
      for (const k of ['name', 'displayName', 'principalTypeEnum', 'visibility']) assert.equal(typeof p[k], 'string', k);
      assert.ok(Array.isArray(p.groupNames));
      assert.match(String(p.principalTypeEnum), /^LOCAL_(USER|GROUP)$/);
    }
    const viaClient = (await c.client().listPrincipals()) as { name: string }[];
    assert.deepEqual(viaClient.map((p) => p.name), principals.map((p) => p.name));
  });
  test('POST user/sync as multipart/form-data: applyChanges, removeDeleted fields and principals as a JSON file part → 200 with the changes', async () => {
    // curl -X POST --header 'X-Requested-By : ThoughtSpot' --header 'Cookie : JSESSIONID=…' --header 'Accept: application/json'
    //   -F 'applyChanges=false' -F 'removeDeleted=false' -F 'principals=@principals.json;type=application/json' …/user/sync
    const principals = [
      { name: 'Customer Success', displayName: 'Customer Success', description: 'CS', principalTypeEnum: 'LOCAL_GROUP', groupNames: [], visibility: 'DEFAULT' },
      { name: 'Marketing', displayName: 'Marketing', description: 'Marketing Group', principalTypeEnum: 'LOCAL_GROUP', groupNames: [], visibility: 'DEFAULT' },
      { name: 'test1', displayName: 'test one', mail: 'test1@test.com', principalTypeEnum: 'LOCAL_USER', groupNames: ['Customer Success', 'Marketing'], visibility: 'DEFAULT' },
      { name: 'test2', displayName: 'test two', mail: 'test2@test.com', principalTypeEnum: 'LOCAL_USER', groupNames: ['Administrator'], visibility: 'DEFAULT' },
    ];
    const form = new FormData();
    form.append('applyChanges', 'false');
    form.append('removeDeleted', 'false');
    form.append('principals', new Blob([JSON.stringify(principals)], { type: 'application/json' }), 'principals.json');
    const a = await example(c.emu.url, 'POST', '/user/sync', { 'X-Requested-By': 'ThoughtSpot', Accept: 'application/json' }, form, c.adminCookie);
    assertJson(a);
    const body = a.json as Record<string, string[]>;
    assert.deepEqual(body.usersAdded, ['test1', 'test2']);
    assert.deepEqual(body.groupsAdded, ['Customer Success', 'Marketing']);
    // the client sends the same multipart request; applied, with a password for the new users
    const applied = (await c.client().syncPrincipals({ principals, applyChanges: true, removeDeleted: false, password: 'welcome-1' })) as Record<string, string[]>;
    assert.deepEqual(applied.usersAdded, ['test1', 'test2']);
    await c.client('test1', 'welcome-1').login();
  });
  test('POST user/updatepassword: form name, currentpassword, password → 200 {} (emulator/README.md: JSON, as the Python client parses it)', async () => {
    const setup = await c.client().syncPrincipals({ principals: [{ name: 'guest', principalTypeEnum: 'LOCAL_USER' }, { name: 'guest1', principalTypeEnum: 'LOCAL_USER' }], applyChanges: true, password: 'test' });
    assert.ok(setup);
    const a = await example(c.emu.url, 'POST', '/user/updatepassword', FORM_POST_HEADERS, 'name=guest&currentpassword=test&password=foobarfoobar', c.adminCookie);
    assertJson(a);
    assert.deepEqual(a.json, {});
    await c.client('guest', 'foobarfoobar').updatePassword({ name: 'guest', currentPassword: 'foobarfoobar', newPassword: 'test' });
    await c.client('guest', 'test').login();
  });
  test('POST user/transfer/ownership?fromUserName=…&toUserName=…&objectsID=[…] → 204, and only the named objects move', async () => {
    const before = (await c.client().listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' })).filter((h) => h.id !== pinboardId);
    const adminId = before[0]!.author;
    // the current page's example: objectsID as a URL-encoded JSON array of GUIDs
    const ids = encodeURIComponent(JSON.stringify([pinboardId]));
    const a = await example(c.emu.url, 'POST', `/user/transfer/ownership?fromUserName=tsadmin&toUserName=guest&objectsID=${ids}`, { 'Content-Type': 'application/json', Accept: 'application/json' }, undefined, c.adminCookie);
    assertNoContent(a);
    const after1 = await c.client().listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' });
    const moved = after1.find((h) => h.id === pinboardId)!;
    assert.notEqual(moved.author, adminId, 'the named pinboard moved');
    for (const h of before) assert.equal(after1.find((x) => x.id === h.id)?.author, adminId, `${h.name} did not move`);
    // the older pages' example: every object of guest goes to guest1
    assertNoContent(await example(c.emu.url, 'POST', '/user/transfer/ownership?fromUserName=guest&toUserName=guest1', JSON_POST_HEADERS, undefined, c.adminCookie));
    // objects cannot be transferred to or from the system user or the administrative user
    assertErrorBody(await example(c.emu.url, 'POST', '/user/transfer/ownership?fromUserName=guest1&toUserName=su', JSON_POST_HEADERS, undefined, c.adminCookie), 400, /toUserName/);
    assertErrorBody(await example(c.emu.url, 'POST', '/user/transfer/ownership?fromUserName=system&toUserName=guest', JSON_POST_HEADERS, undefined, c.adminCookie), 400, /fromUserName/);
    // an id the user does not own, a malformed list, and an empty one: 400 naming the parameter
    assertErrorBody(await example(c.emu.url, 'POST', `/user/transfer/ownership?fromUserName=guest&toUserName=tsadmin&objectsID=${ids}`, JSON_POST_HEADERS, undefined, c.adminCookie), 400, /objectsID/);
    assertErrorBody(await example(c.emu.url, 'POST', '/user/transfer/ownership?fromUserName=guest1&toUserName=tsadmin&objectid=%5B%22nope%22%5D', JSON_POST_HEADERS, undefined, c.adminCookie), 400, /objectid/);
    assertErrorBody(await example(c.emu.url, 'POST', '/user/transfer/ownership?fromUserName=guest1&toUserName=tsadmin&objectid=%5B%5D', JSON_POST_HEADERS, undefined, c.adminCookie), 400, /objectid/);
    // the client: back to tsadmin, only the named one
    await c.client().transferOwnership({ fromUserName: 'guest1', toUserName: 'tsadmin', objectIds: [pinboardId] });
    assert.equal((await c.client().listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' })).find((h) => h.id === pinboardId)?.author, adminId);
  });
});

describe('group (https://docs.thoughtspot.com/software/7.0/group-api, https://developers.thoughtspot.com/docs/group-api)', () => {
  test('POST group/addprivilege and group/removeprivilege: form privilege and groupNames → 200 {}', async () => {
    // the example names the system group ALL_GROUP, which the demo data does not have: make it first
    await c.client().syncPrincipals({ principals: [{ name: 'ALL_GROUP', principalTypeEnum: 'LOCAL_GROUP' }], applyChanges: true });
    const privileges = async () => ((await c.client().listPrincipals()) as { name: string; privileges: string[] }[]).find((p) => p.name === 'ALL_GROUP')!.privileges;
    assertJson(await example(c.emu.url, 'POST', '/group/addprivilege', FORM_POST_HEADERS, 'privilege=DATADOWNLOADING&groupNames=ALL_GROUP', c.adminCookie));
    assert.deepEqual(await privileges(), ['DATADOWNLOADING']);
    assertJson(await example(c.emu.url, 'POST', '/group/removeprivilege', FORM_POST_HEADERS, 'privilege=DATADOWNLOADING&groupNames=ALL_GROUP', c.adminCookie));
    assert.deepEqual(await privileges(), []);
    assertErrorBody(await example(c.emu.url, 'POST', '/group/addprivilege', FORM_POST_HEADERS, 'privilege=DATADOWNLOADING&groupNames=%5B%5D', c.adminCookie), 400, /groupNames/);
    await c.client().addGroupPrivilege({ privilege: 'USERDATAUPLOADING', groupNames: ['ALL_GROUP'] });
    assert.deepEqual(await privileges(), ['USERDATAUPLOADING']);
    await c.client().removeGroupPrivilege({ privilege: 'USERDATAUPLOADING', groupNames: ['ALL_GROUP'] });
    assert.deepEqual(await privileges(), []);
  });
});

describe('materialization (https://docs.thoughtspot.com/software/7.2/materialization-api)', () => {
  test('POST materialization/refreshview/{id} with Content-Type */* and no body → 200 {} (the page: 204; emulator/README.md)', async () => {
    // curl -X POST --header 'Content-Type: */*' --header 'Accept: application/json' --header 'X-Requested-By: ThoughtSpot' …/materialization/refreshview/<id>
    const a = await example(c.emu.url, 'POST', `/materialization/refreshview/${flightsId}`, { 'Content-Type': '*/*', Accept: 'application/json', 'X-Requested-By': 'ThoughtSpot' }, undefined, c.adminCookie);
    assertJson(a);
    assert.deepEqual(a.json, {});
    assertErrorBody(await example(c.emu.url, 'POST', '/materialization/refreshview/not-a-guid', { 'Content-Type': '*/*', Accept: 'application/json', 'X-Requested-By': 'ThoughtSpot' }, undefined, c.adminCookie), 400, /id/);
    assert.deepEqual(await c.client().refreshMaterializedView(flightsId), {});
  });
});

describe("errors in the service's shape everywhere (https://developers.thoughtspot.com/docs/search-data-api response codes; docs/service-notes.md §1.6)", () => {
  test('an unknown route outside the prefixes, an unknown operation, a body that is not JSON and an unsupported media type', async () => {
    const outside = await fetch(`${c.emu.url}/no/such/route`);
    assert.equal(outside.status, 404);
    assertErrorBody({ status: 404, contentType: outside.headers.get('content-type') ?? '', text: '', json: await outside.json(), headers: outside.headers }, 404, /No such operation/);
    assertErrorBody(await example(c.emu.url, 'GET', '/no/such/operation', GET_HEADERS, undefined, c.adminCookie), 404);
    assertErrorBody(await example(c.emu.url, 'POST', '/user/sync', JSON_POST_HEADERS, '{"principals": [', c.adminCookie), 400);
    assertErrorBody(await example(c.emu.url, 'POST', '/user/sync', { 'Content-Type': 'text/xml', 'X-Requested-By': 'ThoughtSpot' }, '<principals/>', c.adminCookie), 415);
    const loadPath = await fetch(`${c.emu.url}/ts_dataservice/v1/public/no-such-thing`);
    assert.equal(loadPath.status, 404);
    assert.match(loadPath.headers.get('content-type') ?? '', /^text\/plain/, 'the load API answers errors in plain text');
  });
  test('every route names a malformed parameter: a bad boolean, a bad integer, an unknown format', async () => {
    assertErrorBody(await example(c.emu.url, 'GET', '/metadata/listobjectheaders?sortascending=maybe', GET_HEADERS, undefined, c.adminCookie), 400, /sortascending/);
    assertErrorBody(await example(c.emu.url, 'GET', `/metadata/details?type=LOGICAL_TABLE&id=%5B%22${flightsId}%22%5D&showhidden=perhaps`, GET_HEADERS, undefined, c.adminCookie), 400, /showhidden/);
    assertErrorBody(await example(c.emu.url, 'POST', `/searchdata?query_string=%5Borigin%5D&data_source_guid=${flightsId}&batchsize=ten`, JSON_POST_HEADERS, undefined, c.adminCookie), 400, /batchsize/);
    assertErrorBody(await example(c.emu.url, 'POST', `/pinboarddata?id=${pinboardId}&formattype=XML`, JSON_POST_HEADERS, undefined, c.adminCookie), 400, /formattype/);
    assertErrorBody(await example(c.emu.url, 'POST', '/session/login', FORM_POST_HEADERS, 'username=tsadmin&password=admin&rememberme=sometimes'), 400, /rememberme/);
  });
});
