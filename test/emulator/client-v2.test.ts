// The client against today's service (common/src/api/serviceToday.ts, publicApiV2.ts): REST API v2 with
// bearer tokens from a password, a secret key or a given token; the API generation per connection; token
// renewal (driven by one clock shared with the emulator, never by waiting); the rate limit and 429s.
// Every test talks to a real emulator over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationError, HttpSessionForTests, rateLimitHooks, ServiceError, type RequestLogInfo } from './client-v2-support';
import { ADMIN, ANALYST, startLive, type Live } from './client-support';
import { ServiceCatalog } from '../../common/src/catalog';

let clock = 1_900_000_000_000;
let both: Live;
let v2only: Live;

before(async () => {
  both = await startLive({ options: { trustedAuthSecret: 'trusted-s3cret', tokenClock: () => clock } });
  v2only = await startLive({ options: { publicApi: 'v2', trustedAuthSecret: 'trusted-s3cret', tokenClock: () => clock } });
});
after(async () => {
  await both?.stop();
  await v2only?.stop();
});

function logTo(list: RequestLogInfo[]): (i: RequestLogInfo) => void {
  return (i) => list.push(i);
}

async function adminToken(live: Live, validity = 300): Promise<string> {
  const r = await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...ADMIN, validity_time_in_sec: validity }) });
  return ((await r.json()) as { token: string }).token;
}

describe('v2 with a password', () => {
  test('the features work against a v2-only service: objects, columns, a paged search', async () => {
    const log: RequestLogInfo[] = [];
    const c = v2only.client(ANALYST, { apiVersion: 'v2', clock: () => clock, onRequest: logTo(log) });
    const tables = await c.listObjectHeaders({ type: 'LOGICAL_TABLE', sort: 'NAME', batchSize: -1 });
    const flights = tables.find((t) => t.name === 'flights')!;
    assert.equal(flights.type, 'ONE_TO_ONE_LOGICAL');
    // the columns as every front end reads them: the service catalog over this client (common/src/catalog)
    const cols = await new ServiceCatalog(c).columns(flights.id);
    assert.ok(cols!.columns.some((col) => col.name === 'delay' && col.dataType === 'INT32' && col.kind === 'MEASURE'));
    const pages = [];
    for await (const p of c.searchAllPages({ queryString: '[origin] [delay] sort by [origin]', dataSourceGuid: flights.id, pageSize: 7 })) pages.push(p);
    const one = await c.searchData({ queryString: '[origin] [delay] sort by [origin]', dataSourceGuid: flights.id, batchSize: 1000 });
    assert.ok(pages.length > 1);
    assert.deepEqual(pages.flatMap((p) => p.data), one.data);
    assert.equal(one.totalRowCount, one.data.length);
    const boards = await c.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' });
    const ops = boards.find((b) => b.name === 'Flight Operations')!;
    assert.equal((await c.listVizHeaders(ops.id)).length, 3);
    assert.equal((await c.v2.sessionUser()).name, 'analyst');
    // one token, sent as a bearer; nothing went to /tspublic/v1
    assert.equal(log.filter((l) => l.operation === 'getToken').length, 1);
    assert.ok(log.every((l) => !l.path.includes('/tspublic/v1')));
  });

  test('apiVersion auto: v2 where v1 answers 404, v1 (cookie) where both answer; probed once', async () => {
    const log: RequestLogInfo[] = [];
    const a = v2only.client(ADMIN, { apiVersion: 'auto', onRequest: logTo(log) });
    assert.equal(await a.apiGeneration(), 'v2');
    await a.listObjectHeaders();
    await a.listObjectHeaders();
    assert.equal(log.filter((l) => l.operation === 'probeApiVersion').length, 1);
    const b = both.client(ADMIN, { apiVersion: 'auto' });
    assert.equal(await b.apiGeneration(), 'v1');
    assert.ok((await b.listObjectHeaders()).length > 0);
  });

  test('pinboard data over v2 (metadata/liveboard/data) is what v1 pinboarddata gives', async () => {
    const v1 = both.client(ADMIN);
    const v2 = both.client(ADMIN, { apiVersion: 'v2', clock: () => clock });
    const board = (await v1.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' })).find((b) => b.name === 'Flight Operations')!;
    const a = await v1.pinboardData({ id: board.id, batchSize: 50 });
    const b = await v2.pinboardData({ id: board.id, batchSize: 50 });
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
    for (const [viz, r] of Object.entries(a)) {
      assert.equal(b[viz]!.name, r.name);
      assert.deepEqual(b[viz]!.columnNames, r.columnNames);
      assert.deepEqual(b[viz]!.data, r.data);
      assert.equal(b[viz]!.totalRowCount, r.totalRowCount);
    }
  });

  test('sign-out revokes the token', async () => {
    const c = v2only.client(ADMIN, { apiVersion: 'v2', clock: () => clock });
    await c.listObjectHeaders();
    const token = (await c.tokens.headers()).authorization.slice(7);
    await c.logout();
    const r = await fetch(`${v2only.emu.url}/api/rest/2.0/auth/session/user`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 401);
  });
});

describe('given tokens and trusted authentication', () => {
  test('a given token is sent as a bearer to v1 and v2', async () => {
    const token = await adminToken(both);
    const v1 = both.client(ADMIN, { bearer: { getToken: () => token }, password: undefined, getPassword: undefined });
    assert.ok((await v1.listObjectHeaders()).length > 0);
    const v2 = both.client(ADMIN, { apiVersion: 'v2', bearer: { getToken: () => token }, password: undefined, getPassword: undefined });
    assert.ok((await v2.listObjectHeaders()).length > 0);
  });

  test('a revoked or foreign token: one sign-in attempt, then a message naming the origin (never the token)', async () => {
    const foreign = await adminToken(both); // issued by the other "cluster"
    const log: RequestLogInfo[] = [];
    const c = v2only.client(ADMIN, { apiVersion: 'v2', bearer: { getToken: () => foreign }, password: undefined, getPassword: undefined, onRequest: logTo(log) });
    const e = await c.listObjectHeaders().then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof AuthenticationError, String(e));
    assert.match(e.message, new RegExp(`${v2only.emu.url.replace(/[.:/]/g, '\\$&')}`));
    assert.match(e.message, /expired, was revoked, or was issued by another cluster/);
    assert.ok(!e.message.includes(foreign));
    assert.equal(log.length, 1);
    // and no storm: the next call fails at once
    await assert.rejects(c.listObjectHeaders(), AuthenticationError);
    assert.equal(log.length, 1);
  });

  test('secret_key gives a token; a wrong one is an authentication error without a retry storm', async () => {
    const ok = v2only.client(ANALYST, { apiVersion: 'v2', password: undefined, getPassword: undefined, bearer: { getSecretKey: () => 'trusted-s3cret' } });
    assert.equal((await ok.v2.sessionUser()).name, 'analyst');
    const log: RequestLogInfo[] = [];
    const bad = v2only.client(ANALYST, { apiVersion: 'v2', password: undefined, getPassword: undefined, bearer: { getSecretKey: () => 'wrong' }, onRequest: logTo(log) });
    for (let i = 0; i < 5; i++) {
      const e = await bad.searchData({ queryString: '[origin]', dataSourceGuid: 'flights' }).then(() => undefined, (x: unknown) => x);
      assert.ok(e instanceof AuthenticationError);
      assert.match(e.message, /secret key/);
      assert.ok(!e.message.includes('wrong'));
    }
    assert.equal(log.length, 1, 'one token request for five calls');
  });
});

describe('token renewal', () => {
  test('a token is renewed before it expires; a token revoked mid-run is replaced once after the 401', async () => {
    const log: RequestLogInfo[] = [];
    const c = v2only.client(ADMIN, { apiVersion: 'v2', bearer: { validitySec: 60 }, clock: () => clock, onRequest: logTo(log) });
    await c.listObjectHeaders();
    clock += 55_000; // within the last tenth of the token's life
    await c.listObjectHeaders();
    assert.equal(c.tokens.obtained, 2);
    assert.ok(log.every((l) => l.status !== 401));
    // revoked behind the client's back
    const token = (await c.tokens.headers()).authorization.slice(7);
    await fetch(`${v2only.emu.url}/api/rest/2.0/auth/token/revoke`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    await c.listObjectHeaders();
    assert.equal(c.tokens.obtained, 3);
    assert.equal(log.filter((l) => l.status === 401).length, 1);
  });

  test('a simulated two-hour session with 60-second tokens has no authentication failure', async () => {
    const log: RequestLogInfo[] = [];
    const c = v2only.client(ANALYST, { apiVersion: 'v2', bearer: { validitySec: 60 }, clock: () => clock, onRequest: logTo(log) });
    const flights = (await c.listObjectHeaders({ pattern: 'flights' }))[0]!;
    const start = clock;
    let calls = 0;
    while (clock - start < 2 * 3600_000) {
      clock += 15_000;
      if (calls % 2) await c.searchData({ queryString: '[origin] [delay] top 3', dataSourceGuid: flights.id, batchSize: 3 });
      else await c.metadataDetails('LOGICAL_TABLE', [flights.id]);
      calls++;
    }
    assert.ok(calls >= 480);
    assert.equal(log.filter((l) => l.status === 401 || l.status === 403).length, 0);
    assert.ok(c.tokens.obtained >= 120, `tokens obtained: ${c.tokens.obtained}`);
  });
});

describe('rate limit', () => {
  test('500 completions and tree expansions at once against --rate-limit 20 all get their answer', async () => {
    const live = await startLive({ options: { publicApi: 'v2', rateLimit: 20 } });
    try {
      const c = live.client(ANALYST, { apiVersion: 'v2' });
      const flights = (await c.listObjectHeaders({ pattern: 'flights' }))[0]!;
      const results = await Promise.allSettled(
        Array.from({ length: 500 }, (_, i) => (i % 2 ? c.metadataDetails('LOGICAL_TABLE', [flights.id]) : c.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: 5 }))),
      );
      const failed = results.filter((r) => r.status === 'rejected');
      assert.equal(failed.length, 0, failed.slice(0, 3).map((f) => String((f as PromiseRejectedResult).reason)).join('\n'));
    } finally {
      await live.stop();
    }
  });

  test('a call that must not be sent twice (a chunk, a commit) is never retried on 429', async () => {
    const live = await startLive({ options: { rateLimit: 1 } });
    try {
      const log: RequestLogInfo[] = [];
      const token = await adminToken(live);
      const s = new HttpSessionForTests(live.emu.url, logTo(log));
      s.hooks = rateLimitHooks(undefined);
      const send = (repeatable: boolean) =>
        s.call({ operation: 'uploadChunk', method: 'GET', path: '/api/rest/2.0/auth/session/user', headers: { authorization: `Bearer ${token}` }, repeatable, authenticated: false });
      await send(true).catch(() => undefined);
      const before = log.length;
      const e = await send(false).then(() => undefined, (x: unknown) => x);
      assert.ok(e instanceof ServiceError && e.status === 429, String(e));
      assert.equal(log.length - before, 1, 'sent once, not again after the 429');
      // a repeatable call waits for Retry-After and gets its answer
      const r = await send(true);
      assert.equal(r.status, 200);
    } finally {
      await live.stop();
    }
  });
});
