// What the emulator decides from a request's target and Host header before any route runs:
// - the switches that look at the path (`--rate-limit`, `--public-api v2`, the anonymous body limit) see the
//   path the router matches: `/api/rest/2%2E0/…` is `/api/rest/2.0/…`, `/callosum/v1/tspublic/%76%31/…` is
//   `…/v1/…`, and an absolute-form target (`GET http://host/path`) is its path;
// - on a loopback address it answers only requests addressed to it (DNS rebinding): a foreign Host, v1
//   login, v2 token or data-load login, is refused with 403;
// - `auth/token/full` and `auth/session/login` of REST API v2 take JSON only, as the OpenAPI document says.
// Raw node:http requests (fetch cannot set Host or an absolute-form target) against a real emulator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/src/app';
import { hostAllowed, normaliseRequestTarget } from '../../emulator/src/requestTarget';

const V1 = '/callosum/v1/tspublic/v1';
const V2 = '/api/rest/2.0';
const LOAD_LOGIN = '/ts_dataservice/v1/public/session';
const FORM_LOGIN = 'username=tsadmin&password=admin';
const JSON_LOGIN = JSON.stringify({ username: 'tsadmin', password: 'admin' });
const FOREIGN = 'rebind.attacker.example';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request with exactly this target and these headers. `host` replaces the Host header node:http would
 * write; `target` is written as it is (percent-encodings and an absolute form stay).
 */
function raw(url: string, method: string, target: string, options: { host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.host !== undefined) headers.host = options.host;
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = request({ host: u.hostname, port: u.port, method, path: target, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

const dirs: string[] = [];
const running: RunningEmulator[] = [];

/** An emulator with only the built-in administrator (tsadmin / admin), on 127.0.0.1 and a free port. */
async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-target-'));
  dirs.push(dataDir);
  const emu = await startEmulator({ port: 0, dataDir, ...options });
  running.push(emu);
  return emu;
}

after(async () => {
  for (const e of running.splice(0)) await e.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function v2Token(url: string): Promise<string> {
  const r = await raw(url, 'POST', `${V2}/auth/token/full`, { headers: JSON_TYPE, body: JSON_LOGIN });
  assert.equal(r.status, 200, r.text);
  return (JSON.parse(r.text) as { token: string }).token;
}

describe('normaliseRequestTarget: the path the router matches', () => {
  test('percent-encoded unreserved characters are decoded in the path, and only there', () => {
    const cases: [string, string][] = [
      ['/api/rest/2%2E0/auth/session/user', '/api/rest/2.0/auth/session/user'],
      ['/api/rest/2%2e0/auth/session/user', '/api/rest/2.0/auth/session/user'],
      ['/callosum/v1/tspublic/%76%31/session/login', '/callosum/v1/tspublic/v1/session/login'],
      ['/%61%70%69/rest/2.0/x%7E%5F%2D', '/api/rest/2.0/x~_-'],
      // reserved characters, % itself and non-ASCII stay encoded: the router decodes them as before, once
      ['/a%2Fb%3Fc%23d%25e%20f%C3%A9', '/a%2Fb%3Fc%23d%25e%20f%C3%A9'],
      ['/a%252E', '/a%252E'],
      // the query is the route's business, never rewritten
      ['/api/rest/2%2E0/x?q=%2E%76', '/api/rest/2.0/x?q=%2E%76'],
      ['/x%2E#%2E', '/x.#%2E'],
      // broken escapes pass through untouched (the router answers them)
      ['/x%2', '/x%2'],
      ['/x%zz%', '/x%zz%'],
      ['/', '/'],
    ];
    for (const [target, want] of cases) assert.equal(normaliseRequestTarget(target).path, want, target);
  });

  test('an absolute-form target is reduced to its path, and its authority is kept for the Host check', () => {
    assert.deepEqual(normaliseRequestTarget('http://127.0.0.1:8088/callosum/v1/tspublic/%76%31/session/login'), { path: '/callosum/v1/tspublic/v1/session/login', authority: '127.0.0.1:8088' });
    assert.deepEqual(normaliseRequestTarget('HTTPS://Example.test?x=1'), { path: '/?x=1', authority: 'Example.test' });
    assert.deepEqual(normaliseRequestTarget('http://h'), { path: '/', authority: 'h' });
    // not an http(s) absolute form: left as it is for the router to refuse
    assert.deepEqual(normaliseRequestTarget('*'), { path: '*' });
    assert.deepEqual(normaliseRequestTarget('ftp://h/x'), { path: 'ftp://h/x' });
  });
});

describe('path switches see the routed path', () => {
  let limited: RunningEmulator;
  let token: string;
  let v2only: RunningEmulator;
  before(async () => {
    limited = await emulator({ rateLimit: 5 });
    token = await v2Token(limited.url);
    v2only = await emulator({ publicApi: 'v2' });
  });

  test('--rate-limit 5: GET /api/rest/2%2E0/auth/session/user 25 times at once is limited like /api/rest/2.0/…', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, () => raw(limited.url, 'GET', '/api/rest/2%2E0/auth/session/user', { headers: { authorization: `Bearer ${token}` } })));
    const statuses = answers.map((a) => a.status);
    assert.ok(statuses.every((s) => s === 200 || s === 429), statuses.join(','));
    assert.ok(statuses.includes(429), `25 requests over a limit of 5 per second, none refused: ${statuses.join(',')}`);
    // the encoded path is the v2 route (the same answer as the plain one)
    const ok = answers.find((a) => a.status === 200);
    if (ok) assert.equal((JSON.parse(ok.text) as { name: string }).name, 'tsadmin');
  });

  test('--rate-limit 5: an encoded v1 path is limited too', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, () => raw(limited.url, 'GET', '/callosum/v1/tspublic/%76%31/metadata/listobjectheaders?type=LOGICAL_TABLE', { headers: { authorization: `Bearer ${token}` } })));
    assert.ok(answers.some((a) => a.status === 429), answers.map((a) => a.status).join(','));
  });

  test('--public-api v2: every spelling of a /tspublic/v1 path is 404, and none logs in', async () => {
    const u = new URL(v2only.url);
    for (const target of [
      `${V1}/session/login`,
      '/callosum/v1/tspublic/%76%31/session/login',
      '/callosum/v1/tspublic/v%31/session/login',
      '/%63allosum/v1/tspublic/v1/session/login',
      '/tspublic/%76%31/session/login',
      `http://${u.host}/callosum/v1/tspublic/%76%31/session/login`,
      `http://${u.host}${V1}/session/login`,
    ]) {
      const r = await raw(v2only.url, 'POST', target, { headers: FORM, body: FORM_LOGIN });
      assert.equal(r.status, 404, `${target}: ${r.status} ${r.text}`);
      assert.equal(r.headers['set-cookie'], undefined, target);
      assert.match(r.text, /REST API v1 is not available/, target);
    }
    // v2 itself, encoded, still answers
    const t = await raw(v2only.url, 'POST', '/api/rest/2%2E0/auth/token/full', { headers: JSON_TYPE, body: JSON_LOGIN });
    assert.equal(t.status, 200, t.text);
  });
});

describe('Host header on a loopback address (DNS rebinding)', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await emulator({ loadPort: 0 });
  });

  test('hostAllowed: the address it listens on, localhost, 127.0.0.1 and [::1], any port; nothing else', () => {
    for (const h of ['127.0.0.1', '127.0.0.1:8088', 'localhost', 'LOCALHOST:1', '[::1]', '[::1]:8088', 'localhost:65535']) assert.equal(hostAllowed(h, '127.0.0.1'), true, h);
    for (const h of [FOREIGN, `${FOREIGN}:8088`, 'localhost.', 'localhost.attacker.example', '127.0.0.1.nip.io', 'a.localhost', '127.0.0.2', '0.0.0.0', '::1', '[::1', 'user@127.0.0.1', '127.0.0.1:80x', '127.0.0.1:', '', ' 127.0.0.1']) {
      assert.equal(hostAllowed(h, '127.0.0.1'), false, h);
    }
    assert.equal(hostAllowed('127.0.0.2:9', '127.0.0.2'), true);
    assert.equal(hostAllowed('[::1]:9', '::1'), true);
    assert.equal(hostAllowed('[0:0:0:0:0:0:0:1]:9', '0:0:0:0:0:0:0:1'), true);
    // no Host at all (HTTP/1.0) cannot come from a browser: allowed
    assert.equal(hostAllowed(undefined, '127.0.0.1'), true);
  });

  test(`Host: ${FOREIGN} is refused on v1 login, v2 token and the data-load login, on both ports`, async () => {
    const loadUrl = emu.loadUrl!;
    const cases: { name: string; url: string; target: string; headers: Record<string, string>; body: string; shape: 'v1' | 'v2' | 'text' }[] = [
      { name: 'v1 login', url: emu.url, target: `${V1}/session/login`, headers: FORM, body: FORM_LOGIN, shape: 'v1' },
      { name: 'v1 login without /callosum', url: emu.url, target: '/tspublic/v1/session/login', headers: FORM, body: FORM_LOGIN, shape: 'v1' },
      { name: 'v2 token', url: emu.url, target: `${V2}/auth/token/full`, headers: JSON_TYPE, body: JSON_LOGIN, shape: 'v2' },
      { name: 'v2 session login', url: emu.url, target: `${V2}/auth/session/login`, headers: JSON_TYPE, body: JSON_LOGIN, shape: 'v2' },
      { name: 'data-load login', url: emu.url, target: LOAD_LOGIN, headers: JSON_TYPE, body: JSON_LOGIN, shape: 'text' },
      { name: 'data-load login on the load port', url: loadUrl, target: LOAD_LOGIN, headers: JSON_TYPE, body: JSON_LOGIN, shape: 'text' },
    ];
    for (const c of cases) {
      for (const host of [FOREIGN, `${FOREIGN}:${new URL(c.url).port}`]) {
        const r = await raw(c.url, 'POST', c.target, { host, headers: c.headers, body: c.body });
        const what = `${c.name} with Host ${host}: ${r.status} ${r.text}`;
        assert.equal(r.status, 403, what);
        assert.equal(r.headers['set-cookie'], undefined, what);
        assert.doesNotMatch(r.text, /token/i, what);
        if (c.shape === 'text') {
          assert.match(String(r.headers['content-type']), /^text\/plain/, what);
          assert.match(r.text, /Host/, what);
        } else {
          // v2: the OpenAPI document's error shape, `error.message` an object with the v2 code and the text in `debug`
          const body = JSON.parse(r.text) as { debug?: string; error?: { message: { code: number; debug: string } } };
          const message = c.shape === 'v2' ? body.error!.message.debug : (JSON.parse(body.debug!) as string[]).join(' ');
          if (c.shape === 'v2') assert.equal(body.error!.message.code, 10023, what);
          assert.match(message, /Host header/, what);
          assert.match(message, /DNS rebinding/, what);
        }
      }
    }
  });

  test('an absolute-form target naming a foreign host is refused even with a loopback Host', async () => {
    const port = new URL(emu.url).port;
    const r = await raw(emu.url, 'POST', `http://${FOREIGN}:${port}${V1}/session/login`, { host: `127.0.0.1:${port}`, headers: FORM, body: FORM_LOGIN });
    assert.equal(r.status, 403, r.text);
    const ok = await raw(emu.url, 'POST', `http://127.0.0.1:${port}${V1}/session/login`, { headers: FORM, body: FORM_LOGIN });
    assert.equal(ok.status, 204, ok.text);
  });

  test('the names of this machine are answered as before, whatever the port (a tunnel or a local proxy)', async () => {
    const port = new URL(emu.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost', 'LocalHost:9999', '127.0.0.1']) {
      const v1 = await raw(emu.url, 'POST', `${V1}/session/login`, { host, headers: FORM, body: FORM_LOGIN });
      assert.equal(v1.status, 204, `${host}: ${v1.text}`);
      const v2 = await raw(emu.url, 'POST', `${V2}/auth/token/full`, { host, headers: JSON_TYPE, body: JSON_LOGIN });
      assert.equal(v2.status, 200, `${host}: ${v2.text}`);
      const load = await raw(emu.loadUrl!, 'POST', LOAD_LOGIN, { host, headers: JSON_TYPE, body: JSON_LOGIN });
      assert.equal(load.status, 200, `${host}: ${load.text}`);
    }
  });
});

describe('REST API v2 logins take JSON only', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await emulator();
  });

  test('auth/token/full and auth/session/login: a form, text or untyped body is 415 with the v2 error body; JSON answers', async () => {
    for (const route of ['/auth/token/full', '/auth/session/login']) {
      const refused: [Record<string, string>, string][] = [
        [FORM, FORM_LOGIN],
        [{ 'content-type': 'text/plain' }, JSON_LOGIN],
        [{ 'content-type': 'multipart/form-data; boundary=x' }, `--x\r\nContent-Disposition: form-data; name="username"\r\n\r\ntsadmin\r\n--x\r\nContent-Disposition: form-data; name="password"\r\n\r\nadmin\r\n--x--\r\n`],
        [{ 'content-type': 'application/jsonx' }, JSON_LOGIN],
        [{}, JSON_LOGIN],
      ];
      for (const [headers, body] of refused) {
        const r = await raw(emu.url, 'POST', `${V2}${route}`, { headers, body });
        const what = `${route} ${JSON.stringify(headers)}: ${r.status} ${r.text}`;
        assert.equal(r.status, 415, what);
        assert.equal(r.headers['set-cookie'], undefined, what);
        const e = (JSON.parse(r.text) as { error: { message: { code: number; debug: string } } }).error.message;
        assert.equal(e.code, 10002, what);
        assert.match(e.debug, /application\/json/, what);
      }
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
        const r = await raw(emu.url, 'POST', `${V2}${route}`, { headers: { 'content-type': type }, body: JSON_LOGIN });
        assert.ok(r.status === 200 || r.status === 204, `${route} ${type}: ${r.status} ${r.text}`);
      }
    }
  });
});
