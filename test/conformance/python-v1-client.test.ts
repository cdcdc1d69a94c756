// The calls of ThoughtSpot's Python REST API v1 client that the emulator once failed, replayed as the client
// sends them: thoughtspot/thoughtspot_rest_api_v1_python `src/thoughtspot_rest_api_v1/tsrestapiv1.py`
// (`TSRestApiV1`, package thoughtspot_rest_api_v1 1.8.7). Its session sends `X-Requested-By: ThoughtSpot` and
// `Accept: application/json` on every call; `data=` is a form body, `params=` the query string, `files=` a
// multipart body whose string values become file parts named and filed by their key. Each call ends with
// `raise_for_status()` and, for these, `response.json()`, so each answer must be 2xx with a JSON body.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { example, GET_HEADERS, startConformance, type Answer, type Conformance } from './support';

let c: Conformance;
let cookie: string;
let pinboardId: string;
let flightsId: string;

/** The headers of the client's session. */
const SESSION = { 'X-Requested-By': 'ThoughtSpot', Accept: 'application/json' };

/** `raise_for_status()` then `response.json()`. */
function json(a: Answer, call: string): unknown {
  assert.ok(a.status >= 200 && a.status < 300, `${call}: ${a.status} ${a.text}`);
  assert.notEqual(a.json, undefined, `${call}: the body is JSON (${JSON.stringify(a.text)})`);
  return a.json;
}

/** A requests `files=` dict of strings: each value a file part named and filed by its key, no part Content-Type. */
function files(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, new Blob([v]), k);
  return form;
}

before(async () => {
  c = await startConformance();
  // session_login: data={'username', 'password', 'rememberme': 'true'}
  const login = await example(c.emu.url, 'POST', '/session/login', { ...SESSION, 'Content-Type': 'application/x-www-form-urlencoded' }, 'username=tsadmin&password=admin&rememberme=true');
  assert.ok(login.status === 200 || login.status === 204, login.text);
  cookie = login.headers.getSetCookie().map((x) => x.split(';')[0]).join('; ');
  const boards = await example(c.emu.url, 'GET', '/metadata/listobjectheaders?type=PINBOARD_ANSWER_BOOK', GET_HEADERS, undefined, cookie);
  pinboardId = (boards.json as { id: string; name: string }[]).find((b) => b.name === 'Flight Operations')!.id;
  const tables = await example(c.emu.url, 'GET', '/metadata/listobjectheaders?type=LOGICAL_TABLE', GET_HEADERS, undefined, cookie);
  flightsId = (tables.json as { id: string; name: string }[]).find((t) => t.name === 'flights')!.id;
});
after(async () => c?.stop());

test("metadata_details of a pinboard, then get_sheets_from_metadata_details: storables[0]['reportContent']['sheets']", async () => {
  const ids = encodeURIComponent(JSON.stringify([pinboardId]));
  const details = json(await example(c.emu.url, 'GET', `/metadata/details?type=PINBOARD_ANSWER_BOOK&id=${ids}&showhidden=false&dropquestiondetails=false`, SESSION, undefined, cookie), 'metadata_details') as {
    storables: { reportContent: { sheets: { header: { id: string }; sheetContent: { visualizations: { header: { id: string } }[] } }[] } }[];
  };
  const sheets = details.storables[0]!.reportContent.sheets;
  assert.ok(Array.isArray(sheets) && sheets.length === 1);
  const vizzes = await example(c.emu.url, 'GET', `/metadata/listvizheaders?id=${pinboardId}`, GET_HEADERS, undefined, cookie);
  assert.deepEqual(sheets[0]!.sheetContent.visualizations.map((v) => v.header.id).sort(), (vizzes.json as { id: string }[]).map((v) => v.id).sort());
});

test("pinboarddata with vizids=[]: params id, vizid='[]', batchsize/pagenumber/offset '-1', formattype COMPACT → every visualization", async () => {
  const q = new URLSearchParams({ id: pinboardId, vizid: '[]', batchsize: '-1', pagenumber: '-1', offset: '-1', formattype: 'COMPACT' });
  const data = json(await example(c.emu.url, 'POST', `/pinboarddata?${q.toString()}`, SESSION, undefined, cookie), 'pinboarddata') as Record<string, { columnNames: string[] }>;
  const vizzes = await example(c.emu.url, 'GET', `/metadata/listvizheaders?id=${pinboardId}`, GET_HEADERS, undefined, cookie);
  assert.deepEqual(Object.keys(data).sort(), (vizzes.json as { id: string }[]).map((v) => v.id).sort());
  for (const v of Object.values(data)) assert.ok(Array.isArray(v.columnNames));
});

test("user_updatepassword: data={'name', 'currentpassword', 'newpassword'} → JSON, and the new password logs in", async () => {
  const call = (current: string, next: string) =>
    example(c.emu.url, 'POST', '/user/updatepassword', { ...SESSION, 'Content-Type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ name: 'analyst', currentpassword: current, newpassword: next }).toString(), cookie);
  json(await call('analyst', 'a-new-secret'), 'user_updatepassword');
  const login = await example(c.emu.url, 'POST', '/session/login', { ...SESSION, 'Content-Type': 'application/x-www-form-urlencoded' }, 'username=analyst&password=a-new-secret&rememberme=true');
  assert.ok(login.status < 300, 'the new password logs in');
  json(await call('a-new-secret', 'analyst'), 'user_updatepassword (back)');
});

test("group_addprivilege and group_removeprivilege: files={'privilege', 'groupNames': json.dumps([...])} → JSON", async () => {
  const privileges = async () => ((await c.client().listPrincipals()) as { name: string; privileges: string[] }[]).find((p) => p.name === 'Analysts')!.privileges;
  const before = await privileges();
  const privilege = ['USERDATAUPLOADING', 'DATADOWNLOADING', 'SHAREWITHALL'].find((p) => !before.includes(p))!;
  json(await example(c.emu.url, 'POST', '/group/addprivilege', SESSION, files({ privilege, groupNames: JSON.stringify(['Analysts']) }), cookie), 'group_addprivilege');
  assert.ok((await privileges()).includes(privilege));
  json(await example(c.emu.url, 'POST', '/group/removeprivilege', SESSION, files({ privilege, groupNames: JSON.stringify(['Analysts']) }), cookie), 'group_removeprivilege');
  assert.deepEqual(await privileges(), before);
});

test('materialization_refreshview: an empty POST → JSON', async () => {
  json(await example(c.emu.url, 'POST', `/materialization/refreshview/${flightsId}`, SESSION, undefined, cookie), 'materialization_refreshview');
});
