// The client (common/src/api) against tiny local HTTP servers that produce faults an emulator does not:
// a 401 once, a dropped connection mid-upload, a node_address redirect to a second port, a server that
// never answers, a self-signed TLS certificate. The servers are real sockets; the fault is the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import {
  AnalyticsServiceClient,
  AuthenticationError,
  ChunkSourceError,
  ConnectionError,
  LoadFailedError,
  NotFoundError,
  PermissionError,
  ServiceError,
  type RequestLogInfo,
} from '../../common/src/api';

const PASSWORD = 's3cret-Pa55';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse, seen: Seen[]) => void;

/** Starts a plain HTTP server on an ephemeral loopback port; records every request with its body. */
async function serve(handler: Handler): Promise<{ url: string; port: number; seen: Seen[]; server: Server; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res, seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const isLogin = (u: string) => u.startsWith('/callosum/v1/tspublic/v1/session/login') || u === '/ts_dataservice/v1/public/session';

/** A server that logs in (any body with the right password) and sets a session cookie numbered per login. */
function authenticating(route: (req: IncomingMessage, body: Buffer, res: ServerResponse, seen: Seen[], session: string | undefined) => void): Handler {
  let n = 0;
  return (req, body, res, seen) => {
    if (isLogin(req.url ?? '')) {
      if (!body.toString().includes(encodeURIComponent(PASSWORD)) && !body.toString().includes(PASSWORD)) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.');
        return;
      }
      n++;
      res.writeHead(204, { 'set-cookie': [`JSESSIONID=s${n}; Path=/; HttpOnly`, `clientId=c${n}; Path=/`] }).end();
      return;
    }
    const m = /JSESSIONID=(s\d+)/.exec(req.headers.cookie ?? '');
    route(req, body, res, seen, m?.[1]);
  };
}

function client(url: string, extra: Partial<ConstructorParameters<typeof AnalyticsServiceClient>[0]> = {}) {
  return new AnalyticsServiceClient({ url, username: 'tsadmin', password: PASSWORD, ...extra });
}

test('a read that meets 401 logs in again once and is repeated once; every call carries X-Requested-By and Accept', async (t) => {
  const srv = await serve(
    authenticating((req, _b, res, _s, session) => {
      // the first session "expires" at once: only the second login's cookie is accepted
      if (session !== 's2') return void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.');
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  assert.deepEqual(await c.listObjectHeaders({ type: 'LOGICAL_TABLE' }), []);
  const urls = srv.seen.map((s) => s.url.split('?')[0]);
  assert.deepEqual(urls, [
    '/callosum/v1/tspublic/v1/session/login',
    '/callosum/v1/tspublic/v1/metadata/listobjectheaders',
    '/callosum/v1/tspublic/v1/session/login',
    '/callosum/v1/tspublic/v1/metadata/listobjectheaders',
  ]);
  for (const s of srv.seen) {
    assert.equal(s.headers['x-requested-by'], 'ThoughtSpot');
    assert.match(String(s.headers.accept), /application\/json/);
  }
  assert.match(String(srv.seen[3].headers.cookie), /JSESSIONID=s2/);
  assert.match(String(srv.seen[3].headers.cookie), /clientId=c2/);
});

test('a read that meets 401 twice fails with AuthenticationError after exactly one re-login', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.')));
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  await assert.rejects(c.listVizHeaders('x'), (e: unknown) => {
    assert.ok(e instanceof AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.serviceMessage, 'Unable to verify user. Please login again.');
    assert.match(e.message, /Unable to verify user/);
    return true;
  });
  assert.equal(srv.seen.filter((s) => isLogin(s.url)).length, 2);
  assert.equal(srv.seen.filter((s) => !isLogin(s.url)).length, 2);
});

test('a wrong password gives AuthenticationError whose message, fields and JSON never hold the password', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(200).end('[]')));
  t.after(srv.close);
  const c = new AnalyticsServiceClient({ url: srv.url, username: 'tsadmin', password: 'wrong-Secret-42' });
  t.after(() => c.close());
  const e = await c.listPrincipals().then(
    () => assert.fail('no error'),
    (x: unknown) => x,
  );
  assert.ok(e instanceof AuthenticationError);
  assert.equal(e.operation, 'login');
  const all = `${e.message} ${e.stack} ${JSON.stringify(e)} ${JSON.stringify(Object.entries(e))}`;
  assert.ok(!all.includes('wrong-Secret-42'));
  assert.ok(!all.includes(encodeURIComponent('wrong-Secret-42')));
});

test('a chunk upload that meets 401 is never re-sent; the next call logs in again first', async (t) => {
  let uploads = 0;
  const srv = await serve(
    authenticating((req, _b, res, _s, session) => {
      const url = req.url ?? '';
      if (url === '/ts_dataservice/v1/public/loads') return void res.writeHead(202, { 'content-type': 'text/plain' }).end('{"node_address":{},"cycle_id":"cyc-1"}');
      if (url === '/ts_dataservice/v1/public/loads/cyc-1') {
        uploads++;
        return void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.');
      }
      if (url === '/ts_dataservice/v1/public/loads/cyc-1/commit') {
        return void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.');
      }
      if (url === '/ts_dataservice/v1/public/loads/cyc-1/cancel') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(session ?? '');
      res.writeHead(404).end();
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const { cycleId, nodeAddress } = await c.startLoad({ target: { database: 'd', table: 't' } });
  assert.equal(cycleId, 'cyc-1');
  assert.equal(nodeAddress, undefined, 'an empty node_address {} is ignored (docs/service-notes.md §4.4)');
  await assert.rejects(c.uploadChunk(cycleId, Readable.from([Buffer.from('1,a\n')])), AuthenticationError);
  assert.equal(uploads, 1);
  await assert.rejects(c.commitLoad(cycleId), AuthenticationError);
  const commits = srv.seen.filter((s) => s.url.endsWith('/commit')).length;
  assert.equal(commits, 1, 'a commit is never re-sent');
  // after a 401 the session logs in again before its next call
  assert.equal(await c.abortLoad(cycleId), 's3');
  assert.equal(srv.seen.filter((s) => isLogin(s.url)).length, 3);
});

test('a connection dropped mid-upload gives ConnectionError and the chunk is not re-sent', async (t) => {
  let uploads = 0;
  const srv = await serve(authenticating(() => undefined));
  // replace the handler: drop the socket as soon as an upload's first bytes arrive
  srv.server.removeAllListeners('request');
  srv.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/ts_dataservice/v1/public/session') {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'set-cookie': 'JSESSIONID=s1' }).end());
      return;
    }
    uploads++;
    req.once('data', () => req.socket.destroy());
  });
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const big = Readable.from((function* () {
    for (let i = 0; i < 200; i++) yield Buffer.alloc(64 * 1024, 0x61);
  })());
  await assert.rejects(c.uploadChunk('cyc-x', big), (e: unknown) => {
    assert.ok(e instanceof ConnectionError);
    assert.equal(e.status, 0);
    assert.equal(e.aborted, false);
    assert.equal(e.operation, 'uploadChunk');
    return true;
  });
  assert.equal(uploads, 1);
});

test('a chunk whose source stream fails gives ChunkSourceError naming the cycle, with the stream error as cause', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(202, { 'content-type': 'text/plain' }).end('Upload Complete.')));
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const disk = new Error('EIO: disk went away');
  const failing = Readable.from(
    (async function* () {
      yield Buffer.from('1,a\n');
      throw disk;
    })(),
  );
  await assert.rejects(c.uploadChunk('cyc-src', failing), (e: unknown) => {
    assert.ok(e instanceof ChunkSourceError);
    assert.equal(e.cycleId, 'cyc-src');
    assert.equal(e.cause, disk);
    assert.match(e.message, /load cycle cyc-src .*disk went away/);
    return true;
  });
});

test('the upload is one multipart/form-data part named file, streamed byte for byte, with X-ts-chunk-id', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(202, { 'content-type': 'text/plain' }).end('Upload Complete.')));
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const data = Buffer.from('1,"a, b"\n2,"line\nbreak"\n3,é\n');
  const text = await c.uploadChunk('cyc-2', Readable.from([data.subarray(0, 5), data.subarray(5)]), { filename: 'part"1.csv' });
  assert.equal(text, 'Upload Complete.');
  const up = srv.seen.find((s) => s.url === '/ts_dataservice/v1/public/loads/cyc-2')!;
  const boundary = /boundary=(.+)$/.exec(String(up.headers['content-type']))![1];
  assert.match(String(up.headers['content-type']), /^multipart\/form-data; boundary=/);
  assert.equal(up.headers['x-ts-chunk-id'], '1');
  const body = up.body.toString('latin1');
  assert.ok(body.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="part_1.csv"\r\n`));
  assert.ok(body.endsWith(`\r\n--${boundary}--\r\n`));
  const start = up.body.indexOf('\r\n\r\n') + 4;
  const end = up.body.lastIndexOf(`\r\n--${boundary}--`);
  assert.deepEqual(up.body.subarray(start, end), data);
  await c.uploadChunk('cyc-2', 'x\n');
  assert.equal(srv.seen.filter((s) => s.url === '/ts_dataservice/v1/public/loads/cyc-2').at(-1)!.headers['x-ts-chunk-id'], '2');
});

test('node_address sends the cycle to that node with a login there; {} stays on the original host', async (t) => {
  const node = await serve(
    authenticating((req, _b, res, _s, session) => {
      if (!session) return void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.');
      const url = req.url ?? '';
      if (url.endsWith('/commit')) return void res.writeHead(202, { 'content-type': 'text/plain' }).end('Commit load cycle request made.');
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('{"cycle_id":"c9","internal_stage":"DONE","status":{"code":"OK"},"rows_written":"2","ignored_row_count":"0"}');
      res.writeHead(202, { 'content-type': 'text/plain' }).end('Upload Complete.');
    }),
  );
  t.after(node.close);
  let next = 'c9';
  const main = await serve(
    authenticating((req, _b, res) => {
      if (req.url === '/ts_dataservice/v1/public/loads') {
        const body = next === 'c9' ? { node_address: { host: '127.0.0.1', port: node.port }, cycle_id: 'c9' } : { node_address: {}, cycle_id: next };
        return void res.writeHead(202, { 'content-type': 'text/plain' }).end(JSON.stringify(body));
      }
      if (req.url?.endsWith('/input_summary')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"load_params":{"target":{"table":"t"}}}');
      res.writeHead(202, { 'content-type': 'text/plain' }).end('Upload Complete.');
    }),
  );
  t.after(main.close);
  const c = client(main.url);
  t.after(() => c.close());
  const r = await c.startLoad({ target: { database: 'd', table: 't' } });
  assert.deepEqual(r, { cycleId: 'c9', nodeAddress: { host: '127.0.0.1', port: node.port } });
  await c.uploadChunk('c9', '1,a\n2,b\n');
  await c.commitLoad('c9');
  const st = await c.pollLoadStatus('c9', { intervalMs: 1 });
  assert.equal(st.rowsWritten, 2);
  assert.equal(st.ignoredRowCount, 0);
  assert.deepEqual(await c.inputSummary('c9'), { load_params: { target: { table: 't' } } });
  assert.deepEqual(
    node.seen.map((s) => `${s.method} ${s.url}`),
    ['POST /ts_dataservice/v1/public/session', 'POST /ts_dataservice/v1/public/loads/c9', 'POST /ts_dataservice/v1/public/loads/c9/commit', 'GET /ts_dataservice/v1/public/loads/c9'],
  );
  assert.ok(main.seen.some((s) => s.url === '/ts_dataservice/v1/public/loads/c9/input_summary'), 'input_summary stays on the original host');
  assert.equal(node.seen.filter((s) => s.url.includes('/c9')).every((s) => /JSESSIONID=s1/.test(String(s.headers.cookie))), true);
  next = 'c10';
  const r2 = await c.startLoad({ target: { database: 'd', table: 't' } });
  assert.deepEqual(r2, { cycleId: 'c10' });
  await c.uploadChunk('c10', '1\n');
  assert.ok(main.seen.some((s) => s.url === '/ts_dataservice/v1/public/loads/c10'));
  assert.ok(!node.seen.some((s) => s.url.includes('c10')));
});

test('pollLoadStatus backs off until DONE, reads string counts, and turns a failed status into LoadFailedError', async (t) => {
  const stages = ['{"status":{}}', '{"internal_stage":"COMMITTING","status":{}}', '{"internal_stage":"DONE","status":{"code":"OK"},"rows_written":"12","ignored_row_count":"3","parsing_errors":["row 2: bad"]}'];
  let polls = 0;
  const srv = await serve(
    authenticating((req, _b, res) => {
      if (req.url?.endsWith('/bad')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('{"cycle_id":"bad","status":{"code":"LOAD_FAILED","message":"Ignored rows 5 exceed max_ignored_rows 0"}}');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(stages[Math.min(polls++, 2)]);
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const seen: string[] = [];
  const st = await c.pollLoadStatus('ok', { intervalMs: 1, maxIntervalMs: 5, onStatus: (s) => seen.push(s.internalStage ?? '-') });
  assert.deepEqual(seen, ['-', 'COMMITTING', 'DONE']);
  assert.equal(st.rowsWritten, 12);
  assert.equal(st.ignoredRowCount, 3);
  assert.deepEqual(st.parsingErrors, ['row 2: bad']);
  await assert.rejects(c.pollLoadStatus('bad', { intervalMs: 1 }), (e: unknown) => {
    assert.ok(e instanceof LoadFailedError);
    assert.equal(e.loadCode, 'LOAD_FAILED');
    assert.equal(e.serviceMessage, 'Ignored rows 5 exceed max_ignored_rows 0');
    assert.match(e.message, /exceed max_ignored_rows/);
    return true;
  });
});

test('every call honours its AbortSignal: a server that never answers, and polling between reads', async (t) => {
  const srv = await serve(
    authenticating((req, _b, res) => {
      if (req.url?.includes('/searchdata')) return; // never answers
      res.writeHead(200, { 'content-type': 'text/plain' }).end('{"internal_stage":"COMMITTING","status":{}}');
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const ac = new AbortController();
  const p = c.searchData({ queryString: '[a]', dataSourceGuid: 'g' }, { signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(p, (e: unknown) => e instanceof ConnectionError && e.aborted && e.operation === 'searchData');
  const ac2 = new AbortController();
  const p2 = c.pollLoadStatus('c', { signal: ac2.signal, intervalMs: 10_000 });
  setTimeout(() => ac2.abort(), 50);
  await assert.rejects(p2, (e: unknown) => e instanceof ConnectionError && e.aborted);
  await assert.rejects(c.ping({ signal: AbortSignal.abort() }), (e: unknown) => e instanceof ConnectionError && e.aborted);
});

test('errors are typed by status and carry the service text: docs/service-interface.md §7 plain text and public-API JSON debug', async (t) => {
  const srv = await serve(
    authenticating((req, _b, res) => {
      const u = req.url ?? '';
      if (u.includes('/loads/nope/commit')) return void res.writeHead(500, { 'content-type': 'text/plain' }).end("Commit load cycle failed. Error ending load. Unknown cycle_id 'nope'");
      if (u.includes('/loads/nope')) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Cycle_id=[nope] does not exist.');
      if (u === '/ts_dataservice/v1/public/loads') return void res.writeHead(403, { 'content-type': 'text/plain' }).end('User does not have required privileges. Please contact your administrator.');
      if (u.includes('/searchdata'))
        return void res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ code: 10000, incident_id_guid: 'inc-1', debug: JSON.stringify(['Error Code: 10000', 'Unknown column [nope]']) }));
      res.writeHead(500, { 'content-type': 'text/plain' }).end("error code = INTERNAL, message = Couldn't resolve the authentication service.");
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  await assert.rejects(c.startLoad({ target: { database: 'd', table: 't' } }), (e: unknown) => e instanceof PermissionError && e.status === 403 && /required privileges/.test(e.message));
  await assert.rejects(c.uploadChunk('nope', 'x\n'), (e: unknown) => e instanceof NotFoundError && e.status === 400 && e.serviceMessage === 'Cycle_id=[nope] does not exist.');
  await assert.rejects(c.commitLoad('nope'), (e: unknown) => e instanceof NotFoundError && e.status === 500 && /Unknown cycle_id 'nope'/.test(e.message));
  await assert.rejects(c.searchData({ queryString: '[nope]', dataSourceGuid: 'g' }), (e: unknown) => {
    assert.ok(e instanceof ServiceError && !(e instanceof NotFoundError));
    assert.equal(e.status, 400);
    assert.equal(e.serviceMessage, 'Error Code: 10000 Unknown column [nope]');
    assert.equal(e.incidentId, 'inc-1');
    assert.equal(e.path, '/callosum/v1/tspublic/v1/searchdata');
    assert.equal(e.method, 'POST');
    return true;
  });
  await assert.rejects(c.ping(), (e: unknown) => e instanceof ServiceError && e.status === 500 && /Couldn't resolve the authentication service/.test(e.message));
});

test('onRequest reports method, path, status and time, never the query string or a secret', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"columnNames":["a"],"data":[[1]],"samplingRatio":1,"totalRowCount":"1","rowCount":"1","pageSize":"100000","offset":"0"}')));
  t.after(srv.close);
  const log: RequestLogInfo[] = [];
  const c = client(srv.url, { onRequest: (i) => log.push(i) });
  t.after(() => c.close());
  const r = await c.searchData({ queryString: "[city] = 'secret-value'", dataSourceGuid: 'g' });
  assert.deepEqual(r.data, [[1]]);
  assert.equal(r.totalRowCount, 1, 'counts sent as strings are numbers');
  assert.equal(r.pageSize, 100000);
  assert.deepEqual(
    log.map((l) => `${l.method} ${l.path} ${l.status}`),
    ['POST /callosum/v1/tspublic/v1/session/login 204', 'POST /callosum/v1/tspublic/v1/searchdata 200'],
  );
  assert.ok(log.every((l) => typeof l.ms === 'number' && l.ms >= 0 && l.origin === srv.url));
  assert.ok(!JSON.stringify(log).includes('secret'));
  assert.equal(srv.seen[1].headers['accept-language'], 'en-US');
  const q = new URL(srv.seen[1].url, srv.url).searchParams;
  assert.equal(q.get('query_string'), "[city] = 'secret-value'");
  assert.equal(q.get('batchsize'), '-1');
  assert.equal(q.get('pagenumber'), '-1');
  assert.equal(q.get('offset'), '-1');
  assert.equal(q.get('formattype'), 'COMPACT');
});

test('listObjectHeaders sends every parameter of docs/service-interface.md §4.2, arrays as JSON', async (t) => {
  const srv = await serve(authenticating((_r, _b, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[]')));
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  await c.listObjectHeaders({
    type: 'LOGICAL_TABLE',
    subtypes: ['WORKSHEET', 'ONE_TO_ONE_LOGICAL'],
    category: 'MY',
    sort: 'NAME',
    sortAscending: false,
    offset: 2,
    batchSize: 5,
    tagNames: ['t1'],
    pattern: 'fl%',
    skipIds: ['a'],
    fetchIds: ['b', 'c'],
    autoCreated: false,
  });
  const q = Object.fromEntries(new URL(srv.seen[1].url, srv.url).searchParams);
  assert.deepEqual(q, {
    type: 'LOGICAL_TABLE',
    subtypes: '["WORKSHEET","ONE_TO_ONE_LOGICAL"]',
    category: 'MY',
    sort: 'NAME',
    sortascending: 'false',
    offset: '2',
    batchsize: '5',
    tagname: '["t1"]',
    pattern: 'fl%',
    skipids: '["a"]',
    fetchids: '["b","c"]',
    auto_created: 'false',
  });
});

test('searchAllPages walks pagenumber 1, 2, … until a short page', async (t) => {
  const rows = Array.from({ length: 25 }, (_, i) => [i]);
  const srv = await serve(
    authenticating((req, _b, res) => {
      const q = new URL(req.url ?? '', 'http://x').searchParams;
      const size = Number(q.get('batchsize'));
      const page = Number(q.get('pagenumber'));
      const data = rows.slice((page - 1) * size, page * size);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ columnNames: ['n'], data, samplingRatio: 1, totalRowCount: 25, rowCount: data.length, pageSize: size, offset: (page - 1) * size }));
    }),
  );
  t.after(srv.close);
  const c = client(srv.url);
  t.after(() => c.close());
  const got: unknown[] = [];
  let pages = 0;
  for await (const p of c.searchAllPages({ queryString: '[n]', dataSourceGuid: 'g', pageSize: 10 })) {
    pages++;
    got.push(...p.data);
  }
  assert.equal(pages, 3);
  assert.deepEqual(got, rows);
});

test('TLS: certificates are verified by default; a CA file or rejectUnauthorized:false lets a self-signed one through', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
  if (gen.status !== 0) return t.skip('openssl is not available to make a test certificate');
  const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/session')) return void res.writeHead(200, { 'set-cookie': 'JSESSIONID=t' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Ping Received.');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const strict = client(url);
  t.after(() => strict.close());
  await assert.rejects(strict.ping(), (e: unknown) => e instanceof ConnectionError && !e.aborted && /certificate/i.test(e.message));
  const withCa = client(url, { caFile: join(dir, 'cert.pem') });
  t.after(() => withCa.close());
  assert.equal(await withCa.ping(), 'Ping Received.');
  const lax = client(url, { rejectUnauthorized: false });
  t.after(() => lax.close());
  assert.equal(await lax.ping(), 'Ping Received.');
});

test('the constructor refuses a URL that is not absolute http(s) and a missing password', () => {
  assert.throws(() => new AnalyticsServiceClient({ url: 'localhost:8080', username: 'u', password: 'p' }), TypeError);
  assert.throws(() => new AnalyticsServiceClient({ url: 'ftp://x', username: 'u', password: 'p' }), TypeError);
  assert.throws(() => new AnalyticsServiceClient({ url: 'http://x', username: 'u' }), TypeError);
});
