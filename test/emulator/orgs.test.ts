// Orgs in the emulator (emulator/src/orgs.ts, MetadataStore.canRead): a token or session runs in one Org
// and sees nothing of another, in v1 and v2 — objects (metadata search, details, searchdata, TML export
// and import), users, groups and tags; a user in two Orgs chooses at login (v2 `org_id`, v1 `orgid`) or
// switches (v1 PUT session/orgs); the administrator of Primary acts in every Org; v2's Org operations.
// Plain fetch against a real emulator with the demo seed (Orgs Primary and Finance).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCore, PREFIX, type Core } from './core-support';
import { startEmulator } from '../../emulator/src/app';

const V2 = '/api/rest/2.0';
let core: Core;
let finance = 0;

async function v2(path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function token(username: string, password: string, org?: number | string): Promise<{ status: number; body: any }> {
  return v2('/auth/token/full', { username, password, ...(org === undefined ? {} : typeof org === 'number' ? { org_id: org } : { org_identifier: org }) });
}

async function tokenIn(username: string, password: string, org?: number): Promise<string> {
  const r = await token(username, password, org);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.token as string;
}

/** The names of the data sources a v2 metadata/search shows the token. */
async function tableNames(t: string): Promise<string[]> {
  const r = await v2('/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], record_size: -1 }, t);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { metadata_name: string }[]).map((x) => x.metadata_name).sort();
}

async function guidOf(name: string, t: string): Promise<string> {
  const r = await v2('/metadata/search', { metadata: [{ identifier: name, type: 'LOGICAL_TABLE' }] }, t);
  assert.equal(r.body.length, 1, `${name}: ${JSON.stringify(r.body)}`);
  return r.body[0].metadata_id as string;
}

/** A v1 call with a session cookie; params in the query string, or a form body for PUT/POST with `form`. */
async function v1(method: 'GET' | 'POST' | 'PUT', path: string, cookie: string, params: Record<string, string> = {}, form = false): Promise<{ status: number; body: any }> {
  const qs = new URLSearchParams(params).toString();
  const headers: Record<string, string> = { accept: 'application/json', 'x-requested-by': 'ThoughtSpot', cookie };
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const r = await fetch(`${core.emu.url}${PREFIX}${path}${form ? '' : `?${qs}`}`, { method, headers, body: form ? qs : undefined });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function v1Login(username: string, password: string, orgid?: number): Promise<{ status: number; cookie: string }> {
  const form = new URLSearchParams({ username, password, ...(orgid === undefined ? {} : { orgid: String(orgid) }) });
  const r = await fetch(`${core.emu.url}${PREFIX}/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  return { status: r.status, cookie: r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ') };
}

before(async () => {
  core = await startCore();
  const admin = await tokenIn('tsadmin', 'admin');
  const orgs = await v2('/orgs/search', {}, admin);
  assert.equal(orgs.status, 200, JSON.stringify(orgs.body));
  finance = (orgs.body as { id: number; name: string }[]).find((o) => o.name === 'Finance')!.id;
  assert.ok(Number.isInteger(finance) && finance > 0);
});
after(async () => core.stop());

describe('a token runs in one Org (v2)', () => {
  test('a Finance token sees the Finance table and none of Primary; a Primary token the reverse', async () => {
    const inFinance = await tokenIn('analyst', 'analyst', finance);
    const inPrimary = await tokenIn('analyst', 'analyst', 0);
    assert.deepEqual(await tableNames(inFinance), ['quotes']);
    const primary = await tableNames(inPrimary);
    assert.ok(primary.includes('flights') && !primary.includes('quotes'), primary.join());
  });

  test('the token names its Org, and session/user the current Org and the user\'s Orgs', async () => {
    const r = await token('analyst', 'analyst', finance);
    assert.equal(r.body.scope.org_id, finance);
    const me = await fetch(`${core.emu.url}${V2}/auth/session/user`, { headers: { authorization: `Bearer ${r.body.token}` } }).then((x) => x.json() as Promise<any>);
    assert.deepEqual(me.current_org, { id: finance, name: 'Finance' });
    assert.deepEqual(me.orgs.map((o: { name: string }) => o.name).sort(), ['Finance', 'Primary']);
    const byName = await token('analyst', 'analyst', 'Finance');
    assert.equal(byName.body.scope.org_id, finance, 'org_identifier by name');
  });

  test('searchdata, liveboard data and TML export of another Org\'s object are refused', async () => {
    const inFinance = await tokenIn('analyst', 'analyst', finance);
    const inPrimary = await tokenIn('tsadmin', 'admin', 0);
    const quotes = await guidOf('quotes', inFinance);
    const flights = await guidOf('flights', inPrimary);
    const own = await v2('/searchdata', { logical_table_identifier: quotes, query_string: '[symbol] [price]' }, inFinance);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.ok(own.body.contents[0].data_rows.length > 0);
    for (const [id, t] of [[quotes, inPrimary], [flights, inFinance]] as const) {
      const r = await v2('/searchdata', { logical_table_identifier: id, query_string: '[origin]' }, t);
      assert.ok(r.status === 403 || r.status === 400, `${r.status} ${JSON.stringify(r.body)}`);
      assert.ok(!JSON.stringify(r.body).includes('data_rows'));
    }
    const byName = await v2('/searchdata', { logical_table_identifier: 'quotes', query_string: '[symbol]' }, inPrimary);
    assert.equal(byName.status, 400, 'a name of another Org is unknown here');
    const exported = await v2('/metadata/tml/export', { metadata: [{ identifier: 'quotes', type: 'LOGICAL_TABLE' }] }, inPrimary);
    assert.ok(exported.status !== 200 || exported.body[0].info.status.status_code !== 'OK', JSON.stringify(exported.body));
    const liveboard = await v2('/metadata/liveboard/data', { metadata_identifier: 'Flight Operations' }, inFinance);
    assert.equal(liveboard.status, 400, JSON.stringify(liveboard.body));
  });

  test('users, groups and tags are those of the Org', async () => {
    const admin = await tokenIn('tsadmin', 'admin', finance);
    const users = await v2('/users/search', { record_size: -1 }, admin);
    assert.deepEqual((users.body as { name: string }[]).map((u) => u.name).sort(), ['analyst', 'trader']);
    const groups = await v2('/groups/search', { record_size: -1 }, admin);
    assert.deepEqual((groups.body as { name: string }[]).map((g) => g.name), ['Finance Analysts']);
    // the document types a group's orgs[].id as a string (UserGroup), a user's as an integer (Org)
    assert.deepEqual(groups.body[0].orgs, [{ id: String(finance), name: 'Finance' }]);
    const trader = (users.body as any[]).find((u) => u.name === 'trader');
    assert.deepEqual(trader.orgs, [{ id: finance, name: 'Finance' }]);
    const tags = await v2('/tags/search', {}, admin);
    assert.deepEqual((tags.body as { name: string }[]).map((t) => t.name), ['finance']);
    const primaryUsers = await v2('/users/search', { record_size: -1 }, await tokenIn('tsadmin', 'admin', 0));
    assert.ok(!(primaryUsers.body as { name: string }[]).some((u) => u.name === 'trader'));
    const meta = await v2('/metadata/search', { metadata: [{ type: 'USER' }, { type: 'USER_GROUP' }], record_size: -1 }, admin);
    assert.deepEqual((meta.body as { metadata_name: string }[]).map((x) => x.metadata_name).sort(), ['Finance Analysts', 'analyst', 'trader']);
  });

  test('privileges come from the groups of the Org a token runs in', async () => {
    const analystHere = await tokenIn('analyst', 'analyst', finance);
    const r = await v2('/users/search', { user_identifier: 'analyst' }, await tokenIn('tsadmin', 'admin', finance));
    assert.deepEqual(r.body[0].user_groups.map((g: { name: string }) => g.name), ['Finance Analysts']);
    // Primary's administrator is administrator in Finance too; the analyst is not
    assert.equal((await v2('/orgs/search', {}, analystHere)).status, 403);
    // a group of another Org is unknown to an administrator acting in Primary
    const primaryAdmin = await tokenIn('tsadmin', 'admin', 0);
    assert.equal((await v2('/groups/Finance Analysts/update', { privileges: ['DATAMANAGEMENT'], operation: 'ADD' }, primaryAdmin)).status, 400);
  });

  test('a user cannot get a token for an Org it is not in; without org_id it lands in its own', async () => {
    const refused = await token('trader', 'trader', 0);
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
    const unknown = await token('analyst', 'analyst', 12345);
    assert.equal(unknown.status, 401);
    const own = await token('trader', 'trader');
    assert.equal(own.body.scope.org_id, finance);
  });

  test('a TML import creates the answer in the importer\'s Org, unseen from another', async () => {
    const inFinance = await tokenIn('tsadmin', 'admin', finance);
    const tml = JSON.stringify({ answer: { name: 'Quotes by symbol', tables: [{ id: 'quotes', name: 'quotes' }], search_query: '[symbol] [price]' } });
    const r = await v2('/metadata/tml/import', { metadata_tmls: [tml] }, inFinance);
    assert.equal(r.body[0].response.status.status_code, 'OK', JSON.stringify(r.body));
    const names = async (t: string): Promise<string[]> => ((await v2('/metadata/search', { metadata: [{ type: 'ANSWER' }], record_size: -1 }, t)).body as { metadata_name: string }[]).map((x) => x.metadata_name);
    assert.ok((await names(inFinance)).includes('Quotes by symbol'));
    assert.ok(!(await names(await tokenIn('tsadmin', 'admin', 0))).includes('Quotes by symbol'));
    // an answer over a table of another Org is refused: the name is unknown in Primary
    const cross = await v2('/metadata/tml/import', { metadata_tmls: [tml] }, await tokenIn('tsadmin', 'admin', 0));
    assert.notEqual(cross.body[0].response.status.status_code, 'OK', JSON.stringify(cross.body));
  });
});

describe('a model and its input table run in one Org', () => {
  test('a worksheet TML import creates the model in the importer\'s Org; an input table on it is in that Org too', async () => {
    const inFinance = await tokenIn('tsadmin', 'admin', finance);
    const primary = await tokenIn('tsadmin', 'admin', 0);
    const tml = JSON.stringify({ worksheet: { name: 'Quote Symbols', tables: [{ name: 'quotes' }], worksheet_columns: [{ name: 'symbol', column_id: 'quotes::symbol' }] } });
    const r = await v2('/metadata/tml/import', { metadata_tmls: [tml] }, inFinance);
    assert.equal(r.body[0].response.status.status_code, 'OK', JSON.stringify(r.body));
    const created = await v2('/input-tables/create', { table_name: 'symbol_notes', model_identifier: 'Quote Symbols', table_definition: { referenced_columns: ['symbol'], new_columns: [{ name: 'note', data_type: 'VARCHAR', type: 'ATTRIBUTE' }] } }, inFinance);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const names = await tableNames(inFinance);
    assert.ok(names.includes('Quote Symbols') && names.includes('symbol_notes'), names.join());
    const seen = await tableNames(primary);
    assert.ok(!seen.includes('Quote Symbols') && !seen.includes('symbol_notes'), seen.join());
    assert.equal((await v2('/input-tables/create', { table_name: 'other', model_identifier: 'Quote Symbols', table_definition: { referenced_columns: ['symbol'], new_columns: [] } }, primary)).status, 404, 'the model is unknown in Primary');
  });
});

describe('a session runs in one Org (v1)', () => {
  test('login with orgid, list and switch through session/orgs; metadata and searchdata follow', async () => {
    const login = await v1Login('analyst', 'analyst', finance);
    assert.equal(login.status, 204);
    const names = async (): Promise<string[]> => ((await v1('GET', '/metadata/listobjectheaders', login.cookie, { type: 'LOGICAL_TABLE', batchsize: '-1' })).body as { name: string }[]).map((h) => h.name);
    assert.deepEqual(await names(), ['quotes']);
    const orgs = await v1('GET', '/session/orgs', login.cookie);
    assert.equal(orgs.status, 200, JSON.stringify(orgs.body));
    assert.equal(orgs.body.currentOrgId, finance);
    assert.deepEqual(orgs.body.orgs.map((o: { orgName: string }) => o.orgName).sort(), ['Finance', 'Primary']);
    const quotes = (await v1('GET', '/metadata/listobjectheaders', login.cookie, { type: 'LOGICAL_TABLE' })).body[0].id as string;
    const put = await v1('PUT', '/session/orgs', login.cookie, { orgid: '0' }, true);
    assert.equal(put.status, 204, JSON.stringify(put.body));
    const primary = await names();
    assert.ok(primary.includes('flights') && !primary.includes('quotes'));
    const search = await v1('POST', '/searchdata', login.cookie, { query_string: '[symbol]', data_source_guid: quotes });
    assert.equal(search.status, 403, JSON.stringify(search.body));
    const details = await v1('GET', '/metadata/details', login.cookie, { type: 'LOGICAL_TABLE', id: JSON.stringify([quotes]) });
    assert.equal(details.status, 403);
  });

  test('a switch to an Org the user is not in is refused; user/list shows the Org\'s principals', async () => {
    const trader = await v1Login('trader', 'trader');
    assert.equal(trader.status, 204);
    assert.equal((await v1('PUT', '/session/orgs', trader.cookie, { orgid: '0' }, true)).status, 400);
    assert.equal((await v1Login('trader', 'trader', 0)).status, 401);
    const admin = await v1Login('tsadmin', 'admin', finance);
    const list = await v1('GET', '/user/list', admin.cookie);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual((list.body as { name: string }[]).map((p) => p.name).sort(), ['Finance Analysts', 'analyst', 'trader']);
  });
});

describe('v2 Org operations', () => {
  test('create, add a user, search by user, rename, delete (its objects go)', async () => {
    const admin = await tokenIn('tsadmin', 'admin');
    const created = await v2('/orgs/create', { name: 'Scratch', description: 'for a test' }, admin);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.status, 'ACTIVE');
    const id = created.body.id as number;
    assert.ok(Number.isInteger(id));
    assert.equal((await v2('/orgs/create', { name: 'Scratch' }, admin)).status, 400, 'a name is one Org');
    assert.equal((await v2(`/orgs/${id}/update`, { user_identifiers: ['trader'] }, admin)).status, 204);
    const byUser = await v2('/orgs/search', { user_identifiers: ['trader'] }, admin);
    assert.deepEqual((byUser.body as { name: string }[]).map((o) => o.name).sort(), ['Finance', 'Scratch']);
    assert.equal((await v2(`/orgs/${id}/update`, { name: 'Scratch 2' }, admin)).status, 204);
    const t = await tokenIn('trader', 'trader', id);
    const tml = JSON.stringify({ answer: { name: 'x', tables: [{ id: 'quotes', name: 'quotes' }], search_query: '[symbol]' } });
    const imported = await v2('/metadata/tml/import', { metadata_tmls: [tml] }, t);
    assert.ok(imported.status !== 200 || imported.body[0].response.status.status_code !== 'OK', `Finance tables are not in Scratch: ${JSON.stringify(imported.body)}`);
    assert.deepEqual(await tableNames(t), [], 'a new Org has no objects');
    assert.equal((await v2('/orgs/Scratch 2/delete', {}, admin)).status, 204);
    assert.equal((await v2('/metadata/search', {}, t)).status, 401, 'a token of a deleted Org ends');
    assert.equal((await v2('/orgs/0/delete', {}, admin)).status, 400, 'Primary stays');
    assert.deepEqual(((await v2('/orgs/search', {}, admin)).body as { name: string }[]).map((o) => o.name).sort(), ['Finance', 'Primary']);
  });
});

describe('the administrator of every Org', () => {
  test('tsadmin reaches every Org, one it was never added to included, in v2 and v1; analyst only its own two', async () => {
    const admin = await tokenIn('tsadmin', 'admin');
    const created = await v2('/orgs/create', { name: 'Audit' }, admin);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const audit = created.body.id as number;
    try {
      const all = (await v2('/orgs/search', {}, admin)).body as { id: number; name: string }[];
      assert.deepEqual(all.map((o) => o.name).sort(), ['Audit', 'Finance', 'Primary']);
      const expected: Record<string, string[]> = { Primary: ['flights'], Finance: ['quotes'], Audit: [] };
      for (const org of all) {
        const t = await tokenIn('tsadmin', 'admin', org.id);
        const user = await fetch(`${core.emu.url}${V2}/auth/session/user`, { headers: { authorization: `Bearer ${t}` } });
        assert.equal(((await user.json()) as { current_org: { id: number } }).current_org.id, org.id, org.name);
        const names = await tableNames(t);
        for (const n of expected[org.name]!) assert.ok(names.includes(n), `${org.name}: ${names.join()}`);
        if (org.name === 'Audit') assert.deepEqual(names, [], 'a new Org has no objects');
        if (org.name !== 'Finance') assert.ok(!names.includes('quotes'), `${org.name}: ${names.join()}`);
      }
      // v1: the session lists every Org and switches to each
      const login = await v1Login('tsadmin', 'admin');
      const listed = (await v1('GET', '/session/orgs', login.cookie)).body as { orgs: { orgId: number; orgName: string }[] };
      assert.deepEqual(listed.orgs.map((o) => o.orgName).sort(), ['Audit', 'Finance', 'Primary']);
      for (const o of listed.orgs) {
        assert.equal((await v1('PUT', '/session/orgs', login.cookie, { orgid: String(o.orgId) }, true)).status, 204, o.orgName);
        assert.equal(((await v1('GET', '/session/orgs', login.cookie)).body as { currentOrgId: number }).currentOrgId, o.orgId);
      }
      // a user of two Orgs reaches neither the third by token, login nor switch, and is not shown it
      assert.equal((await token('analyst', 'analyst', audit)).status, 401);
      assert.equal((await token('analyst', 'analyst', 'Audit')).status, 401);
      assert.equal((await v1Login('analyst', 'analyst', audit)).status, 401);
      const analyst = await v1Login('analyst', 'analyst');
      assert.equal((await v1('PUT', '/session/orgs', analyst.cookie, { orgid: String(audit) }, true)).status, 400);
      assert.deepEqual(((await v1('GET', '/session/orgs', analyst.cookie)).body as { orgs: { orgName: string }[] }).orgs.map((o) => o.orgName).sort(), ['Finance', 'Primary']);
    } finally {
      assert.equal((await v2(`/orgs/${audit}/delete`, {}, admin)).status, 204);
    }
  });
});

describe('seed Orgs', () => {
  test('model.json declares Orgs; an object of an undeclared Org is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsq-orgs-seed-'));
    try {
      const model = {
        orgs: [{ name: 'East' }],
        groups: [{ name: 'Admins', privileges: ['ADMINISTRATION'] }, { name: 'East Team', privileges: ['AUTHORING'], org: 'East' }],
        users: [{ name: 'root', password: 'pw', groups: ['Admins'] }, { name: 'east', password: 'pw', groups: ['East Team'], orgs: ['East'] }],
        tables: [{ name: 'sales', database: 'east', org: 'East', sharedWith: ['East Team'], columns: [{ name: 'region', dataType: 'VARCHAR' }] }],
      };
      writeFileSync(join(dir, 'model.json'), JSON.stringify(model));
      const emu = await startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir });
      try {
        const r = await fetch(`${emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'east', password: 'pw' }) });
        const t = ((await r.json()) as { token: string }).token;
        const s = await fetch(`${emu.url}${V2}/metadata/search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` }, body: '{}' });
        assert.deepEqual(((await s.json()) as { metadata_name: string }[]).map((x) => x.metadata_name), ['sales']);
      } finally {
        await emu.close();
      }
      writeFileSync(join(dir, 'model.json'), JSON.stringify({ ...model, tables: [{ ...model.tables[0], org: 'West' }] }));
      await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'data2'), seed: dir }), /unknown org West/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('exported TML of an own object parses', async () => {
    const t = await tokenIn('analyst', 'analyst', finance);
    const r = await v2('/metadata/tml/export', { metadata: [{ identifier: 'quotes', type: 'LOGICAL_TABLE' }], edoc_format: 'YAML' }, t);
    assert.equal(r.body[0].info.status.status_code, 'OK', JSON.stringify(r.body));
    assert.equal(parse(r.body[0].edoc as string).table.name, 'quotes');
  });
});
