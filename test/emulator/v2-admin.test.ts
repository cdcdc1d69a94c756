// REST API v2's users, groups, tags, columns and administration on the emulator (emulator/src/v2/admin.ts
// and metadata/search), over the same data as v1: a change through one generation is seen through the
// other. Then the client (common/src/api) on a v2-only emulator does every administration feature.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, PREFIX, type Core } from './core-support';
import { AnalyticsServiceClient, OperationUnavailableError } from '../../common/src/api';

const V2 = '/api/rest/2.0';

async function v2(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${url}${V2}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

let core: Core;
let admin: string;

async function token(username: string, password: string): Promise<string> {
  const r = await v2(core.emu.url, '/auth/token/full', { username, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.token as string;
}

async function v1List(): Promise<{ name: string; privileges: string[]; groupNames: string[] }[]> {
  const cookie = await core.login('tsadmin', 'admin');
  return (await core.call('GET', '/user/list', {}, cookie)).body as { name: string; privileges: string[]; groupNames: string[] }[];
}

before(async () => {
  core = await startCore();
  admin = await token('tsadmin', 'admin');
});
after(async () => core?.stop());

describe('searches', () => {
  test('users/search, groups/search and tags/search answer the OpenAPI shapes over v1 user/list data', async () => {
    const users = await v2(core.emu.url, '/users/search', { record_size: -1 }, admin);
    assert.equal(users.status, 200, JSON.stringify(users.body));
    const analyst = users.body.find((u: { name: string }) => u.name === 'analyst');
    for (const k of ['id', 'name', 'display_name', 'visibility', 'privileges', 'user_groups', 'account_type']) assert.ok(k in analyst, k);
    const groups = await v2(core.emu.url, '/groups/search', { name_pattern: 'Analy%' }, admin);
    assert.deepEqual(groups.body.map((g: { name: string }) => g.name), ['Analysts']);
    for (const k of ['id', 'name', 'display_name', 'visibility', 'privileges', 'users', 'type']) assert.ok(k in groups.body[0], k);
    const v1names = (await v1List()).map((p) => p.name).sort();
    const v2names = [...users.body, ...(await v2(core.emu.url, '/groups/search', { record_size: -1 }, admin)).body].map((p: { name: string }) => p.name).sort();
    assert.deepEqual(v2names, v1names, 'the same principals on both generations');
    const tags = await v2(core.emu.url, '/tags/search', {}, admin);
    assert.equal(tags.status, 200);
    assert.ok(Array.isArray(tags.body) && tags.body.every((t: { id: string; name: string }) => t.id && t.name));
    // default record_size is 10; a page of 1
    assert.equal((await v2(core.emu.url, '/users/search', { record_size: 1 }, admin)).body.length, 1);
  });

  test('users/search and groups/search answer any signed-in user, and only an administrator sees every member of other users (OpenAPI searchUsers: "Available to all users")', async () => {
    const analyst = await token('analyst', 'analyst');
    // v1 user/list is ADMINISTRATION only
    const v1 = await core.call('GET', '/user/list', {}, await core.login('analyst', 'analyst'));
    assert.equal(v1.status, 403);
    const users = await v2(core.emu.url, '/users/search', { record_size: -1 }, analyst);
    assert.equal(users.status, 200, JSON.stringify(users.body));
    const all = (await v2(core.emu.url, '/users/search', { record_size: -1 }, admin)).body as { name: string }[];
    assert.deepEqual(users.body.map((u: { name: string }) => u.name), all.map((u) => u.name), 'every user is listed');
    const other = users.body.find((u: { name: string }) => u.name === 'tsadmin');
    for (const k of ['id', 'name', 'display_name', 'visibility']) assert.ok(k in other, `the required member ${k}`);
    for (const k of ['privileges', 'user_groups', 'user_inherited_groups', 'email']) assert.ok(!(k in other), `another user's ${k} is an administrator's to see`);
    assert.equal(other.complete_detail, false);
    const self = users.body.find((u: { name: string }) => u.name === 'analyst');
    assert.equal(self.complete_detail, true);
    assert.ok(self.user_groups.some((g: { name: string }) => g.name === 'Analysts'), 'the caller sees its own groups');
    // a filter on a member the caller cannot see matches only the caller's own entry
    const byGroup = await v2(core.emu.url, '/users/search', { group_identifiers: ['Administrator'], record_size: -1 }, analyst);
    assert.deepEqual(byGroup.body, []);
    assert.ok((await v2(core.emu.url, '/users/search', { group_identifiers: ['Administrator'], record_size: -1 }, admin)).body.length > 0);
    // groups: every group, the members limited to the caller
    const groups = await v2(core.emu.url, '/groups/search', { record_size: -1 }, analyst);
    assert.equal(groups.status, 200);
    const administrators = groups.body.find((g: { name: string }) => g.name === 'Administrator');
    assert.deepEqual(administrators.users, []);
    assert.equal(administrators.complete_detail, false);
    assert.deepEqual(groups.body.find((g: { name: string }) => g.name === 'Analysts').users.map((u: { name: string }) => u.name), ['analyst']);
    assert.deepEqual((await v2(core.emu.url, '/groups/search', { user_identifiers: ['tsadmin'], record_size: -1 }, analyst)).body, []);
    // metadata/search's details of a USER follow the same rule
    const meta = await v2(core.emu.url, '/metadata/search', { metadata: [{ type: 'USER', identifier: 'tsadmin' }], include_details: true }, analyst);
    assert.equal(meta.status, 200, JSON.stringify(meta.body));
    assert.ok(!('privileges' in meta.body[0].metadata_detail));
  });

  test('metadata/search lists USER, USER_GROUP, TAG and LOGICAL_COLUMN; metadata may be one object', async () => {
    for (const type of ['USER', 'USER_GROUP', 'TAG', 'LOGICAL_COLUMN']) {
      const r = await v2(core.emu.url, '/metadata/search', { metadata: [{ type }], record_size: -1 }, admin);
      assert.equal(r.status, 200, `${type}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.length > 0 || type === 'TAG', type);
      assert.ok(r.body.every((e: { metadata_type: string }) => e.metadata_type === type), type);
    }
    const columns = (await v2(core.emu.url, '/metadata/search', { metadata: { type: 'LOGICAL_COLUMN', name_pattern: 'origin' }, record_size: -1 }, admin)).body;
    assert.ok(columns.length > 0);
    const tables = (await v2(core.emu.url, '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], record_size: -1 }, admin)).body as { metadata_id: string }[];
    assert.ok(tables.some((t) => t.metadata_id === columns[0].metadata_header.owner), "a column's owner is its table");
  });

  test('every documented sort_options.field_name is accepted, and orders', async () => {
    for (const field_name of ['NAME', 'DISPLAY_NAME', 'AUTHOR', 'CREATED', 'MODIFIED', 'VIEWS', 'FAVORITES', 'LAST_ACCESSED']) {
      for (const order of ['ASC', 'DESC']) {
        const r = await v2(core.emu.url, '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], sort_options: { field_name, order }, record_size: -1 }, admin);
        assert.equal(r.status, 200, `${field_name} ${order}: ${JSON.stringify(r.body)}`);
      }
    }
    const names = (await v2(core.emu.url, '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], sort_options: { field_name: 'DISPLAY_NAME', order: 'DESC' }, record_size: -1 }, admin)).body.map((e: { metadata_name: string }) => e.metadata_name.toLowerCase());
    assert.deepEqual(names, [...names].sort().reverse());
    assert.equal((await v2(core.emu.url, '/metadata/search', { sort_options: { field_name: 'COLOR' } }, admin)).status, 400);
  });

  test("include_dependent_objects: a table's answers and liveboards under dependent_objects[guid], by v1 type", async () => {
    const r = await v2(core.emu.url, '/metadata/search', { metadata: { type: 'LOGICAL_TABLE' }, include_dependent_objects: true, record_size: 100000 }, admin);
    assert.equal(r.status, 200);
    const flights = r.body.find((t: { metadata_name: string }) => t.metadata_name === 'flights');
    const deps = flights.dependent_objects[flights.metadata_id];
    assert.ok(deps.PINBOARD_ANSWER_BOOK.some((b: { name: string }) => b.name === 'Flight Operations'), JSON.stringify(deps));
    for (const t of r.body) assert.ok(t.dependent_objects[t.metadata_id], `${t.metadata_name} has its entry`);
  });
});

describe('administration, seen through both generations', () => {
  test('auth/session/login takes remember_me as the string "true", as ThoughtSpot\'s Python client sends it', async () => {
    const r = await fetch(`${core.emu.url}${V2}/auth/session/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'analyst', password: 'analyst', remember_me: 'true' }) });
    assert.equal(r.status, 204, await r.text());
    const bad = await v2(core.emu.url, '/auth/session/login', { username: 'analyst', password: 'analyst', remember_me: 'maybe' });
    assert.equal(bad.status, 400);
  });

  test('groups/{id}/update ADD and REMOVE a privilege; v1 user/list sees it', async () => {
    const has = async () => (await v1List()).find((p) => p.name === 'Analysts')!.privileges.includes('DATAMANAGEMENT');
    assert.equal((await v2(core.emu.url, '/groups/Analysts/update', { privileges: ['DATAMANAGEMENT'], operation: 'ADD' }, admin)).status, 204);
    assert.equal(await has(), true);
    assert.equal((await v2(core.emu.url, '/groups/Analysts/update', { privileges: ['DATAMANAGEMENT'], operation: 'REMOVE' }, admin)).status, 204);
    assert.equal(await has(), false);
    const analyst = await token('analyst', 'analyst');
    const refused = await v2(core.emu.url, '/groups/Analysts/update', { privileges: ['DATAMANAGEMENT'], operation: 'ADD' }, analyst);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.message.code, 10023);
  });

  test('users/import (dry run, then applied) adds a user v1 lists; users/change-password changes the password v1 logs in with', async () => {
    const users = [{ user_identifier: 'importee', display_name: 'Importee', group_identifiers: ['Analysts'] }];
    const dry = await v2(core.emu.url, '/users/import', { users, default_password: 'first-pw-1', dry_run: true }, admin);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(dry.body.users_added.map((u: { name: string }) => u.name), ['importee']);
    assert.ok(!(await v1List()).some((p) => p.name === 'importee'), 'a dry run changes nothing');
    const applied = await v2(core.emu.url, '/users/import', { users, default_password: 'first-pw-1', dry_run: false }, admin);
    assert.equal(applied.status, 200);
    assert.deepEqual((await v1List()).find((p) => p.name === 'importee')?.groupNames, ['Analysts']);
    const mine = await token('importee', 'first-pw-1');
    assert.equal((await v2(core.emu.url, '/users/change-password', { user_identifier: 'importee', current_password: 'first-pw-1', new_password: 'second-pw-2' }, mine)).status, 204);
    await core.login('importee', 'second-pw-2');
    const wrong = await v2(core.emu.url, '/users/change-password', { user_identifier: 'importee', current_password: 'nope', new_password: 'x' }, admin);
    assert.equal(wrong.status, 400);
  });

  test('security/metadata/assign moves an object to another author; v1 listobjectheaders shows it', async () => {
    const cookie = await core.login('tsadmin', 'admin');
    const books = (await core.call('GET', '/metadata/listobjectheaders', { type: 'PINBOARD_ANSWER_BOOK' }, cookie)).body as { id: string; author: string }[];
    const users = (await v2(core.emu.url, '/users/search', { user_identifier: 'analyst' }, admin)).body as { id: string }[];
    const board = books[0]!;
    const r = await v2(core.emu.url, '/security/metadata/assign', { metadata: [{ identifier: board.id, type: 'LIVEBOARD' }], user_identifier: 'analyst' }, admin);
    assert.equal(r.status, 204, JSON.stringify(r.body));
    const after = (await core.call('GET', '/metadata/listobjectheaders', { type: 'PINBOARD_ANSWER_BOOK' }, cookie)).body as { id: string; author: string }[];
    assert.equal(after.find((b) => b.id === board.id)!.author, users[0]!.id);
    assert.equal((await v2(core.emu.url, '/security/metadata/assign', { metadata: [{ identifier: board.id }], user_identifier: 'analyst', current_owner_identifier: 'system' }, admin)).status, 400);
  });
});

describe('groups/{id}/update: the documented members the emulator\'s groups have', () => {
  type V1Principal = { name: string; privileges: string[]; groupNames: string[]; visibility: string };
  const v1Of = async (name: string) => (await v1List()).find((p) => p.name === name) as V1Principal | undefined;
  const groupOf = async (name: string) => (await v2(core.emu.url, '/groups/search', { group_identifier: name }, admin)).body[0];
  const update = (group: string, b: Record<string, unknown>) => v2(core.emu.url, `/groups/${encodeURIComponent(group)}/update`, b, admin);

  before(async () => {
    const r = await v2(core.emu.url, '/groups/import', { groups: [{ group_identifier: 'Loaders', display_name: 'Loaders', privileges: ['DATAMANAGEMENT'] }, { group_identifier: 'Reviewers', display_name: 'Reviewers' }], dry_run: false }, admin);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('name, display_name, description, visibility, type and user_identifiers (ADD, then REPLACE); v1 user/list sees them', async () => {
    const r = await update('Reviewers', { name: 'Auditors', display_name: 'The auditors', description: 'Read the books', visibility: 'NON_SHARABLE', type: 'LOCAL_GROUP', user_identifiers: ['analyst'], operation: 'ADD' });
    assert.equal(r.status, 204, JSON.stringify(r.body));
    assert.equal(await groupOf('Reviewers'), undefined, 'renamed');
    const g = await groupOf('Auditors');
    assert.equal(g.display_name, 'The auditors');
    assert.equal(g.description, 'Read the books');
    assert.equal(g.visibility, 'NON_SHARABLE');
    assert.equal(g.type, 'LOCAL_GROUP');
    assert.deepEqual(g.users.map((u: { name: string }) => u.name), ['analyst']);
    assert.equal((await v1Of('Auditors'))?.visibility, 'NON_SHARABLE');
    assert.deepEqual((await v1Of('analyst'))?.groupNames.sort(), ['Analysts', 'Auditors'], 'ADD keeps the groups the user had');
    // REPLACE (the default): the group's members are exactly those given
    assert.equal((await update('Auditors', { user_identifiers: ['tsadmin'] })).status, 204);
    assert.deepEqual((await groupOf('Auditors')).users.map((u: { name: string }) => u.name), ['tsadmin']);
    assert.deepEqual((await v1Of('analyst'))?.groupNames, ['Analysts']);
    // REMOVE
    assert.equal((await update('Auditors', { user_identifiers: ['tsadmin'], operation: 'REMOVE' })).status, 204);
    assert.deepEqual((await groupOf('Auditors')).users, []);
  });

  test('sub_group_identifiers: the members of a sub-group have the privileges of its parent (docs.thoughtspot.com "groups-privileges"); no cycle', async () => {
    assert.equal((await update('Auditors', { user_identifiers: ['analyst'], operation: 'ADD' })).status, 204);
    assert.ok(!(await v1Of('analyst'))!.privileges.includes('DATAMANAGEMENT'));
    assert.equal((await update('Loaders', { sub_group_identifiers: ['Auditors'], operation: 'ADD' })).status, 204);
    assert.deepEqual((await groupOf('Loaders')).sub_groups.map((x: { name: string }) => x.name), ['Auditors']);
    assert.ok((await v1Of('analyst'))!.privileges.includes('DATAMANAGEMENT'), 'inherited from the parent group');
    assert.deepEqual((await v1Of('Auditors'))!.groupNames, ['Loaders'], 'v1 names the parent group');
    const analyst = (await v2(core.emu.url, '/users/search', { user_identifier: 'analyst' }, admin)).body[0];
    assert.ok(analyst.user_inherited_groups.some((x: { name: string }) => x.name === 'Loaders'));
    assert.ok(!analyst.user_groups.some((x: { name: string }) => x.name === 'Loaders'));
    for (const [group, sub] of [['Auditors', 'Loaders'], ['Loaders', 'Loaders']]) {
      const cycle = await update(group!, { sub_group_identifiers: [sub!], operation: 'ADD' });
      assert.equal(cycle.status, 400, `${sub} under ${group}`);
      assert.equal(cycle.body.error.message.code, 10002);
    }
    assert.equal((await update('Loaders', { sub_group_identifiers: ['Auditors'], operation: 'REMOVE' })).status, 204);
    assert.deepEqual((await groupOf('Loaders')).sub_groups, []);
    assert.ok(!(await v1Of('analyst'))!.privileges.includes('DATAMANAGEMENT'));
    assert.equal((await update('Auditors', { user_identifiers: [] })).status, 204);
  });

  test('an unknown or unsupported member is refused with 400 and code 10002, and nothing of the request is applied', async () => {
    const before = await groupOf('Auditors');
    for (const [b, why] of [
      [{ colour: 'red' }, /colour/],
      [{ default_liveboard_identifiers: ['x'] }, /default_liveboard_identifiers/],
      [{ role_identifiers: ['x'] }, /role_identifiers/],
      [{ type: 'LDAP_GROUP' }, /LDAP_GROUP/],
      [{ type: 'CLUB' }, /type/],
      [{ visibility: 'PUBLIC' }, /visibility/],
      [{ user_identifiers: ['nobody'] }, /nobody/],
      [{ sub_group_identifiers: ['No Such Group'] }, /No Such Group/],
      [{ name: 'analysts' }, /Analysts/],
      [{ operation: 'MERGE', user_identifiers: ['analyst'] }, /operation/],
      [{ privileges: ['NOT_A_PRIVILEGE'], display_name: 'Changed' }, /NOT_A_PRIVILEGE/],
      [{ display_name: 'Changed', description: 'Changed', role_identifiers: ['x'] }, /role_identifiers/],
    ] as [Record<string, unknown>, RegExp][]) {
      const r = await update('Auditors', b);
      assert.equal(r.status, 400, JSON.stringify(b));
      assert.equal(r.body.error.message.code, 10002, JSON.stringify(r.body));
      assert.match(r.body.error.message.debug, why, JSON.stringify(b));
    }
    const after = await groupOf('Auditors');
    assert.deepEqual({ ...after, modification_time_in_millis: 0 }, { ...before, modification_time_in_millis: 0 });
    assert.equal(after.modification_time_in_millis, before.modification_time_in_millis);
  });
});

describe('the client on a v2-only service', () => {
  let only: Core;
  before(async () => {
    only = await startCore({ publicApi: 'v2' });
  });
  after(async () => only?.stop());

  test('Users & Groups, Tags, columns, privileges, sync, password and ownership go over v2; refresh of a view says v2 has none', async () => {
    const paths: string[] = [];
    const c = new AnalyticsServiceClient({ url: only.emu.url, username: 'tsadmin', password: 'admin', apiVersion: 'auto', onRequest: (r) => paths.push(r.path) });
    try {
      const principals = await c.listPrincipals();
      assert.ok(principals.some((p) => p.kind === 'GROUP' && p.name === 'Analysts'));
      assert.ok(principals.find((p) => p.name === 'analyst')?.groupNames?.includes('Analysts'));
      for (const type of ['TAG', 'USER', 'USER_GROUP', 'LOGICAL_COLUMN'] as const) await c.listObjectHeaders({ type, batchSize: -1 });
      const tags = await c.listObjectHeaders({ type: 'TAG', batchSize: -1 });
      assert.ok(tags.some((t) => t.name === 'finance') && tags.every((t) => t.type === 'TAG'), JSON.stringify(tags.map((t) => [t.name, t.type])));
      // a tag's objects (tag_identifiers): the tree's Tags node
      // category MY is the signed-in user's objects, FAVORITE their favorites (the emulator keeps none), as on v1
      const mine = await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', category: 'MY', batchSize: -1 });
      const me = (await c.v2.sessionUser()).id;
      assert.ok(mine.length > 0 && mine.every((h) => h.author === me), JSON.stringify(mine.map((h) => h.author)));
      assert.deepEqual(await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', category: 'FAVORITE', batchSize: -1 }), []);
      const finance = await c.listObjectHeaders({ type: 'LOGICAL_TABLE', tagNames: ['finance'], batchSize: -1 });
      const all = await c.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
      assert.ok(finance.length > 0 && finance.length < all.length, `${finance.length} of ${all.length}`);
      const columns = await c.listObjectHeaders({ type: 'LOGICAL_COLUMN', batchSize: -1, pattern: 'origin' });
      assert.ok(columns.length > 0 && columns.every((h) => h.owner !== h.id), 'a column is owned by its table');
      await c.addGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] });
      assert.ok((await c.listPrincipals()).find((p) => p.name === 'Analysts')?.privileges?.includes('DATAMANAGEMENT'));
      await c.removeGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] });
      const sync = (await c.syncPrincipals({ principals: [{ name: 'synced', principalTypeEnum: 'LOCAL_USER', groupNames: ['Analysts'] }], applyChanges: true, removeDeleted: false, password: 'synced-pw-1' })) as { users_added: unknown[] };
      assert.equal(sync.users_added.length, 1);
      // a file with a group and a user in it: groups/import, then users/import; a dry run first
      const file = [{ name: 'Syncers', principalTypeEnum: 'LOCAL_GROUP', privileges: ['USERDATAUPLOADING'] }, { name: 'grouped', principalTypeEnum: 'LOCAL_USER', groupNames: ['Syncers'] }];
      const dry = (await c.syncPrincipals({ principals: file, applyChanges: false, password: 'grouped-pw-1' })) as { groups_added: { name: string }[]; users_added: { name: string }[] };
      assert.deepEqual([dry.groups_added.map((g) => g.name), dry.users_added.map((u) => u.name)], [['Syncers'], ['grouped']]);
      assert.ok(!(await c.listPrincipals()).some((p) => p.name === 'Syncers'), 'a dry run changes nothing');
      await c.syncPrincipals({ principals: file, applyChanges: true, password: 'grouped-pw-1' });
      const after = await c.listPrincipals();
      assert.deepEqual(after.find((p) => p.name === 'Syncers')?.privileges, ['USERDATAUPLOADING']);
      assert.deepEqual(after.find((p) => p.name === 'grouped')?.groupNames, ['Syncers']);
      const synced = new AnalyticsServiceClient({ url: only.emu.url, username: 'synced', password: 'synced-pw-1', apiVersion: 'v2' });
      try {
        await synced.updatePassword({ name: 'synced', currentPassword: 'synced-pw-1', newPassword: 'synced-pw-2' });
      } finally {
        await synced.close();
      }
      const books = await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', batchSize: -1 });
      await c.transferOwnership({ fromUserName: 'tsadmin', toUserName: 'synced', objectIds: [books[0]!.id] });
      const moved = (await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', batchSize: -1 })).find((b) => b.id === books[0]!.id)!;
      assert.equal(moved.author, (await c.listPrincipals()).find((p) => p.name === 'synced')?.id);
      await c.transferOwnership({ fromUserName: 'synced', toUserName: 'tsadmin' });
      const syncedId = (await c.listPrincipals()).find((p) => p.name === 'synced')?.id;
      assert.ok(syncedId);
      assert.ok((await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', batchSize: -1 })).every((b) => b.author !== syncedId), 'every object of synced went back');
      await assert.rejects(c.refreshMaterializedView(books[0]!.id), (e: unknown) => e instanceof OperationUnavailableError && /REST API v2 only/.test(e.message));
      assert.ok(paths.every((p) => !p.startsWith(PREFIX) || p.endsWith('/metadata/listobjectheaders')), `only the generation probe touched v1: ${paths.filter((p) => p.startsWith(PREFIX)).join()}`);
    } finally {
      await c.close();
    }
  });
});
