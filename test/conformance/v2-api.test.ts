// Conformance of the REST API v2 subset (docs/service-interface.md §9): each example request of the v2
// documentation, sent as the page writes it (headers, JSON body), to the emulator; then the same
// operation through TSQ's client. Pages: thoughtspot/developer-docs `authentication.adoc` (tokens,
// session, revoke), `data-v2-api.adoc` (searchdata, metadata/search for a data source's GUID); the
// reference https://developers.thoughtspot.com/docs/rest-apiv2-reference.
//
// Values the examples leave to the reader ({ThoughtSpot-Host}, {AUTH_TOKEN}, users, GUIDs, the query)
// are the demo's. Three printed bodies are not JSON: the trusted-authentication and searchdata examples
// end with a trailing comma, and the revoke example leaves "tsUserA, unterminated; they are sent with
// that one defect fixed, and the test says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { AnalyticsServiceClient } from '../../common/src/api';

const V2 = '/api/rest/2.0';
const SECRET_KEY = '69fb6d98-1696-42c0-9841-22b078c04060';

let emu: RunningEmulator;
let dataDir: string;
let adminToken: string;

interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const r = await fetch(emu.url + V2 + path, { method, headers, body });
  const text = await r.text();
  return { status: r.status, headers: r.headers, json: text ? JSON.parse(text) : undefined };
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-conf-v2-'));
  emu = await startEmulator({ port: 0, dataDir, demo: true, publicApi: 'v2', trustedAuthSecret: SECRET_KEY });
  const r = await send('POST', '/auth/token/full', { 'Content-Type': 'application/json' }, JSON.stringify({ username: 'tsadmin', password: 'admin' }));
  adminToken = r.json.token;
});
after(async () => {
  await emu?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('authentication.adoc', () => {
  test('Basic authentication: token/full with username, password, org_id, validity_time_in_sec → 200 with the token and its scope', async () => {
    const a = await send('POST', '/auth/token/full', { Accept: 'application/json', 'Content-Type': 'application/json' }, `{
  "username": "tsadmin",
  "password": "admin",
  "org_id": 1,
  "validity_time_in_sec": 86400
}`);
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.match(a.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(typeof a.json.token, 'string');
    assert.equal(a.json.expiration_time_in_millis - a.json.creation_time_in_millis, 86_400_000);
    assert.equal(a.json.scope.access_type, 'FULL');
    assert.equal(a.json.scope.metadata_id, null);
    assert.equal(a.json.valid_for_username, 'tsadmin');
    assert.equal(typeof a.json.valid_for_user_id, 'string');
  });

  test('Trusted authentication: token/full with username and secret_key (trailing comma removed) → 200, 300 s by default', async () => {
    const a = await send('POST', '/auth/token/full', { Authorization: `Bearer ${adminToken}`, Accept: 'application/json', 'Content-Type': 'application/json' }, `{
  "username": "analyst",
  "object_id": "061457a2-27bc-43a9-9754-0cd873691bf0",
  "secret_key": "${SECRET_KEY}"
}`);
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.equal(a.json.valid_for_username, 'analyst');
    assert.equal(a.json.expiration_time_in_millis - a.json.creation_time_in_millis, 300_000);
  });

  test('Cookie-based authentication: session/login → 204 with JSESSIONID and clientId; metadata/search with the Cookie header → LIVEBOARD objects', async () => {
    const login = await send('POST', '/auth/session/login', { 'Content-Type': 'application/json' }, `{
  "username": "tsadmin",
  "password": "admin",
  "remember_me": true
}`);
    assert.equal(login.status, 204);
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
    assert.ok(cookies.some((c) => c.startsWith('JSESSIONID=')) && cookies.some((c) => c.startsWith('clientId=')));
    const search = await send('POST', '/metadata/search', { Accept: 'application/json', 'Content-Type': 'application/json', Cookie: cookies.join('; ') }, `{
    "metadata": [
     {
      "type": "LIVEBOARD"
      }
    ]
  }`);
    assert.equal(search.status, 200, JSON.stringify(search.json));
    assert.ok(search.json.length > 0);
    for (const o of search.json) {
      assert.equal(o.metadata_type, 'LIVEBOARD');
      assert.equal(typeof o.metadata_id, 'string');
      assert.equal(typeof o.metadata_name, 'string');
      assert.equal(o.metadata_header.id, o.metadata_id);
    }
    const logout = await send('POST', '/auth/session/logout', { 'Content-Type': 'application/json', 'Accept-Language': 'application/json', Cookie: cookies.join('; ') });
    assert.equal(logout.status, 204);
    const after = await send('POST', '/metadata/search', { 'Content-Type': 'application/json', Cookie: cookies.join('; ') }, '{}');
    assert.equal(after.status, 401);
  });

  test('View session information: session/user with the bearer token → 200 with the example\'s members', async () => {
    const a = await send('GET', '/auth/session/user', { Authorization: `Bearer ${adminToken}`, Accept: 'application/json' });
    assert.equal(a.status, 200);
    for (const k of ['id', 'name', 'display_name', 'visibility', 'can_change_password', 'creation_time_in_millis', 'current_org', 'deleted', 'deprecated', 'account_type', 'account_status', 'hidden', 'modification_time_in_millis', 'orgs', 'privileges', 'super_user', 'system_user', 'user_groups', 'user_inherited_groups']) {
      assert.ok(k in a.json, `missing ${k}`);
    }
    assert.equal(a.json.name, 'tsadmin');
  });

  test('Revoke a token: user_identifier and token (the unterminated string closed) → 204; the token is refused after', async () => {
    const user = await send('POST', '/auth/token/full', { 'Content-Type': 'application/json' }, JSON.stringify({ username: 'analyst', password: 'analyst' }));
    const accessTokenUser = user.json.token as string;
    const a = await send('POST', '/auth/token/revoke', { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, `{
  "user_identifier": "analyst",
  "token": "${accessTokenUser}"
}`);
    assert.equal(a.status, 204);
    assert.equal((await send('GET', '/auth/session/user', { Authorization: `Bearer ${accessTokenUser}` })).status, 401);
    assert.equal((await send('GET', '/auth/session/user', { Authorization: `Bearer ${adminToken}` })).status, 200, 'the caller\'s own token stays');
  });
});

describe('data-v2-api.adoc', () => {
  let worksheetId: string;
  test('Get data object GUID via API: metadata/search by identifier and type LOGICAL_TABLE', async () => {
    const a = await send('POST', '/metadata/search', { Authorization: `Bearer ${adminToken}`, Accept: 'application/json', 'Content-Type': 'application/json' }, ` {
 "metadata": [
    {
      "identifier": "Flights Worksheet",
      "type": "LOGICAL_TABLE"
    }
  ]
}`);
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.equal(a.json.length, 1);
    assert.equal(a.json[0].metadata_name, 'Flights Worksheet');
    worksheetId = a.json[0].metadata_id;
  });

  test('Search data API: query_string and logical_table_identifier (trailing comma removed) → contents with the default page of 10 records', async () => {
    const a = await send('POST', '/searchdata', { Authorization: `Bearer ${adminToken}`, Accept: 'application/json', 'Content-Type': 'application/json' }, `{
  "query_string": "[origin][destination]",
  "logical_table_identifier": "${worksheetId}"
}`);
    assert.equal(a.status, 200, JSON.stringify(a.json));
    const c = a.json.contents[0];
    assert.deepEqual(Object.keys(c).sort(), ['available_data_row_count', 'column_names', 'data_rows', 'record_offset', 'record_size', 'returned_data_row_count', 'sampling_ratio']);
    assert.equal(c.record_offset, 0);
    assert.equal(c.record_size, 10);
    assert.equal(c.data_rows.length, 10);
    assert.ok(c.available_data_row_count > 10);
    // the pagination settings the page names, set explicitly, and FULL
    const full = await send('POST', '/searchdata', { Authorization: `Bearer ${adminToken}`, 'Accept-Language': 'en-US', 'Content-Type': 'application/json' }, JSON.stringify({ query_string: '[origin][destination]', logical_table_identifier: worksheetId, data_format: 'FULL', record_offset: 0, record_size: -1 }));
    assert.equal(full.json.contents[0].data_rows.length, c.available_data_row_count);
    assert.equal(typeof full.json.contents[0].data_rows[0].Origin, 'string');
  });

  test('Fetch Liveboard API: metadata_identifier, data_format, visualization_identifiers → each visualization\'s data', async () => {
    const boards = await send('POST', '/metadata/search', { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, JSON.stringify({ metadata: [{ type: 'LIVEBOARD', identifier: 'Flight Operations' }], include_visualization_headers: true }));
    const board = boards.json[0];
    const vizIds = (board.visualization_headers as { id: string }[]).map((v) => v.id);
    const a = await send('POST', '/metadata/liveboard/data', { Authorization: `Bearer ${adminToken}`, Accept: 'application/json', 'Content-Type': 'application/json' }, `{
  "metadata_identifier": "${board.metadata_id}",
  "data_format": "COMPACT",
  "visualization_identifiers": [
    "${vizIds[0]}",
    "${vizIds[1]}"
  ]
}`);
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.equal(a.json.metadata_id, board.metadata_id);
    assert.deepEqual(a.json.contents.map((c: { visualization_id: string }) => c.visualization_id), vizIds.slice(0, 2));
    for (const c of a.json.contents) {
      assert.equal(typeof c.visualization_name, 'string');
      assert.ok(Array.isArray(c.column_names) && Array.isArray(c.data_rows));
      assert.ok(c.data_rows.length <= 10);
    }
  });

  test('the same through TSQ\'s client (apiVersion auto finds v2 here)', async () => {
    const client = new AnalyticsServiceClient({ url: emu.url, username: 'tsadmin', password: 'admin', apiVersion: 'auto' });
    try {
      assert.equal(await client.apiGeneration(), 'v2');
      const [ws] = await client.listObjectHeaders({ pattern: 'Flights Worksheet' });
      assert.equal(ws!.id, worksheetId);
      const r = await client.searchData({ queryString: '[origin][destination]', dataSourceGuid: worksheetId, batchSize: 10 });
      assert.equal(r.data.length, 10);
      assert.deepEqual(r.columnNames, ['Origin', 'Destination']);
    } finally {
      await client.close();
    }
  });
});
