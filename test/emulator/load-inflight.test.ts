/**
 * Two chunk uploads in flight (common/src/load/pipeline.ts: the next chunk is sent while the previous
 * one's answer is awaited) against the real emulator, through a proxy that holds answers back and
 * injects faults: the uploads overlap but never more than two; the second failing while the first is
 * unanswered settles the cycle as a failed upload always does (aborted, nothing re-sent, table
 * unchanged); the first refused with 401 after the second was stored is sent once more and keeps its
 * place (rows, bad records and the parsing errors' chunk numbers in file order), from a file and from
 * a stream.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { LoadError, runLoad } from '../../common/src/load/pipeline';
import { ADMIN, DB, LOADER, session, startLoadLive, type LoadLive } from './load-support';

let live: LoadLive;
let dir: string;

before(async () => {
  live = await startLoadLive();
  dir = mkdtempSync(join(tmpdir(), 'tsq-inflight-'));
});
after(async () => {
  await live.stop();
  rmSync(dir, { recursive: true, force: true });
});

const def = (maxIgnored = 0): LoadDefinition => ({
  target: { database: DB, table: 'pairs' },
  format: { type: 'csv', field_separator: ',', has_header_row: true },
  load_options: { empty_target: true, max_ignored_rows: maxIgnored },
});

/** A CSV of `pairs` rows 1..n (the rows in `bad` get a non-numeric id), its path and good rows. */
function pairsFile(name: string, n: number, bad: number[] = []): { path: string; text: string; rows: { id: number; name: string }[] } {
  const rows: { id: number; name: string }[] = [];
  let text = 'id,name\n';
  for (let i = 1; i <= n; i++) {
    if (bad.includes(i)) {
      text += `bad${i},row ${i}\n`;
      continue;
    }
    rows.push({ id: i, name: `name ${i}` });
    text += `${i},name ${i}\n`;
  }
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, text, rows };
}

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * What the proxy does with one chunk upload: forward it (its answer passed back once `hold` resolved), answer
 * 401 once `refuse401` resolved, or drop it (take some of the body, then cut the connection); `then` is
 * called once the answer was written or the connection cut.
 */
type UploadPlan = ({ forward: true; hold?: Promise<void> } | { refuse401: Promise<void> } | { drop: true }) & { then?: () => void };

interface Proxy {
  url: string;
  server: Server;
  /** Upload events in order: `start <chunk id>`, `answer <chunk id> <status>`, `drop <chunk id>`. */
  events: string[];
  /** Every request as `METHOD path`. */
  seen: string[];
  /** The most chunk uploads the proxy had open at once. */
  maxOpen: number;
}

/** A proxy to the emulator's main port; `plan(n, chunkId)` decides the n-th chunk upload (1-based); other requests pass. */
async function proxy(plan: (n: number, chunkId: string) => UploadPlan): Promise<Proxy> {
  const target = new URL(live.emu.url);
  const p: Proxy = { url: '', server: undefined as unknown as Server, events: [], seen: [], maxOpen: 0 };
  let uploads = 0;
  let open = 0;
  const forward = (req: IncomingMessage, res: ServerResponse, onAnswer?: (status: number) => Promise<void> | void) => {
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      void (async () => {
        await onAnswer?.(answer.statusCode ?? 502);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      })();
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  p.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    p.seen.push(`${req.method} ${req.url}`);
    res.on('error', () => undefined);
    if (!(req.method === 'POST' && /\/public\/loads\/[^/]+$/.test(req.url ?? ''))) return forward(req, res);
    const id = String(req.headers['x-ts-chunk-id']);
    const what = plan(++uploads, id);
    p.events.push(`start ${id}`);
    p.maxOpen = Math.max(p.maxOpen, ++open);
    let closed = false;
    const close = (event: string) => {
      if (closed) return;
      closed = true;
      open--;
      p.events.push(event);
    };
    res.on('close', () => close(`closed ${id}`));
    if ('drop' in what) {
      req.once('data', () => {
        close(`drop ${id}`);
        req.socket.destroy();
        what.then?.();
      });
      return;
    }
    if ('refuse401' in what) {
      req.resume();
      void what.refuse401.then(() => {
        close(`answer ${id} 401`);
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Unable to verify user. Please login again.', what.then);
      });
      return;
    }
    forward(req, res, async (status) => {
      await what.hold;
      close(`answer ${id} ${status}`);
      res.once('finish', () => what.then?.());
    });
  });
  await new Promise<void>((r) => p.server.listen(0, '127.0.0.1', r));
  p.url = `http://127.0.0.1:${(p.server.address() as { port: number }).port}`;
  return p;
}

function client(url: string): AnalyticsServiceClient {
  return new AnalyticsServiceClient({ url, username: LOADER.username, password: LOADER.password, ignoreNodeRedirect: true });
}

test('the next chunk is sent while the previous answer is awaited, never more than two at once; the rows are exact', async () => {
  const f = pairsFile('overlap.csv', 3000);
  const secondStarted = deferred();
  // the first answer is held until the second upload arrived (or, should it never come, after 5 s: the order below then fails)
  const p = await proxy((n) => {
    if (n === 2) secondStarted.resolve();
    return n === 1 ? { forward: true, hold: Promise.race([secondStarted.promise, new Promise<void>((r) => setTimeout(r, 5000).unref())]) } : { forward: true };
  });
  const c = client(p.url);
  try {
    const r = await runLoad(c, f.path, def(), { chunkBytes: 4096, pollIntervalMs: 20 });
    assert.equal(r.rowsWritten, 3000);
    assert.deepEqual(await live.rows('pairs'), f.rows);
    assert.ok(r.chunks > 5, `several chunks: ${r.chunks}`);
    assert.ok(p.events.indexOf('start 2') < p.events.indexOf('answer 1 200'), `chunk 2 started before chunk 1 was answered: ${p.events.join(', ')}`);
    assert.ok(p.maxOpen <= 2, `at most two uploads open: ${p.maxOpen}`);
    const ids = p.events.filter((e) => e.startsWith('start ')).map((e) => Number(e.slice(6)));
    assert.deepEqual(ids, Array.from({ length: r.chunks }, (_, i) => i + 1), 'every chunk once, in order');
  } finally {
    await c.close();
    p.server.close();
  }
});

test('the second chunk dropped while the first is unanswered: the cycle is aborted, no chunk is sent again, the table is unchanged', async () => {
  const base = pairsFile('kept.csv', 4);
  const f = pairsFile('second-dropped.csv', 3000);
  const dropped = deferred();
  let cycle = '';
  // the first answer is let through only after the second was cut: both are in flight when it fails
  const p = await proxy((n) => (n === 1 ? { forward: true, hold: dropped.promise } : n === 2 ? { drop: true, then: dropped.resolve } : { forward: true }));
  const c = client(p.url);
  const direct = client(live.emu.url);
  try {
    await runLoad(direct, base.path, def(), { pollIntervalMs: 20 });
    const run = runLoad(c, f.path, def(), { chunkBytes: 4096, log: (l) => (cycle ||= /cycle (\S+) started/.exec(l)?.[1] ?? '') });
    await assert.rejects(run, (e: unknown) => {
      assert.ok(e instanceof LoadError && e.kind === 'connection' && e.tableUnchanged, String(e));
      assert.match(e.message, /table was not changed/);
      return true;
    });
    assert.deepEqual(
      p.events.filter((e) => e.startsWith('start ')),
      ['start 1', 'start 2'],
      `no third chunk, and neither chunk sent again: ${p.events.join(', ')}`,
    );
    assert.ok(p.seen.some((s) => /\/cancel$/.test(s)), 'AbortLoad was sent');
    assert.ok(!p.seen.some((s) => /\/commit$/.test(s)), 'no commit');
    const s = await (await session(live.emu.url, ADMIN)).status(cycle);
    assert.match(String((s.status as { message?: string }).message), /cancelled/i);
    assert.deepEqual(await live.rows('pairs'), base.rows);
  } finally {
    await c.close();
    await direct.close();
    p.server.close();
  }
});

for (const input of ['file', 'stream'] as const) {
  test(`the first chunk refused with 401 after the second was stored (${input}): sent once more, in its place — rows, bad records and parsing errors in file order`, async () => {
    // a bad row in chunk 1 and one in chunk 2 (chunks of 4 KiB: about 300 rows each)
    const f = pairsFile(`first401-${input}.csv`, 3000, [5, 400]);
    const secondAnswered = deferred();
    const p = await proxy((n, id) => {
      if (n === 1) return { refuse401: secondAnswered.promise };
      return { forward: true, ...(id === '2' ? { then: secondAnswered.resolve } : {}) };
    });
    const c = client(p.url);
    const lines: string[] = [];
    try {
      const source = input === 'file' ? f.path : { stream: createReadStream(f.path, { highWaterMark: 1024 }), name: 'first401.csv' };
      const r = await runLoad(c, source, def(5), { chunkBytes: 4096, pollIntervalMs: 20, log: (l) => lines.push(l) });
      assert.equal(r.rowsWritten, 2998);
      assert.equal(r.ignoredRows, 2);
      assert.deepEqual(await live.rows('pairs'), f.rows);
      const starts = p.events.filter((e) => e.startsWith('start '));
      assert.deepEqual(starts.slice(0, 3), ['start 1', 'start 2', 'start 1'], `chunk 1 again after chunk 2: ${p.events.join(', ')}`);
      assert.ok(p.events.indexOf('answer 2 200') < p.events.indexOf('answer 1 401'), p.events.join(', '));
      assert.equal(starts.length, r.chunks + 1, 'every chunk once, plus the refused one again');
      assert.ok(lines.some((l) => /chunk 1 was refused with 401.*logging in again/.test(l)), lines.join('\n'));
      // the service kept the chunks in the client's order, though chunk 1 arrived after chunk 2
      assert.deepEqual((await c.badRecords(r.cycleId)).trim().split(/\r?\n/), ['bad5,row 5', 'bad400,row 400']);
      const chunkOf = (offset: number) => {
        const l = lines.find((x) => {
          const m = /chunk (\d+) uploaded \(bytes (\d+)–(\d+)/.exec(x);
          return m && Number(m[2]) <= offset && offset < Number(m[3]);
        });
        return Number(/chunk (\d+) uploaded/.exec(l ?? '')?.[1]);
      };
      const errors = (r.status.parsingErrors as { chunk?: number }[]).map((e) => Number(e.chunk));
      assert.deepEqual(errors, [chunkOf(f.text.indexOf('bad5,')), chunkOf(f.text.indexOf('bad400,'))]);
      assert.deepEqual(errors, [1, 2]);
    } finally {
      await c.close();
      p.server.close();
    }
  });
}
