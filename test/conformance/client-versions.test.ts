// TSQ's client against answers the documentation allows but the emulator does not give: a login that
// answers 200 "User logged in" with a body (https://developers.thoughtspot.com/docs/api-auth-session
// lists both 200 and 204), a transfer/ownership that answers 200 with no body (the 2018 page of
// https://docs.thoughtspot.com/software/6.0/user-api), reads that answer 204 with no body, and a
// searchdata whose `offset` counts from 1 (the searchdata page says "1-based") rather than from 0 (as the
// emulator and working clients do). A small HTTP server on 127.0.0.1 plays such a cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnalyticsServiceClient, nextOffset } from '../../common/src/api';

const ROWS = Array.from({ length: 12 }, (_, i) => [`row${i + 1}`]);
let server: Server;
let url: string;
/** The base of `offset` the played cluster uses. */
let base: 0 | 1 = 1;
const seen: { method: string; path: string; contentType: string }[] = [];

function searchPage(q: URLSearchParams): Record<string, unknown> {
  const batch = Number(q.get('batchsize') ?? -1);
  const offset = Number(q.get('offset') ?? -1);
  const start = offset === -1 ? 0 : offset - base;
  const data = ROWS.slice(start, batch === -1 ? undefined : start + batch);
  return { columnNames: ['name'], data, samplingRatio: 1, totalRowCount: ROWS.length, rowCount: data.length, pageSize: batch, offset: start + base };
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? '/', 'http://x');
  const path = u.pathname.replace('/callosum/v1/tspublic/v1', '');
  seen.push({ method: req.method ?? '', path, contentType: String(req.headers['content-type'] ?? '') });
  const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  req.resume();
  req.on('end', () => {
    if (path === '/session/login') {
      res.setHeader('set-cookie', ['JSESSIONID=abc; Path=/; HttpOnly', 'clientId=def; Path=/; HttpOnly']);
      return json(200, { userName: 'tsadmin', message: 'User logged in' });
    }
    if (!String(req.headers.cookie ?? '').includes('JSESSIONID=abc')) return json(401, { debug: '["Unable to verify user. Please login again."]' });
    if (path === '/metadata/listobjectheaders' || path === '/user/list') return res.writeHead(204).end();
    if (path === '/user/transfer/ownership') return res.writeHead(200).end();
    if (path.startsWith('/materialization/refreshview/')) return json(200, { status: 'submitted' });
    if (path === '/searchdata') return json(200, searchPage(u.searchParams));
    return json(404, { debug: '["no such operation"]' });
  });
}

before(async () => {
  server = createServer(answer);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((done) => server.close(done));
});

test('a login answering 200 with a body, a transfer answering 200 with none, and reads answering 204 are all successes', async () => {
  const client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
  try {
    await client.login();
    assert.deepEqual(await client.listObjectHeaders({ type: 'LOGICAL_TABLE' }), [], 'a 204 list is an empty list');
    assert.deepEqual(await client.listPrincipals(), []);
    await client.transferOwnership({ fromUserName: 'a', toUserName: 'b' });
    assert.deepEqual(await client.refreshMaterializedView('e27f3c1c-a9cd-4996-9029-097449cd6f60'), { status: 'submitted' });
    const refresh = seen.find((s) => s.path.startsWith('/materialization/refreshview/'));
    assert.equal(refresh?.contentType, '*/*', 'sent as the example sends it');
  } finally {
    await client.close();
  }
});

for (const b of [0, 1] as const) {
  test(`offset paging reads every row once when the service counts offsets from ${b}`, async () => {
    base = b;
    const client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
    try {
      const rows: unknown[] = [];
      let offset = -1;
      for (;;) {
        const page = await client.searchData({ queryString: '[name]', dataSourceGuid: 'e27f3c1c-a9cd-4996-9029-097449cd6f60', batchSize: 5, offset });
        rows.push(...page.data);
        if (page.rowCount < 5) break;
        offset = nextOffset(page);
      }
      assert.deepEqual(rows, ROWS);
    } finally {
      await client.close();
    }
  });
}
