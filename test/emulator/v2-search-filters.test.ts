// REST API v2 users/search and groups/search honour every documented request filter (OpenAPI
// SearchUsersRequest, SearchUserGroupsRequest of thoughtspot/rest-api-sdk): privileges, visibility,
// account type and status, Orgs and roles of users; include_users, include_sub_groups, type, visibility
// and sub-groups of groups; and every id is typed as the document types it (a group's orgs[].id a string).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let admin: string;
let analyst: string;

async function v2(path: string, body: unknown, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function names(path: string, body: Record<string, unknown>, token = admin): Promise<string[]> {
  const r = await v2(path, { record_size: -1, ...body }, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { name: string }[]).map((x) => x.name).sort();
}

async function tokenOf(username: string, password: string): Promise<string> {
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return ((await r.json()) as { token: string }).token;
}

before(async () => {
  core = await startCore();
  admin = await tokenOf('tsadmin', 'admin');
  analyst = await tokenOf('analyst', 'analyst');
});
after(async () => core?.stop());

describe('users/search filters', () => {
  test('privileges: only users holding each listed privilege (through their groups)', async () => {
    assert.deepEqual(await names('/users/search', { privileges: ['ADMINISTRATION'] }), ['tsadmin']);
    assert.deepEqual(await names('/users/search', { privileges: ['AUTHORING'] }), ['analyst', 'tsadmin'], 'an administrator holds every privilege');
    assert.deepEqual(await names('/users/search', { privileges: ['AUTHORING', 'DATAMANAGEMENT'] }), ['tsadmin']);
    // another user's privileges are an administrator's to see: a non-administrator's filter finds itself only
    assert.deepEqual(await names('/users/search', { privileges: ['AUTHORING'] }, analyst), ['analyst']);
  });

  test('visibility, account_type, account_status, org_identifiers, role_identifiers', async () => {
    const all = await names('/users/search', {});
    assert.deepEqual(await names('/users/search', { visibility: 'SHARABLE' }), all);
    assert.deepEqual(await names('/users/search', { visibility: 'NON_SHARABLE' }), []);
    assert.deepEqual(await names('/users/search', { account_type: 'LOCAL_USER' }), all);
    assert.deepEqual(await names('/users/search', { account_type: 'SAML_USER' }), []);
    assert.deepEqual(await names('/users/search', { account_status: 'ACTIVE' }), all);
    assert.deepEqual(await names('/users/search', { account_status: 'LOCKED' }), []);
    assert.deepEqual(await names('/users/search', { org_identifiers: ['Primary'] }), all);
    assert.deepEqual(await names('/users/search', { org_identifiers: ['0'] }), all);
    assert.deepEqual(await names('/users/search', { org_identifiers: ['Elsewhere'] }), []);
    assert.deepEqual(await names('/users/search', { role_identifiers: ['some-role'] }), [], 'the emulator has no roles');
    const bad = await v2('/users/search', { account_status: 'ASLEEP' }, admin);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message.debug, /account_status/);
  });
});

describe('groups/search filters', () => {
  test('include_users false leaves the members out; include_sub_groups false the sub-groups', async () => {
    const full = await v2('/groups/search', { group_identifier: 'Analysts' }, admin);
    assert.ok(full.body[0].users.some((u: { name: string }) => u.name === 'analyst'));
    assert.ok(Array.isArray(full.body[0].sub_groups));
    const lean = await v2('/groups/search', { group_identifier: 'Analysts', include_users: false, include_sub_groups: false }, admin);
    assert.equal(lean.status, 200, JSON.stringify(lean.body));
    assert.ok(!('users' in lean.body[0]), JSON.stringify(lean.body[0]));
    assert.ok(!('sub_groups' in lean.body[0]));
  });

  test('type, visibility and sub_group_identifiers', async () => {
    const all = await names('/groups/search', {});
    assert.deepEqual(await names('/groups/search', { type: 'LOCAL_GROUP' }), all);
    assert.deepEqual(await names('/groups/search', { type: 'LDAP_GROUP' }), []);
    assert.deepEqual(await names('/groups/search', { visibility: 'NON_SHARABLE' }), []);
    const upd = await v2('/groups/Data%20Managers/update', { visibility: 'NON_SHARABLE', sub_group_identifiers: ['Analysts'], operation: 'ADD' }, admin);
    assert.equal(upd.status, 204, JSON.stringify(upd.body));
    assert.deepEqual(await names('/groups/search', { visibility: 'NON_SHARABLE' }), ['Data Managers']);
    assert.deepEqual(await names('/groups/search', { sub_group_identifiers: ['Analysts'] }), ['Data Managers']);
    assert.deepEqual(await names('/groups/search', { sub_group_identifiers: ['Administrator'] }), []);
    assert.equal((await v2('/groups/search', { type: 'CLUB' }, admin)).status, 400);
  });

  test("a group's orgs[].id is a string (UserGroup), a user's an integer (Org)", async () => {
    const g = await v2('/groups/search', { group_identifier: 'Analysts' }, admin);
    assert.equal(typeof g.body[0].orgs[0].id, 'string');
    const u = await v2('/users/search', { user_identifier: 'analyst' }, admin);
    assert.equal(typeof u.body[0].orgs[0].id, 'number');
  });
});
