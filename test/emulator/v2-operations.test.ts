// The REST API v2 operations a user of ThoughtSpot's SDK calls first, on the emulator (system.ts,
// objects.ts, principals.ts, reports.ts, tmlAsync.ts of emulator/src/v2): each does what the OpenAPI
// document says, and the change is seen through the other operations and through v1 (one catalog).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let admin: string;
let analyst: string;

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

async function v2(path: string, body: unknown, token?: string, method = 'POST'): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, body: json, text, headers: r.headers };
}

async function tokenOf(username: string, password: string): Promise<string> {
  const r = await v2('/auth/token/full', { username, password });
  assert.equal(r.status, 200, r.text);
  return r.body.token as string;
}

async function search(type: string, token = admin): Promise<{ metadata_id: string; metadata_name: string }[]> {
  return (await v2('/metadata/search', { metadata: [{ type }], record_size: -1 }, token)).body;
}

before(async () => {
  core = await startCore();
  admin = await tokenOf('tsadmin', 'admin');
  analyst = await tokenOf('analyst', 'analyst');
});
after(async () => core?.stop());

describe('system and tokens', () => {
  test('GET system and system/config answer an administrator, 403 to others', async () => {
    const s = await v2('/system', undefined, admin, 'GET');
    assert.equal(s.status, 200, s.text);
    const users = (await v2('/users/search', { user_identifier: 'tsadmin' }, admin)).body;
    assert.equal(s.body.tsadmin_user_id, users[0].id);
    assert.equal(typeof s.body.release_version, 'string');
    assert.equal((await v2('/system', undefined, analyst, 'GET')).status, 403);
    const c = await v2('/system/config', undefined, admin, 'GET');
    assert.deepEqual([c.status, c.body.saml_enabled], [200, false]);
  });

  test('auth/session/token gives a new token that works; validate reads its scope; a revoked one is not valid', async () => {
    const t = await v2('/auth/session/token', undefined, analyst, 'GET');
    assert.equal(t.status, 200, t.text);
    assert.notEqual(t.body.token, analyst);
    assert.equal(t.body.valid_for_username, 'analyst');
    assert.equal(t.body.expiration_time_in_millis - t.body.creation_time_in_millis, 24 * 3600 * 1000);
    assert.equal((await v2('/auth/session/user', undefined, t.body.token, 'GET')).body.name, 'analyst');
    const v = await v2('/auth/token/validate', { token: t.body.token }, admin);
    assert.equal(v.status, 200, v.text);
    assert.deepEqual([v.body.token_type, v.body.scope.access_type, v.body.valid_for_user_id], ['BEARER', 'FULL', t.body.valid_for_user_id]);
    assert.equal((await v2('/auth/token/revoke', { token: t.body.token }, admin)).status, 204);
    assert.equal((await v2('/auth/token/validate', { token: t.body.token }, admin)).status, 400);
  });

  test('auth/token/object is scoped to an object the user can read; auth/token/custom answers AccessToken and refuses RLS rules', async () => {
    const answer = (await search('ANSWER', analyst)).find((a) => a.metadata_name === 'Top grossing genres')!;
    const o = await v2('/auth/token/object', { username: 'analyst', password: 'analyst', object_id: answer.metadata_id });
    assert.equal(o.status, 200, o.text);
    assert.deepEqual(o.body.scope, { access_type: 'REPORT_BOOK_VIEW', org_id: 0, metadata_id: answer.metadata_id });
    assert.equal((await v2('/auth/token/validate', { token: o.body.token }, admin)).body.scope.metadata_id, answer.metadata_id);
    assert.equal((await v2('/auth/token/object', { username: 'analyst', password: 'wrong', object_id: answer.metadata_id })).status, 401);
    const c = await v2('/auth/token/custom', { username: 'analyst', password: 'analyst', persist_option: 'NONE' });
    assert.equal(c.status, 200, c.text);
    assert.deepEqual([c.body.user.name, c.body.org.id], ['analyst', 0]);
    const rls = await v2('/auth/token/custom', { username: 'analyst', password: 'analyst', persist_option: 'APPEND', filter_rules: [{ column_name: 'origin', operator: 'EQ', values: ['SEA'] }] });
    assert.equal(rls.status, 400);
  });

  test('connection/search lists the DuckDB databases; roles/search none', async () => {
    const c = await v2('/connection/search', {}, admin);
    assert.equal(c.status, 200, c.text);
    assert.ok(c.body.length > 0 && c.body.every((x: { id: string; name: string; data_warehouse_type: string }) => x.id && x.name && x.data_warehouse_type));
    const one = await v2('/connection/search', { connections: [{ identifier: c.body[0].name }] }, admin);
    assert.deepEqual(one.body.map((x: { id: string }) => x.id), [c.body[0].id]);
    assert.equal((await v2('/connection/search', {}, analyst)).status, 403);
    assert.deepEqual((await v2('/roles/search', {}, admin)).body, []);
  });
});

describe('objects and tags', () => {
  test('tags/create, assign, unassign and delete; metadata/search and v1 see the tags', async () => {
    const created = await v2('/tags/create', { name: 'audited' }, admin);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.name, 'audited');
    assert.equal((await v2('/tags/create', { name: 'Audited' }, admin)).status, 400, 'names are unique, case-insensitively');
    assert.equal((await v2('/tags/create', { name: 'mine' }, analyst)).status, 403);
    const tagged = await v2('/tags/assign', { metadata: [{ identifier: 'Top grossing genres', type: 'ANSWER' }], tag_identifiers: ['audited'] }, admin);
    assert.equal(tagged.status, 204, tagged.text);
    const tagged1 = async (): Promise<string[]> => ((await v2('/metadata/search', { tag_identifiers: ['audited'], record_size: -1 }, admin)).body as { metadata_name: string }[]).map((x) => x.metadata_name);
    assert.deepEqual(await tagged1(), ['Top grossing genres']);
    const v1 = await core.call('GET', '/metadata/listobjectheaders', { type: 'QUESTION_ANSWER_BOOK', tagname: '["audited"]' }, await core.login('tsadmin', 'admin'));
    assert.deepEqual((v1.body as { name: string }[]).map((h) => h.name), ['Top grossing genres']);
    assert.equal((await v2('/tags/assign', { metadata: [{ identifier: 'Top grossing genres' }], tag_identifiers: ['audited'] }, analyst)).status, 403, 'shared READ_ONLY: no edit access');
    assert.equal((await v2('/tags/unassign', { metadata: [{ identifier: 'Top grossing genres' }], tag_identifiers: ['audited'] }, admin)).status, 204);
    assert.deepEqual(await tagged1(), []);
    await v2('/tags/assign', { metadata: [{ identifier: 'Top grossing genres' }], tag_identifiers: ['audited'] }, admin);
    assert.equal((await v2(`/tags/${created.body.id}/delete`, {}, admin)).status, 204);
    const byId = await v2('/metadata/search', { tag_identifiers: [created.body.id], record_size: -1 }, admin);
    assert.deepEqual(byId.body, [], 'a deleted tag leaves its objects');
    assert.ok(!(await v2('/tags/search', {}, admin)).body.some((t: { name: string }) => t.name === 'audited'));
  });

  test('fetch-permissions: the author MODIFY and each share, as the document example', async () => {
    const r = await v2('/security/metadata/fetch-permissions', { metadata: [{ identifier: 'Flight Operations', type: 'LIVEBOARD' }] }, admin);
    assert.equal(r.status, 200, r.text);
    const d = r.body.metadata_permission_details[0];
    assert.deepEqual([d.metadata_name, d.metadata_type, d.metadata_author.name], ['Flight Operations', 'LIVEBOARD', 'tsadmin']);
    const byName = Object.fromEntries(d.principal_permission_info.flatMap((i: { principal_permissions: { principal_name: string; permission: string }[] }) => i.principal_permissions.map((p) => [p.principal_name, p.permission])));
    assert.deepEqual(byName, { tsadmin: 'MODIFY', Analysts: 'READ_ONLY' });
    const share = await v2('/security/metadata/share', { metadata_type: 'LIVEBOARD', metadata_identifiers: ['Flight Operations'], permissions: [{ principal: { identifier: 'analyst', type: 'USER' }, share_mode: 'MODIFY' }] }, admin);
    assert.equal(share.status, 204, share.text);
    const again = (await v2('/security/metadata/fetch-permissions', { metadata: [{ identifier: 'Flight Operations' }] }, admin)).body.metadata_permission_details[0];
    assert.ok(again.principal_permission_info.some((i: { principal_type: string; principal_permissions: { principal_name: string; permission: string }[] }) => i.principal_type === 'USER' && i.principal_permissions.some((p) => p.principal_name === 'analyst' && p.permission === 'MODIFY')));
  });

  test('metadata/liveboard/sql: one SQL per visualization; metadata/delete removes a liveboard (v1 no longer lists it) and refuses a table', async () => {
    const sql = await v2('/metadata/liveboard/sql', { metadata_identifier: 'Markets and Weather' }, admin);
    assert.equal(sql.status, 200, sql.text);
    assert.equal(sql.body.metadata_type, 'LIVEBOARD');
    assert.equal(sql.body.sql_queries.length, 3);
    assert.ok(sql.body.sql_queries.every((q: { sql_query: string }) => /SELECT/i.test(q.sql_query)));
    const one = await v2('/metadata/liveboard/sql', { metadata_identifier: 'Markets and Weather', visualization_identifiers: ['Days by weather'] }, admin);
    assert.deepEqual(one.body.sql_queries.map((q: { metadata_name: string }) => q.metadata_name), ['Days by weather']);
    assert.equal((await v2('/metadata/delete', { metadata: [{ identifier: 'Markets and Weather', type: 'LIVEBOARD' }] }, analyst)).status, 403, 'shared READ_ONLY: no edit access');
    assert.equal((await v2('/metadata/delete', { metadata: [{ identifier: 'flights', type: 'LOGICAL_TABLE' }] }, admin)).status, 400);
    const del = await v2('/metadata/delete', { metadata: [{ identifier: 'Markets and Weather', type: 'LIVEBOARD' }] }, admin);
    assert.equal(del.status, 204, del.text);
    const v1 = await core.call('GET', '/metadata/listobjectheaders', { type: 'PINBOARD_ANSWER_BOOK' }, await core.login('tsadmin', 'admin'));
    assert.ok(!(v1.body as { name: string }[]).some((h) => h.name === 'Markets and Weather'));
  });
});

describe('users and groups', () => {
  test('users/create makes a user who signs in on v1 and v2; update changes it; delete ends its tokens', async () => {
    const c = await v2('/users/create', { name: 'auditor', display_name: 'Auditor', email: 'auditor@example.com', password: 'Secret-123', group_identifiers: ['Analysts'] }, admin);
    assert.equal(c.status, 200, c.text);
    assert.deepEqual([c.body.name, c.body.email, c.body.user_groups.map((g: { name: string }) => g.name)], ['auditor', 'auditor@example.com', ['Analysts']]);
    assert.equal((await v2('/users/create', { name: 'auditor', display_name: 'x', email: 'x@example.com', password: 'p' }, admin)).status, 400);
    assert.equal((await v2('/users/create', { name: 'other', display_name: 'x', email: 'x@example.com', password: 'p' }, analyst)).status, 403);
    await core.login('auditor', 'Secret-123');
    const own = await tokenOf('auditor', 'Secret-123');
    const u = await v2('/users/auditor/update', { display_name: 'Chief Auditor', group_identifiers: ['Data Managers'], operation: 'ADD', visibility: 'NON_SHARABLE' }, admin);
    assert.equal(u.status, 204, u.text);
    const seen = (await v2('/users/search', { user_identifier: 'auditor' }, admin)).body[0];
    assert.deepEqual([seen.display_name, seen.visibility, seen.user_groups.map((g: { name: string }) => g.name).sort()], ['Chief Auditor', 'NON_SHARABLE', ['Analysts', 'Data Managers']]);
    assert.ok(seen.privileges.includes('DATAMANAGEMENT'));
    assert.equal((await v2('/users/auditor/delete', {}, admin)).status, 204);
    assert.equal((await v2('/auth/session/user', undefined, own, 'GET')).status, 401, "the deleted user's token ends");
    assert.deepEqual((await v2('/users/search', { user_identifier: 'auditor' }, admin)).body, []);
    assert.equal((await v2('/users/tsadmin/delete', {}, admin)).status, 400, 'not oneself');
  });

  test('groups/create with privileges and members; groups/delete; an administrator keeps the group that makes it one', async () => {
    const g = await v2('/groups/create', { name: 'Auditors', display_name: 'Auditors', privileges: ['DATADOWNLOADING'], user_identifiers: ['analyst'], description: 'Read and download' }, admin);
    assert.equal(g.status, 200, g.text);
    assert.deepEqual([g.body.name, g.body.privileges, g.body.users.map((x: { name: string }) => x.name), typeof g.body.orgs[0].id], ['Auditors', ['DATADOWNLOADING'], ['analyst'], 'string']);
    const v1 = (await core.call('GET', '/user/list', {}, await core.login('tsadmin', 'admin'))).body as { name: string; groupNames?: string[] }[];
    assert.ok(v1.some((p) => p.name === 'Auditors'));
    assert.equal((await v2('/groups/create', { name: 'Auditors', display_name: 'again' }, admin)).status, 400);
    assert.equal((await v2('/groups/Auditors/delete', {}, admin)).status, 204);
    assert.deepEqual((await v2('/groups/search', { group_identifier: 'Auditors' }, admin)).body, []);
    const analystGroups = (await v2('/users/search', { user_identifier: 'analyst' }, admin)).body[0].user_groups.map((x: { name: string }) => x.name);
    assert.ok(!analystGroups.includes('Auditors'));
    assert.equal((await v2('/groups/Administrator/delete', {}, admin)).status, 400);
  });
});

describe('reports and TML', () => {
  test('report/answer: the CSV holds the rows searchdata gives; PDF is refused with the documented 400; DATADOWNLOADING needed', async () => {
    const r = await v2('/report/answer', { metadata_identifier: 'Top grossing genres', file_format: 'CSV' }, analyst);
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /octet-stream/);
    const rows = parse(r.text) as string[][];
    const data = await v2('/metadata/answer/data', { metadata_identifier: 'Top grossing genres', record_size: -1 }, analyst);
    assert.deepEqual(rows[0], data.body.contents[0].column_names);
    assert.deepEqual(rows.slice(1), data.body.contents[0].data_rows.map((row: unknown[]) => row.map(String)));
    const pdf = await v2('/report/answer', { metadata_identifier: 'Top grossing genres', file_format: 'PDF' }, analyst);
    assert.equal(pdf.status, 400);
    assert.equal(pdf.body.error.message.code, 10002);
    await v2('/groups/Analysts/update', { privileges: ['DATADOWNLOADING'], operation: 'REMOVE' }, admin);
    try {
      assert.equal((await v2('/report/answer', { metadata_identifier: 'Top grossing genres' }, analyst)).status, 403);
    } finally {
      await v2('/groups/Analysts/update', { privileges: ['DATADOWNLOADING'], operation: 'ADD' }, admin);
    }
  });

  test('report/liveboard: one visualization as CSV; several are refused (a ZIP on the service)', async () => {
    const r = await v2('/report/liveboard', { metadata_identifier: 'Flight Operations', visualization_identifiers: ['Total delay by origin, top 10'], file_format: 'CSV' }, admin);
    assert.equal(r.status, 200, r.text);
    const rows = parse(r.text) as string[][];
    assert.equal(rows.length, 11, 'a header and the top 10');
    assert.equal((await v2('/report/liveboard', { metadata_identifier: 'Flight Operations', file_format: 'CSV' }, admin)).status, 400);
  });

  test('tml/async/import runs the import as a task whose status has its answer; tml/export/batch pages users and groups', async () => {
    const exported = await v2('/metadata/tml/export', { metadata: [{ identifier: 'Top grossing genres', type: 'ANSWER' }] }, admin);
    const edoc = exported.body[0].edoc as string;
    const task = await v2('/metadata/tml/async/import', { metadata_tmls: [edoc], import_policy: 'ALL_OR_NONE' }, admin);
    assert.equal(task.status, 200, task.text);
    assert.equal(task.body.task_status, 'COMPLETED');
    const status = await v2('/metadata/tml/async/status', { task_ids: [task.body.task_id], include_import_response: true }, admin);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.last_batch, true);
    assert.equal(status.body.status_list[0].import_response.object[0].response.status.status_code, 'OK');
    assert.deepEqual((await v2('/metadata/tml/async/status', { task_ids: [task.body.task_id] }, analyst)).body.status_list, [], "another user's task is not shown");
    assert.equal((await v2('/metadata/tml/async/import', { metadata_tmls: [edoc] }, analyst)).status, 403);
    const page1 = await v2('/metadata/tml/export/batch', { metadata_type: 'USER', batch_size: 1 }, admin);
    const page2 = await v2('/metadata/tml/export/batch', { metadata_type: 'USER', batch_size: 1, batch_offset: 1 }, admin);
    assert.equal(page1.status, 200, page1.text);
    const names = [...page1.body, ...page2.body].map((x: { edoc: string }) => JSON.parse(x.edoc).user.name);
    assert.deepEqual(names.sort(), ['analyst', 'tsadmin']);
    const groups = await v2('/metadata/tml/export/batch', { metadata_type: 'USER_GROUP', batch_size: 100, edoc_format: 'YAML' }, admin);
    assert.ok(groups.body.some((x: { edoc: string }) => /name: Analysts/.test(x.edoc)));
    assert.equal((await v2('/metadata/tml/export/batch', { metadata_type: 'ANSWER' }, admin)).status, 400);
  });
});
