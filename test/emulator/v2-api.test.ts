// REST API v2 subset of the emulator (emulator/src/v2/): tokens (password, secret_key, validity,
// revoke), bearer tokens on v1, searchdata paging, metadata/search, --public-api and --rate-limit.
// Plain fetch against a real emulator; token expiry is driven by the emulator's token clock, never by
// waiting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, PREFIX, type Core } from './core-support';

const V2 = '/api/rest/2.0';

async function v2(url: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${url}${V2}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
}

async function v1(url: string, path: string, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${url}${PREFIX}${path}`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

let core: Core;
let clock = 1_800_000_000_000;

before(async () => {
  core = await startCore({ trustedAuthSecret: 'the-secret', tokenClock: () => clock });
});
after(async () => core?.stop());

async function token(username = 'tsadmin', password = 'admin', validity?: number): Promise<string> {
  const r = await v2(core.emu.url, 'POST', '/auth/token/full', { username, password, ...(validity ? { validity_time_in_sec: validity } : {}) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.token as string;
}

describe('auth/token/full', () => {
  test('username + password: a token with its times and user; default validity 300 s', async () => {
    const r = await v2(core.emu.url, 'POST', '/auth/token/full', { username: 'analyst', password: 'analyst' });
    assert.equal(r.status, 200);
    assert.equal(typeof r.body.token, 'string');
    assert.equal(r.body.creation_time_in_millis, clock);
    assert.equal(r.body.expiration_time_in_millis, clock + 300_000);
    assert.equal(r.body.valid_for_username, 'analyst');
    assert.match(r.body.valid_for_user_id, /^[0-9a-f-]{36}$/);
  });
  test('a wrong password is 401 in the v2 error shape', async () => {
    const r = await v2(core.emu.url, 'POST', '/auth/token/full', { username: 'analyst', password: 'nope' });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.message.code, 10097);
    assert.match(r.body.error.message.trace_id_guid, /^[0-9a-f-]{36}$/);
    assert.match(r.body.error.message.debug, /wrong user name or password/);
  });
  test('secret_key (trusted authentication) gives a token without a password; a wrong one is 401', async () => {
    const ok = await v2(core.emu.url, 'POST', '/auth/token/full', { username: 'analyst', secret_key: 'the-secret', validity_time_in_sec: 60 });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.expiration_time_in_millis - ok.body.creation_time_in_millis, 60_000);
    const bad = await v2(core.emu.url, 'POST', '/auth/token/full', { username: 'analyst', secret_key: 'guess' });
    assert.equal(bad.status, 401);
    assert.doesNotMatch(JSON.stringify(bad.body), /the-secret/);
  });
  test('validity_time_in_sec is honoured: the token works until then, then 401 on v1 and v2', async () => {
    const t = await token('analyst', 'analyst', 60);
    clock += 59_000;
    assert.equal((await v2(core.emu.url, 'GET', '/auth/session/user', undefined, t)).status, 200);
    assert.equal((await v1(core.emu.url, '/metadata/listobjectheaders?type=LOGICAL_TABLE', t)).status, 200);
    clock += 1_000;
    assert.equal((await v2(core.emu.url, 'GET', '/auth/session/user', undefined, t)).status, 401);
    assert.equal((await v1(core.emu.url, '/metadata/listobjectheaders?type=LOGICAL_TABLE', t)).status, 401);
  });
});

describe('auth/token/revoke and auth/session/user', () => {
  test('session/user names the caller; after revoke the token is refused everywhere', async () => {
    const t = await token('analyst', 'analyst');
    const me = await v2(core.emu.url, 'GET', '/auth/session/user', undefined, t);
    assert.equal(me.status, 200);
    assert.equal(me.body.name, 'analyst');
    assert.ok(me.body.privileges.includes('AUTHORING'));
    const r = await v2(core.emu.url, 'POST', '/auth/token/revoke', {}, t);
    assert.equal(r.status, 204);
    assert.equal((await v2(core.emu.url, 'GET', '/auth/session/user', undefined, t)).status, 401);
    assert.equal((await v1(core.emu.url, '/metadata/listobjectheaders', t)).status, 401);
  });
  test('without a token every v2 route but token/full is 401', async () => {
    assert.equal((await v2(core.emu.url, 'GET', '/auth/session/user')).status, 401);
    assert.equal((await v2(core.emu.url, 'POST', '/searchdata', { query_string: '[origin]', logical_table_identifier: 'flights' })).status, 401);
  });
});

describe('searchdata and metadata/search', () => {
  test('searchdata pages by record_offset and record_size over the same data as v1', async () => {
    const t = await token();
    const q = { query_string: '[origin] [delay] sort by [origin]', logical_table_identifier: 'flights' };
    const first = await v2(core.emu.url, 'POST', '/searchdata', { ...q, record_offset: 0, record_size: 5 }, t);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const c0 = first.body.contents[0];
    assert.deepEqual(c0.column_names, ['origin', 'Total delay']);
    assert.equal(c0.returned_data_row_count, 5);
    assert.equal(c0.record_offset, 0);
    assert.equal(c0.record_size, 5);
    assert.equal(c0.sampling_ratio, 1);
    const all = await v2(core.emu.url, 'POST', '/searchdata', { ...q, record_size: -1 }, t);
    const rows = all.body.contents[0].data_rows as unknown[][];
    assert.equal(all.body.contents[0].available_data_row_count, rows.length);
    const second = await v2(core.emu.url, 'POST', '/searchdata', { ...q, record_offset: 5, record_size: 5 }, t);
    assert.deepEqual([...c0.data_rows, ...second.body.contents[0].data_rows], rows.slice(0, 10));
    const full = await v2(core.emu.url, 'POST', '/searchdata', { ...q, record_size: 1, data_format: 'FULL' }, t);
    assert.deepEqual(Object.keys(full.body.contents[0].data_rows[0]).sort(), ['Total delay', 'origin']);
  });
  test('searchdata: default record_size is 10; an unknown data source and a bad query are 400', async () => {
    const t = await token();
    const r = await v2(core.emu.url, 'POST', '/searchdata', { query_string: '[origin]', logical_table_identifier: 'flights' }, t);
    assert.equal(r.body.contents[0].returned_data_row_count, 10);
    assert.equal((await v2(core.emu.url, 'POST', '/searchdata', { query_string: '[origin]', logical_table_identifier: 'nowhere' }, t)).status, 400);
    const bad = await v2(core.emu.url, 'POST', '/searchdata', { query_string: '[no such column]', logical_table_identifier: 'flights' }, t);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message.debug, /no such column/i);
  });
  test('metadata/search lists data sources with their columns (include_details) and liveboards with visualizations', async () => {
    const t = await token();
    const r = await v2(core.emu.url, 'POST', '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE', name_pattern: 'fli%' }], include_details: true, record_size: -1 }, t);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const flights = (r.body as any[]).find((o) => o.metadata_name === 'flights');
    assert.equal(flights.metadata_type, 'LOGICAL_TABLE');
    assert.equal(flights.metadata_header.type, 'ONE_TO_ONE_LOGICAL');
    const cols = flights.metadata_detail.columns.map((c: any) => `${c.header.name}:${c.dataType}:${c.type}`);
    assert.ok(cols.includes('delay:INT32:MEASURE'), cols.join());
    assert.ok((r.body as any[]).some((o) => o.metadata_header.type === 'WORKSHEET'));
    const boards = await v2(core.emu.url, 'POST', '/metadata/search', { metadata: [{ type: 'LIVEBOARD' }], include_visualization_headers: true, record_size: -1 }, t);
    const ops = (boards.body as any[]).find((o) => o.metadata_name === 'Flight Operations');
    assert.equal(ops.visualization_headers.length, 3);
    const byId = await v2(core.emu.url, 'POST', '/metadata/search', { metadata: [{ identifier: flights.metadata_id }] }, t);
    assert.deepEqual(byId.body.map((o: any) => o.metadata_name), ['flights']);
    const page = await v2(core.emu.url, 'POST', '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], record_offset: 1, record_size: 2, sort_options: { field_name: 'NAME', order: 'ASC' } }, t);
    assert.equal(page.body.length, 2);
  });
  test('an analyst does not see objects shared with nobody it belongs to (same rules as v1)', async () => {
    const t = await token('analyst', 'analyst');
    const v2names = ((await v2(core.emu.url, 'POST', '/metadata/search', { metadata: [{ type: 'LOGICAL_TABLE' }], record_size: -1 }, t)).body as any[]).map((o) => o.metadata_name).sort();
    const v1names = ((await v1(core.emu.url, '/metadata/listobjectheaders?type=LOGICAL_TABLE&batchsize=-1', t)).body as any[]).map((o) => o.name).sort();
    assert.deepEqual(v2names, v1names);
  });
});

describe('calendars/search (OpenAPI searchCalendars; connections-cust-cal)', () => {
  test('the demo\'s custom calendar, filtered by name pattern and connection; DATAMANAGEMENT or ADMINISTRATION only', async () => {
    const t = await token();
    const all = await v2(core.emu.url, 'POST', '/calendars/search', {}, t);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual((all.body as any[]).map((c) => [c.calendar_name, c.connection_name, typeof c.calendar_id, typeof c.modification_time_in_millis]), [['retail', 'demo', 'string', 'string']]);
    assert.deepEqual((await v2(core.emu.url, 'POST', '/calendars/search', { name_pattern: 'ret%' }, t)).body.map((c: any) => c.calendar_name), ['retail']);
    assert.deepEqual((await v2(core.emu.url, 'POST', '/calendars/search', { name_pattern: 'fisc%' }, t)).body, []);
    assert.deepEqual((await v2(core.emu.url, 'POST', '/calendars/search', { connection_identifier: 'elsewhere' }, t)).body, []);
    assert.deepEqual((await v2(core.emu.url, 'POST', '/calendars/search', { connection_identifier: (all.body as any[])[0].connection_id }, t)).body.length, 1);
    const analyst = await v2(core.emu.url, 'POST', '/calendars/search', {}, await token('analyst', 'analyst'));
    assert.equal(analyst.status, 403);
  });
});

describe('--public-api and --rate-limit', () => {
  test('--public-api v2: every /tspublic/v1 path is 404 with and without /callosum; v2 and the load API answer', async () => {
    const c = await startCore({ publicApi: 'v2' });
    try {
      for (const p of ['/callosum/v1/tspublic/v1/session/login', '/tspublic/v1/metadata/listobjectheaders', '/callosum/v1/tspublic/v1/searchdata']) {
        const r = await fetch(`${c.emu.url}${p}`, { method: 'POST' });
        assert.equal(r.status, 404, p);
      }
      assert.equal((await v2(c.emu.url, 'POST', '/auth/token/full', { username: 'tsadmin', password: 'admin' })).status, 200);
      const ping = await fetch(`${c.emu.url}/ts_dataservice/v1/public/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
      assert.equal(ping.status, 200);
    } finally {
      await c.stop();
    }
  });
  test('--public-api v1: no v2 route exists', async () => {
    const c = await startCore({ publicApi: 'v1' });
    try {
      assert.equal((await v2(c.emu.url, 'POST', '/auth/token/full', { username: 'tsadmin', password: 'admin' })).status, 404);
      assert.equal((await fetch(`${c.emu.url}${PREFIX}/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=tsadmin&password=admin' })).status, 204);
    } finally {
      await c.stop();
    }
  });
  test('--rate-limit N: more than N requests in a second from one address get 429 with Retry-After, v1 and v2 alike', async () => {
    const c = await startCore({ rateLimit: 5 });
    try {
      const t = (await v2(c.emu.url, 'POST', '/auth/token/full', { username: 'tsadmin', password: 'admin' })).body.token as string;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(i % 2 ? `${c.emu.url}${V2}/auth/session/user` : `${c.emu.url}${PREFIX}/metadata/listobjectheaders`, { headers: { authorization: `Bearer ${t}` } }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as any, v2: i % 2 === 1 })),
        ),
      );
      const limited = results.filter((r) => r.status === 429);
      assert.ok(limited.length >= 20, `expected most of 30 requests over a limit of 5/s to be refused, got ${limited.length}`);
      for (const r of limited) {
        assert.match(r.retryAfter ?? '', /^\d+$/);
        if (r.v2) assert.match(r.body.error.message.debug, /Too many requests/);
        else assert.equal(r.body.type, 'Error');
      }
      assert.ok(limited.some((r) => r.v2) && limited.some((r) => !r.v2));
    } finally {
      await c.stop();
    }
  });
});
