// A call that waits on a connection taken during an outage does not wait out its deadline once the service
// is back (common/src/api/session.ts, `HttpSession.serviceBack`): a repeatable call is sent again at once and
// answered, any other fails at once saying it was not sent again. The "service" is a real HTTP server that,
// during the outage, resets some requests and holds others without an answer; the test says when it is back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { ConnectionError, TimeoutError } from '../../common/src/api';
import { HttpSession } from '../../common/src/api/session';

let server: Server;
let origin: string;
let down = true;
const held: ServerResponse[] = [];
const seen: string[] = [];
/** Resolves the next time a request is held without an answer. */
let onHeld: () => void = () => undefined;

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}${down ? ' (down)' : ''}`);
    req.resume();
    if (!down) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (req.url === '/reset') return void req.socket.destroy();
    held.push(res); // accepted, never answered: the connection of the outage
    onHeld();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const r of held) r.socket?.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

/** A session with no login and a long query deadline (the one a run would wait out). */
function session(): { s: HttpSession; close: () => Promise<void> } {
  const agent = new Agent();
  const s = new HttpSession(origin, agent, async () => undefined, undefined, { query: 120, metadata: 120 });
  return { s, close: () => agent.close() };
}

/** Sends `path`, resolving once the server holds it, with the call still pending (wrapped, so not awaited). */
async function sendHeld(s: HttpSession, method: 'GET' | 'POST', path: string, repeatable: boolean): Promise<{ call: ReturnType<HttpSession['call']> }> {
  const isHeld = new Promise<void>((r) => (onHeld = r));
  const call = s.call({ operation: 'searchData', method, path, repeatable, authenticated: false, ...(method === 'POST' ? { body: 'x' } : {}) });
  call.catch(() => undefined);
  await isHeld;
  return { call };
}

test('after an outage, serviceBack sends a waiting repeatable call again at once and it is answered; a waiting POST fails at once and is not sent again', async () => {
  const { s, close } = session();
  try {
    down = true;
    seen.length = 0;
    const { call: read } = await sendHeld(s, 'GET', '/read', true);
    const { call: write } = await sendHeld(s, 'POST', '/write', false);
    // the outage shows: another call gets no answer
    await assert.rejects(s.call({ operation: 'ping', method: 'GET', path: '/reset', repeatable: true, authenticated: false }), (e: unknown) => e instanceof ConnectionError);
    // the service is back and the health check says so
    down = false;
    s.serviceBack();
    assert.deepEqual(JSON.parse((await read).text), { ok: true });
    await assert.rejects(write, (e: unknown) => e instanceof ConnectionError && !(e instanceof TimeoutError) && /not sent again/.test((e as Error).message));
    assert.deepEqual(seen, ['GET /read (down)', 'POST /write (down)', 'GET /reset (down)', 'GET /read']);
  } finally {
    await close();
  }
});

test('serviceBack leaves alone a call sent when no outage was seen, and calls sent after it', async () => {
  const { s, close } = session();
  try {
    down = true;
    seen.length = 0;
    const { call: waiting } = await sendHeld(s, 'GET', '/slow', true);
    s.serviceBack(); // no call failed: this one is a slow answer, not an outage's connection
    down = false;
    assert.equal((await s.call({ operation: 'ping', method: 'GET', path: '/after', repeatable: true, authenticated: false })).status, 200);
    // the held call is still waiting; its answer comes when the server gives it
    held.at(-1)!.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}');
    assert.deepEqual(JSON.parse((await waiting).text), { late: true });
    assert.deepEqual(seen, ['GET /slow (down)', 'GET /after']);
  } finally {
    await close();
  }
});

test('a call sent after the service answered again is not ended by a later serviceBack', async () => {
  const { s, close } = session();
  try {
    down = true;
    seen.length = 0;
    await assert.rejects(s.call({ operation: 'ping', method: 'GET', path: '/reset', repeatable: true, authenticated: false }), (e: unknown) => e instanceof ConnectionError);
    down = false;
    assert.equal((await s.call({ operation: 'ping', method: 'GET', path: '/ok', repeatable: true, authenticated: false })).status, 200);
    down = true; // held again, but on a connection taken after the service answered: a slow answer, not the outage
    const { call: upload } = await sendHeld(s, 'POST', '/upload', false);
    s.serviceBack();
    held.at(-1)!.writeHead(200, { 'content-type': 'application/json' }).end('{"uploaded":true}');
    assert.deepEqual(JSON.parse((await upload).text), { uploaded: true });
    assert.deepEqual(seen, ['GET /reset (down)', 'GET /ok', 'POST /upload (down)']);
  } finally {
    await close();
  }
});
