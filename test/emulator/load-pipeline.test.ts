/**
 * The extension's load pipeline (common/src/load/pipeline.ts) against the real emulator: a whole cycle
 * in several chunks through node_address, bad rows within and beyond max_ignored_rows, replace, cancel,
 * 403, and — through a small HTTP proxy in front of the emulator that injects faults — a 401 on a chunk,
 * a connection dropped mid-upload, and a commit whose answer never comes or that never arrives.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsServiceClient, type LoadDefinition, type RequestLogInfo } from '../../common/src/api';
import { LoadError, runLoad, type LoadProgress } from '../../common/src/load/pipeline';
import { checkCycle } from '../../common/src/load/status';
import { ADMIN, DB, LOADER, VIEWER, session, startLoadLive, type LoadLive } from './load-support';

let live: LoadLive;
let dir: string;

before(async () => {
  live = await startLoadLive();
  dir = mkdtempSync(join(tmpdir(), 'tsq-pipeline-'));
});
after(async () => {
  await live.stop();
  rmSync(dir, { recursive: true, force: true });
});

const def = (over: Partial<LoadDefinition> = {}, loadOptions: LoadDefinition['load_options'] = {}): LoadDefinition => ({
  target: { database: DB, table: 'pairs' },
  format: { type: 'csv', field_separator: ',', has_header_row: true },
  load_options: { empty_target: true, max_ignored_rows: 0, ...loadOptions },
  ...over,
});

/** Writes a CSV of `pairs` rows with ids from..to (names with commas, quotes and newlines now and then). */
function pairsFile(name: string, from: number, to: number, extra = ''): { path: string; rows: { id: number; name: string }[] } {
  const rows: { id: number; name: string }[] = [];
  let text = 'id,name\n';
  for (let i = from; i <= to; i++) {
    const n = i % 10 === 0 ? `line ${i}\nwith "quotes", and a comma` : `name ${i}`;
    rows.push({ id: i, name: n });
    text += `${i},"${n.replace(/"/g, '""')}"\n`;
  }
  const path = join(dir, name);
  writeFileSync(path, text + extra);
  return { path, rows };
}

function client(user: { username: string; password: string }, url = live.emu.url, onRequest?: (r: RequestLogInfo) => void, ignoreNodeRedirect = false): AnalyticsServiceClient {
  return new AnalyticsServiceClient({ url, username: user.username, password: user.password, onRequest, ignoreNodeRedirect });
}

/** The status of a cycle, read directly. */
async function statusOf(cycleId: string): Promise<Record<string, unknown>> {
  const s = await session(live.emu.url, ADMIN);
  return s.status(cycleId);
}

test('a file in many chunks loads exactly its rows, through the node that StartLoad names, with progress and a log', async () => {
  const { path, rows } = pairsFile('many.csv', 1, 3000);
  const requests: RequestLogInfo[] = [];
  const c = client(LOADER, live.emu.url, (r) => requests.push(r));
  const progress: LoadProgress[] = [];
  const lines: string[] = [];
  try {
    const r = await runLoad(c, path, def(), { chunkBytes: 8 * 1024, onProgress: (p) => progress.push(p), log: (l) => lines.push(l), progressIntervalMs: 0, pollIntervalMs: 20 });
    assert.equal(r.rowsWritten, 3000);
    assert.equal(r.ignoredRows, 0);
    assert.ok(r.chunks > 5, `several chunks: ${r.chunks}`);
    assert.deepEqual(await live.rows('pairs'), rows);
    // node_address named the load port: the cycle's calls went there
    const uploads = requests.filter((q) => q.operation === 'uploadChunk');
    assert.equal(uploads.length, r.chunks);
    assert.ok(uploads.every((q) => q.origin === live.emu.loadUrl), JSON.stringify(uploads.map((q) => q.origin)));
    // progress: bytes grow to the file size minus the header, rows to the record count
    const last = progress.filter((p) => p.phase === 'uploading').at(-1)!;
    assert.equal(last.rows, 3000);
    assert.equal(last.bytesSent, r.bytes);
    // with two chunks in flight, one answered must not drop the other's bytes from the figure
    const sent = progress.map((p) => p.bytesSent);
    assert.ok(sent.every((b, i) => i === 0 || b >= sent[i - 1]!), `bytes sent never go back: ${sent.join(' ')}`);
    assert.ok(progress.some((p) => p.phase === 'committing') && progress.at(-1)!.phase === 'done');
    assert.ok(lines.some((l) => l.includes(r.cycleId) && /StartLoad|started/.test(l)) && lines.some((l) => l.includes(`cycle ${r.cycleId} DONE`)), lines.join('\n'));
  } finally {
    await c.close();
  }
});

test('chunks longer than a read buffer load exactly the file: the reused read buffers never leak one chunk into another', async () => {
  // about 5 MB in chunks of 1.5 MiB: every chunk takes two reads (1 MiB and the rest), so the 4 buffers of
  // the pipeline's ReadPool are each read into several times, within a body and across bodies
  const { path, rows } = pairsFile('reads.csv', 1, 300_000);
  const c = client(LOADER);
  try {
    const r = await runLoad(c, path, def(), { chunkBytes: 1.5 * 1024 * 1024, pollIntervalMs: 20 });
    assert.ok(r.chunks >= 3, `chunks: ${r.chunks}`);
    assert.equal(r.rowsWritten, rows.length);
    assert.equal(r.ignoredRows, 0);
    assert.deepEqual(await live.rows('pairs'), rows);
  } finally {
    await c.close();
  }
});

test('3 bad rows with max_ignored_rows 5 load the rest and keep the bad records; with 0 the load fails and the table is unchanged', async () => {
  const good = pairsFile('base.csv', 1, 10);
  const c = client(LOADER);
  try {
    await runLoad(c, good.path, def(), { pollIntervalMs: 20 });
    const bad = pairsFile('bad.csv', 100, 120, 'x1,bad\nx2,bad\n99999999999,too big\n');
    await assert.rejects(runLoad(c, bad.path, def(), { pollIntervalMs: 20 }), (e: unknown) => {
      assert.ok(e instanceof LoadError && e.kind === 'failed' && e.tableUnchanged, String(e));
      assert.match(e.message, /not changed/);
      assert.equal(e.status?.ignoredRowCount, 3);
      return true;
    });
    assert.deepEqual(await live.rows('pairs'), good.rows, 'the failed load (and its empty_target) changed nothing');
    const r = await runLoad(c, bad.path, def({}, { max_ignored_rows: 5 }), { pollIntervalMs: 20 });
    assert.equal(r.rowsWritten, 21);
    assert.equal(r.ignoredRows, 3);
    assert.deepEqual(await live.rows('pairs'), bad.rows);
    const records = await c.badRecords(r.cycleId);
    assert.deepEqual(records.trim().split(/\r?\n/), ['x1,bad', 'x2,bad', '99999999999,too big']);
  } finally {
    await c.close();
  }
});

test('append keeps the rows; replace (empty_target) empties the table first', async () => {
  const a = pairsFile('a.csv', 1, 5);
  const b = pairsFile('b.csv', 6, 8);
  const c = client(LOADER);
  try {
    await runLoad(c, a.path, def(), { pollIntervalMs: 20 });
    await runLoad(c, b.path, def({}, { empty_target: false }), { pollIntervalMs: 20 });
    assert.deepEqual(await live.rows('pairs'), [...a.rows, ...b.rows]);
    await runLoad(c, b.path, def({}, { empty_target: true }), { pollIntervalMs: 20 });
    assert.deepEqual(await live.rows('pairs'), b.rows);
  } finally {
    await c.close();
  }
});

test('cancel during the upload aborts the cycle and leaves the table unchanged', async () => {
  const base = pairsFile('keep.csv', 1, 3);
  const big = pairsFile('big.csv', 1000, 60000);
  const c = client(LOADER);
  try {
    await runLoad(c, base.path, def(), { pollIntervalMs: 20 });
    const ctl = new AbortController();
    let cycle: string | undefined;
    await assert.rejects(
      runLoad(c, big.path, def(), {
        chunkBytes: 64 * 1024,
        signal: ctl.signal,
        progressIntervalMs: 0,
        onProgress: (p) => {
          cycle = p.cycleId;
          if (p.chunks >= 2) ctl.abort();
        },
      }),
      (e: unknown) => e instanceof LoadError && e.kind === 'cancelled' && e.tableUnchanged && /aborted/.test(e.message),
    );
    assert.ok(cycle);
    const s = await statusOf(cycle);
    assert.equal(s.internal_stage, 'DONE');
    assert.match(String((s.status as { message?: string }).message), /cancelled/i);
    assert.deepEqual(await live.rows('pairs'), base.rows);
  } finally {
    await c.close();
  }
});

test('a user without the data-management privilege gets a message naming it (403)', async () => {
  const f = pairsFile('denied.csv', 1, 2);
  const c = client(VIEWER);
  try {
    await assert.rejects(runLoad(c, f.path, def()), (e: unknown) => e instanceof LoadError && e.kind === 'permission' && /Can manage data|DATAMANAGEMENT/.test(e.message) && e.tableUnchanged);
  } finally {
    await c.close();
  }
});

// ---- faults, through a proxy in front of the emulator ----

type Fault = 'forward' | '401' | 'drop' | 'cut' | 'forward-no-answer';

/** An HTTP proxy to the emulator's main port; `decide` picks what happens to each request. */
async function faultProxy(decide: (req: IncomingMessage) => Fault): Promise<{ url: string; server: Server; seen: string[] }> {
  const target = new URL(live.emu.url);
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const fault = decide(req);
    seen.push(`${req.method} ${req.url} ${fault}`);
    if (fault === '401') {
      req.resume();
      req.on('end', () => res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.'));
      return;
    }
    if (fault === 'cut') {
      // no answer at all: the connection is closed at once (a request without a body)
      req.socket.destroy();
      return;
    }
    if (fault === 'drop') {
      // take some of the body, then cut the connection
      req.once('data', () => req.socket.destroy());
      return;
    }
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (fault === 'forward-no-answer') {
        answer.resume(); // the service did the work; its answer is lost
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, server, seen };
}

const isUpload = (req: IncomingMessage) => req.method === 'POST' && /\/public\/loads\/[^/]+$/.test(req.url ?? '');
const isCommit = (req: IncomingMessage) => req.method === 'POST' && /\/commit$/.test(req.url ?? '');

test('a 401 on a chunk: log in again and go on; the refused chunk is sent once more, no chunk twice, the rows exact', async () => {
  const f = pairsFile('relogin.csv', 1, 2000);
  let uploads = 0;
  const proxy = await faultProxy((req) => (isUpload(req) && ++uploads === 3 ? '401' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  const lines: string[] = [];
  try {
    const r = await runLoad(c, f.path, def(), { chunkBytes: 4096, pollIntervalMs: 20, log: (l) => lines.push(l) });
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.equal(r.rowsWritten, 2000);
    assert.ok(lines.some((l) => /refused with 401.*logging in again/.test(l)), lines.join('\n'));
    const logins = proxy.seen.filter((s) => s.includes('/public/session'));
    assert.equal(logins.length, 2, `a second login after the 401: ${proxy.seen.join('\n')}`);
    assert.equal(proxy.seen.filter((s) => s.startsWith('POST') && /\/loads\/[^/ ]+ /.test(s)).length, r.chunks + 1, 'every chunk once, plus the refused one again');
  } finally {
    await c.close();
    proxy.server.close();
  }
});

test('a connection dropped mid-upload: AbortLoad is attempted, the message says the table was not changed, nothing is committed', async () => {
  const base = pairsFile('stay.csv', 1, 4);
  const f = pairsFile('dropped.csv', 1, 3000);
  let uploads = 0;
  let cycle = '';
  const proxy = await faultProxy((req) => {
    const m = /\/public\/loads\/([^/]+)$/.exec(req.url ?? '');
    if (m && req.method === 'POST') cycle = m[1];
    return isUpload(req) && ++uploads === 2 ? 'drop' : 'forward';
  });
  const c = client(LOADER, proxy.url, undefined, true);
  const direct = client(LOADER);
  try {
    await runLoad(direct, base.path, def(), { pollIntervalMs: 20 });
    await assert.rejects(runLoad(c, f.path, def(), { chunkBytes: 4096 }), (e: unknown) => {
      assert.ok(e instanceof LoadError && e.kind === 'connection' && e.tableUnchanged, String(e));
      assert.match(e.message, /table was not changed/);
      return true;
    });
    assert.ok(proxy.seen.some((s) => /\/cancel /.test(s)), 'AbortLoad was sent');
    assert.ok(!proxy.seen.some((s) => /\/commit /.test(s)), 'no commit');
    assert.equal(proxy.seen.filter((s) => s.endsWith('drop')).length, 1, 'the dropped chunk was not sent again');
    const s = await statusOf(cycle);
    assert.match(String((s.status as { message?: string }).message), /cancelled/i);
    assert.deepEqual(await live.rows('pairs'), base.rows);
  } finally {
    await c.close();
    await direct.close();
    proxy.server.close();
  }
});

test('a CommitLoad whose answer never comes: the status is polled and the load is reported as it ended', async () => {
  const f = pairsFile('slowcommit.csv', 1, 50);
  const proxy = await faultProxy((req) => (isCommit(req) ? 'forward-no-answer' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  const lines: string[] = [];
  try {
    const r = await runLoad(c, f.path, def(), { commitTimeoutMs: 500, pollIntervalMs: 20, log: (l) => lines.push(l) });
    assert.equal(r.rowsWritten, 50);
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.ok(lines.some((l) => /reading the status to learn what happened/.test(l)), lines.join('\n'));
    assert.equal(proxy.seen.filter((s) => /\/commit /.test(s)).length, 1, 'the commit was not sent again');
  } finally {
    await c.close();
    proxy.server.close();
  }
});

test('a CommitLoad that never arrives: the status says the cycle is open, so it is aborted and the table is unchanged', async () => {
  const base = pairsFile('kept.csv', 1, 2);
  const f = pairsFile('lostcommit.csv', 1, 50);
  const proxy = await faultProxy((req) => (isCommit(req) ? 'drop' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  const direct = client(LOADER);
  try {
    await runLoad(direct, base.path, def(), { pollIntervalMs: 20 });
    await assert.rejects(runLoad(c, f.path, def(), { commitTimeoutMs: 2000 }), (e: unknown) => e instanceof LoadError && e.tableUnchanged && /not changed/.test(e.message));
    assert.ok(proxy.seen.some((s) => /\/cancel /.test(s)), 'AbortLoad was sent');
    assert.deepEqual(await live.rows('pairs'), base.rows);
  } finally {
    await c.close();
    await direct.close();
    proxy.server.close();
  }
});

test('a 401 on CommitLoad: the status shows the cycle open, so after a new login the commit is sent again', async () => {
  const f = pairsFile('commit401.csv', 1, 30);
  let commits = 0;
  const proxy = await faultProxy((req) => (isCommit(req) && ++commits === 1 ? '401' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  try {
    const r = await runLoad(c, f.path, def(), { pollIntervalMs: 20 });
    assert.equal(r.rowsWritten, 30);
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.equal(commits, 2);
  } finally {
    await c.close();
    proxy.server.close();
  }
});

const isStart = (req: IncomingMessage) => req.method === 'POST' && /\/public\/loads$/.test(req.url ?? '');
const isStatus = (req: IncomingMessage) => req.method === 'GET' && /\/loads\/[^/]+$/.test(req.url ?? '');

test('a 401 on StartLoad (the service forgot the session): log in again and start once more; no cycle is left behind', async () => {
  const f = pairsFile('start401.csv', 1, 40);
  let starts = 0;
  const proxy = await faultProxy((req) => (isStart(req) && ++starts === 1 ? '401' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  const lines: string[] = [];
  try {
    const r = await runLoad(c, f.path, def(), { pollIntervalMs: 20, log: (l) => lines.push(l) });
    assert.equal(r.rowsWritten, 40);
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.equal(starts, 2, 'StartLoad sent once more');
    assert.equal(proxy.seen.filter((s) => s.includes('/public/session')).length, 2, `a second login: ${proxy.seen.join('\n')}`);
    assert.ok(lines.some((l) => /StartLoad .* refused with 401.*logging in again/.test(l)), lines.join('\n'));
  } finally {
    await c.close();
    proxy.server.close();
  }
});

test('a status read dropped during polling is read again: the load ends OK, not "unknown"', async () => {
  const f = pairsFile('statusdrop.csv', 1, 60);
  let reads = 0;
  const proxy = await faultProxy((req) => (isStatus(req) && ++reads <= 2 ? 'cut' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  const lines: string[] = [];
  try {
    const r = await runLoad(c, f.path, def(), { pollIntervalMs: 20, log: (l) => lines.push(l) });
    assert.equal(r.rowsWritten, 60);
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.ok(reads > 2);
    assert.ok(lines.some((l) => /could not be read .* reading again/.test(l)), lines.join('\n'));
  } finally {
    await c.close();
    proxy.server.close();
  }
});

test('"unknown" only after the service was unreachable for the stated time, naming the cycle and the command that checks it later', async () => {
  const f = pairsFile('unreachable.csv', 1, 25);
  let cutting = true;
  const proxy = await faultProxy((req) => (isStatus(req) && cutting ? 'cut' : 'forward'));
  const c = client(LOADER, proxy.url, undefined, true);
  try {
    let cycleId = '';
    await assert.rejects(runLoad(c, f.path, def(), { pollIntervalMs: 20, maxPollIntervalMs: 50, unreachableMs: 400 }), (e: unknown) => {
      assert.ok(e instanceof LoadError && e.kind === 'unknown' && !e.tableUnchanged && e.cycleId, String(e));
      cycleId = e.cycleId;
      assert.match(e.message, /could not be reached for \d+ s/);
      assert.ok(e.message.includes(cycleId) && /Check Load Status/.test(e.message), e.message);
      return true;
    });
    assert.ok(proxy.seen.filter((s) => /GET .*\/loads\/[^/ ]+ cut/.test(s)).length >= 3, 'several reads were tried first');
    // later, with the service reachable again, the cycle's outcome is known
    cutting = false;
    const report = await checkCycle(c, cycleId);
    assert.equal(report.state, 'done');
    assert.equal(report.status?.rowsWritten, 25);
    assert.match(report.message, /committed: 25 rows written/);
    assert.equal((await checkCycle(c, 'no-such-cycle')).state, 'unknown');
  } finally {
    await c.close();
    proxy.server.close();
  }
});

test('bytes that are not UTF-8 in a UTF-8 file: their records are bad records naming the byte and offset; no U+FFFD is stored', async () => {
  const path = join(dir, 'broken-utf8.csv');
  writeFileSync(path, Buffer.concat([Buffer.from('id,name\n1,café\n2,caf'), Buffer.from([0xe9]), Buffer.from('\n3,ok\n')]));
  const c = client(LOADER);
  try {
    const r = await runLoad(c, path, def({}, { max_ignored_rows: 5 }), { pollIntervalMs: 20 });
    assert.equal(r.rowsWritten, 2);
    assert.equal(r.ignoredRows, 1);
    assert.deepEqual(r.invalidUtf8, { count: 1, firstOffset: 21, firstByte: 0xe9 });
    assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: 'café' }, { id: 3, name: 'ok' }]);
    const errors = JSON.stringify(r.status.parsingErrors);
    assert.match(errors, /byte 0xE9 at byte offset \d+ of the chunk is not valid UTF-8/);
    assert.equal(await c.badRecords(r.cycleId).then((t) => t.includes('\uFFFD')), true, 'the bad records file shows where the byte was');
  } finally {
    await c.close();
  }
});

test('a file in a multi-byte legacy encoding with a separator that can be a second byte is refused before StartLoad', async () => {
  const path = join(dir, 'sjis.txt');
  writeFileSync(path, 'id|name\n1|x\n');
  const c = client(LOADER);
  const requests: RequestLogInfo[] = [];
  const watched = client(LOADER, live.emu.url, (q) => requests.push(q));
  try {
    await assert.rejects(runLoad(watched, path, def({ format: { type: 'csv', field_separator: '|', has_header_row: true } }), { encoding: 'shift_jis' }), (e: unknown) => {
      assert.ok(e instanceof LoadError && e.kind === 'source' && e.tableUnchanged, String(e));
      assert.match(e.message, /shift_jis .*second byte/);
      return true;
    });
    assert.equal(requests.filter((q) => q.operation === 'startLoad').length, 0, 'no StartLoad');
  } finally {
    await c.close();
    await watched.close();
  }
});
