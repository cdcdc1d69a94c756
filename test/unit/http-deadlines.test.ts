/**
 * Deadlines of the service client (common/src/api/session.ts): a service that accepts the connection
 * and then says nothing, or stops in the middle of its answer, ends the call with a `TimeoutError` that
 * names the host, the call and the setting to raise; a chunk's deadline grows with its size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnalyticsServiceClient, TimeoutError, callDeadlines, deadlineClassOf } from '../../common/src/api';

/** A real HTTP server on 127.0.0.1 that answers login and then behaves as `onSearch` says. */
async function service(onSearch: (res: ServerResponse) => void): Promise<{ url: string; server: Server; open: Set<ServerResponse> }> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (req.url?.includes('/session/login')) {
      res.writeHead(204, { 'set-cookie': 'JSESSIONID=abc; Path=/' }).end();
      return;
    }
    open.add(res);
    onSearch(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, open };
}

const settingNames = { metadata: 'tsq.http.metadataTimeout', query: 'tsq.http.queryTimeout', upload: 'tsq.http.uploadTimeout', connect: 'tsq.http.connectTimeout' };

test('a searchdata that gets no answer ends with a TimeoutError naming host, call and setting', async () => {
  const svc = await service(() => undefined); // never answers
  const client = new AnalyticsServiceClient({ url: svc.url, username: 'u', password: 'p', timeouts: { query: 0.5, settingNames } });
  try {
    const e = await client.searchData({ queryString: '[a]', dataSourceGuid: 'x' }).then(
      () => assert.fail('the call answered'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof TimeoutError, String(e));
    assert.equal(e.phase, 'headers');
    assert.equal(e.timeoutMs, 500);
    assert.equal(e.aborted, false);
    const host = new URL(svc.url).host;
    assert.match(e.message, new RegExp(`^searchData \\(POST /callosum/v1/tspublic/v1/searchdata\\) got no answer from ${host.replace(/\./g, '\\.')} within 0\\.5 s`));
    assert.match(e.message, /raise tsq\.http\.queryTimeout\.$/);
  } finally {
    for (const r of svc.open) r.destroy();
    await client.close();
    svc.server.close();
  }
});

test('an answer that stops in the middle ends with the idle-body deadline', async () => {
  const svc = await service((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
  });
  const client = new AnalyticsServiceClient({ url: svc.url, username: 'u', password: 'p', timeouts: { metadata: 0.4, settingNames } });
  try {
    const e = await client.listObjectHeaders({ type: 'LOGICAL_TABLE' }).then(
      () => assert.fail('the call answered'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof TimeoutError, String(e));
    assert.equal(e.phase, 'body');
    assert.match(e.message, /listObjectHeaders \(GET .*\) stopped receiving the answer from 127\.0\.0\.1:\d+ for 0\.4 s/);
    assert.match(e.message, /raise tsq\.http\.metadataTimeout\./);
  } finally {
    for (const r of svc.open) r.destroy();
    await client.close();
    svc.server.close();
  }
});

test('an abort is not a timeout', async () => {
  const svc = await service(() => undefined);
  const client = new AnalyticsServiceClient({ url: svc.url, username: 'u', password: 'p', timeouts: { query: 30 } });
  try {
    const ctl = new AbortController();
    const pending = client.searchData({ queryString: '[a]', dataSourceGuid: 'x' }, { signal: ctl.signal });
    setImmediate(() => ctl.abort());
    const e = await pending.then(() => assert.fail('answered'), (err: unknown) => err);
    assert.ok(!(e instanceof TimeoutError));
    assert.equal((e as { aborted?: boolean }).aborted, true);
  } finally {
    for (const r of svc.open) r.destroy();
    await client.close();
    svc.server.close();
  }
});

test('each call gets the deadlines of its kind; a chunk’s grows with its size', () => {
  assert.equal(deadlineClassOf('metadataDetails'), 'metadata');
  assert.equal(deadlineClassOf('listObjectHeaders'), 'metadata');
  assert.equal(deadlineClassOf('searchData'), 'query');
  assert.equal(deadlineClassOf('pinboardData'), 'query');
  assert.equal(deadlineClassOf('uploadChunk'), 'upload');
  assert.deepEqual(callDeadlines(undefined, 'login'), { headersMs: 30_000, bodyMs: 30_000, setting: 'metadata timeout' });
  assert.deepEqual(callDeadlines({ query: 60, settingNames }, 'searchData'), { headersMs: 60_000, bodyMs: 60_000, setting: 'tsq.http.queryTimeout' });
  const small = callDeadlines({ upload: 100, uploadPerMiB: 2 }, 'uploadChunk', 1024 * 1024);
  const big = callDeadlines({ upload: 100, uploadPerMiB: 2 }, 'uploadChunk', 64 * 1024 * 1024);
  assert.equal(small.headersMs, 102_000);
  assert.equal(big.headersMs, 228_000);
  assert.equal(big.bodyMs, 100_000);
  assert.deepEqual(callDeadlines({ query: 0 }, 'searchData'), { setting: 'query timeout' });
});
