// One Load request is taken whole or refused whole (docs/service-interface.md §4.1; emulator/README.md, "Load"):
// a request of two multipart parts whose first part arrives while a commit is waiting for an earlier upload and
// whose second part arrives after the cycle moved to COMMITTING must not be half kept; its answer says which.
// Also the byte-order mark: only the first bytes of a file may be one; a value that starts with U+FEFF keeps it,
// in the table and when read back (emulator/src/engine.ts, keepLeadingBomInStrings).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyticsServiceClient } from '../../common/src/api';
import { ADMIN, LOADER, def, session, startLoadLive, type LoadLive, type LoadSession } from './load-support';

let live: LoadLive;
let s: LoadSession;
before(async () => {
  live = await startLoadLive();
  s = await session(live.emu.loadUrl as string, LOADER);
});
after(async () => {
  await live?.stop();
});

const BOUNDARY = 'tsq-whole-request';
const enc = new TextEncoder();

/** The opening of one multipart file part named `documents` (as the reference client names it). */
function partHead(first: boolean): string {
  return `${first ? '' : '\r\n'}--${BOUNDARY}\r\nContent-Disposition: form-data; name="documents"; filename="filename"\r\nContent-Type: application/octet-stream\r\n\r\n`;
}

/** A Load request whose body the test writes piece by piece; `answer` settles when the emulator answers. */
function streamingLoad(base: string, cookie: string, cycleId: string): { write(text: string): void; end(): void; answer: Promise<{ status: number; text: string }> } {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  const answer = fetch(`${base}/ts_dataservice/v1/public/loads/${cycleId}`, {
    method: 'POST',
    headers: { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    duplex: 'half',
  } as RequestInit).then(async (r) => ({ status: r.status, text: await r.text() }));
  return { write: (t) => ctrl.enqueue(enc.encode(t)), end: () => ctrl.close(), answer };
}

/** Waits (without a clock) until `check` holds, letting the emulator's I/O run in between. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

test('a two-part Load split by the start of a commit is refused whole, and the table gets none of its rows', async () => {
  const reset = await s.load(def('pairs', { load_options: { empty_target: true } }), '1,one\n');
  assert.deepEqual(reset.status.status, { code: 'OK' });
  const { cycleId } = await s.start(def('pairs'));
  const id = cycleId as string;
  const cookie = s.cookie as string;
  const dir = join(live.dataDir, 'cycles', id);
  // upload A (chunk 1) is held open, so the commit waits for it
  const a = streamingLoad(s.base, cookie, id);
  a.write(`${partHead(true)}2,two\n`);
  await until(() => existsSync(join(dir, 'chunk-1.part')));
  const commit = s.commit(id);
  // upload B: its first part is received in full (chunk 2) while the commit waits
  const b = streamingLoad(s.base, cookie, id);
  const first = '10,ten\n11,eleven\n';
  b.write(`${partHead(true)}${first}${partHead(false)}`);
  const received = (p: string) => existsSync(p) && statSync(p).size === first.length;
  await until(() => received(join(dir, 'chunk-2')) || received(join(dir, 'chunk-2.part')));
  // A ends: the commit goes on and the cycle becomes COMMITTING; then B's second part arrives
  a.write(`\r\n--${BOUNDARY}--\r\n`);
  a.end();
  assert.ok((await a.answer).status < 300, 'upload A is taken');
  assert.ok((await commit).status < 300, 'the commit is accepted');
  b.write(`12,twelve\n\r\n--${BOUNDARY}--\r\n`);
  b.end();
  const answer = await b.answer;
  const status = await s.waitDone(id);
  assert.deepEqual(status.status, { code: 'OK' });
  const ids = (await live.rows('pairs')).map((r) => r.id);
  const bRows = ids.filter((n) => (n as number) >= 10);
  if (answer.status < 300) assert.deepEqual(bRows, [10, 11, 12], `B was acknowledged (${answer.status} ${answer.text}), so all its rows are in`);
  else {
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.text, /none of (its|this request's) .*kept|nothing .*kept|was not kept/i, answer.text);
    assert.deepEqual(bRows, [], `B was refused (${answer.text}), so none of its rows are in`);
  }
  assert.deepEqual(ids.filter((n) => (n as number) < 10), [1, 2]);
});

test('a Load whose second part is cut off keeps neither part', async () => {
  const { cycleId } = await s.start(def('pairs'));
  const id = cycleId as string;
  const b = streamingLoad(s.base, s.cookie as string, id);
  b.write(`${partHead(true)}20,twenty\n${partHead(false)}21,twenty-one\n`);
  b.end(); // no closing boundary: the request is cut
  const answer = await b.answer;
  assert.equal(answer.status, 400, answer.text);
  const cycle = await s.status(id);
  assert.equal(cycle.ingested_network_bw ?? '0', '0', 'no byte of the refused request is counted');
  assert.equal((await s.commit(id, { 'X-ts-chunks': '0' })).status < 300, true, 'no chunk of the refused request is counted');
  const done = await s.waitDone(id);
  assert.equal(done.rows_written ?? '0', '0');
});

test('a field that starts with U+FEFF keeps it; only the first bytes of the file are a byte-order mark', async () => {
  const r = await s.load(def('pairs', { load_options: { empty_target: true } }), '\ufeff1,\ufeffx\n2,y\ufeff\n');
  assert.deepEqual(r.status.status, { code: 'OK' });
  assert.deepEqual(await live.rows('pairs'), [
    { id: 1, name: '\ufeffx' },
    { id: 2, name: 'y\ufeff' },
  ]);
  const later = await s.load(def('pairs', { load_options: { empty_target: true } }), '1,\ufeffx\n');
  assert.deepEqual(later.status.status, { code: 'OK' });
  assert.deepEqual(await live.rows('pairs'), [{ id: 1, name: '\ufeffx' }]);
  // and as a person sees it: searchdata through TSQ's client
  const client = new AnalyticsServiceClient({ url: live.emu.url, username: ADMIN.username, password: ADMIN.password });
  try {
    const table = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE' })).find((h) => h.name === 'pairs')!;
    const answer = await client.searchData({ queryString: '[name]', dataSourceGuid: table.id });
    assert.deepEqual(answer.data, [['\ufeffx']]);
  } finally {
    await client.close();
  }
});
