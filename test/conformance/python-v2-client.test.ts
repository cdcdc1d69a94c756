// The calls of ThoughtSpot's Python REST API v2 client for users, groups, tags, columns and
// administration, replayed as the client sends them against a v2-only emulator:
// thoughtspot/thoughtspot_rest_api_v1_python `src/thoughtspot_rest_api_v1/tsrestapiv2.py` (`TSRestApiV2`,
// package thoughtspot_rest_api_v1 1.8.7) and its `examples_v2/objects_info_metadata.py`. Its session sends
// `X-Requested-By: ThoughtSpot`, `Accept: application/json` and `Accept-Language: en-US` on every call, a
// bearer token once set; `post_request` sends `json=request`, calls `raise_for_status()`, then
// `response.json()` (a 204 is taken as True). The OpenAPI document gives no request example for these
// operations, so the client's calls are the documented ones replayed here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';

const V2 = '/api/rest/2.0';
const SESSION = { 'X-Requested-By': 'ThoughtSpot', Accept: 'application/json', 'Accept-Language': 'en-US' };

let emu: RunningEmulator;
let dataDir: string;
let bearer: Record<string, string>;

/** `post_request(endpoint, request)`: 2xx, then the JSON body (or true for an empty one). */
async function post(endpoint: string, request?: unknown, headers: Record<string, string> = bearer): Promise<any> {
  const r = await fetch(`${emu.url}${V2}/${endpoint}`, { method: 'POST', headers: { ...SESSION, ...headers, ...(request === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: request === undefined ? undefined : JSON.stringify(request) });
  const text = await r.text();
  assert.ok(r.status >= 200 && r.status < 300, `${endpoint}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : true;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-conf-pyv2-'));
  emu = await startEmulator({ port: 0, dataDir, demo: true, publicApi: 'v2' });
  const t = await post('auth/token/full', { username: 'tsadmin', password: 'admin', validity_time_in_sec: 3000 }, {});
  bearer = { Authorization: `Bearer ${t.token}` };
});
after(async () => {
  await emu?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("auth_session_login(username, password): json {'username', 'password', 'remember_me': 'true'} → 204", async () => {
  const r = await fetch(`${emu.url}${V2}/auth/session/login`, { method: 'POST', headers: { ...SESSION, 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'analyst', password: 'analyst', remember_me: 'true' }) });
  assert.equal(r.status, 204, await r.text());
  assert.ok(r.headers.getSetCookie().some((c) => c.startsWith('JSESSIONID=')));
});

test('users_search, groups_search, tags_search, metadata_search for USER, USER_GROUP, TAG and LOGICAL_COLUMN', async () => {
  const users = (await post('users/search', { record_offset: 0, record_size: -1 })) as { name: string; id: string }[];
  assert.ok(users.some((u) => u.name === 'analyst'));
  const groups = (await post('groups/search', {})) as { name: string }[];
  assert.ok(groups.some((g) => g.name === 'Analysts'));
  assert.ok(Array.isArray(await post('tags/search', {})));
  for (const type of ['USER', 'USER_GROUP', 'TAG', 'LOGICAL_COLUMN']) {
    const r = (await post('metadata/search', { metadata: [{ type }], record_offset: 0, record_size: 100000 })) as { metadata_type: string }[];
    assert.ok(r.every((e) => e.metadata_type === type), type);
  }
});

test("objects_info_metadata.py: metadata {'type': 'LOGICAL_TABLE'}, include_dependent_objects → t['dependent_objects'][guid] for every table", async () => {
  const tables = (await post('metadata/search', { metadata: { type: 'LOGICAL_TABLE' }, include_dependent_objects: true, record_offset: 0, record_size: 100000 })) as { metadata_id: string; dependent_objects: Record<string, Record<string, unknown[]>> }[];
  assert.ok(tables.length > 0);
  for (const t of tables) assert.equal(typeof t.dependent_objects[t.metadata_id], 'object');
  assert.ok(tables.some((t) => Object.keys(t.dependent_objects[t.metadata_id]!).length > 0), 'the demo has dependents');
  for (const field_name of ['DISPLAY_NAME', 'AUTHOR', 'VIEWS', 'FAVORITES', 'LAST_ACCESSED']) await post('metadata/search', { metadata: [{ type: 'LIVEBOARD' }], sort_options: { field_name, order: 'DESC' } });
});

test('groups_import: groups [{group_identifier, display_name, privileges}], dry_run false → groups_added', async () => {
  const r = await post('groups/import', { groups: [{ group_identifier: 'PyGroup', display_name: 'Py Group', privileges: ['AUTHORING'] }], dry_run: false });
  assert.deepEqual(r.groups_added.map((g: { name: string }) => g.name), ['PyGroup']);
  assert.deepEqual(((await post('groups/search', { group_identifier: 'PyGroup' })) as { privileges: string[] }[])[0]!.privileges, ['AUTHORING']);
});

test('users_import, groups_update, users_change_password, security_metadata_assign', async () => {
  const imported = await post('users/import', { users: [{ user_identifier: 'pyuser', display_name: 'Py User', group_identifiers: ['Analysts'] }], default_password: 'py-pass-1', dry_run: false });
  assert.deepEqual(imported.users_added.map((u: { name: string }) => u.name), ['pyuser']);
  assert.equal(await post('groups/Analysts/update', { privileges: ['DATADOWNLOADING'], operation: 'ADD' }), true);
  const analysts = ((await post('groups/search', { group_identifier: 'Analysts' })) as { privileges: string[] }[])[0]!;
  assert.ok(analysts.privileges.includes('DATADOWNLOADING'));
  assert.equal(await post('users/change-password', { user_identifier: 'pyuser', current_password: 'py-pass-1', new_password: 'py-pass-2' }), true);
  await post('auth/token/full', { username: 'pyuser', password: 'py-pass-2' }, {});
  const boards = (await post('metadata/search', { metadata: [{ type: 'LIVEBOARD' }] })) as { metadata_id: string }[];
  assert.equal(await post('security/metadata/assign', { metadata: [{ identifier: boards[0]!.metadata_id, type: 'LIVEBOARD' }], user_identifier: 'pyuser' }), true);
  const mine = (await post('metadata/search', { metadata: [{ type: 'LIVEBOARD' }], created_by_user_identifiers: ['pyuser'] })) as { metadata_id: string }[];
  assert.deepEqual(mine.map((m) => m.metadata_id), [boards[0]!.metadata_id]);
});
