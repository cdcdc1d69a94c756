/**
 * The session's cookie jar (common/src/api/cookieJar.ts): Max-Age and Expires end a cookie, Path limits
 * where it is sent (RFC 6265 §5.1.4, §5.3), and an HttpSession sends what its jar holds to the paths the
 * service asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { CookieJar, defaultCookiePath, pathMatches } from '../../common/src/api/cookieJar';
import { HttpSession } from '../../common/src/api/session';

const login = '/callosum/v1/tspublic/v1/session/login';

/** A jar on a clock the test moves. */
function jarAt(start = Date.UTC(2026, 0, 1)) {
  const clock = { now: start };
  return { jar: new CookieJar(() => clock.now), clock };
}

test('a cookie with Path=/ goes to every path; replacing it keeps one', () => {
  const { jar } = jarAt();
  jar.store(['JSESSIONID=a; Path=/; HttpOnly', 'clientId=c; Path=/'], login);
  assert.equal(jar.header('/callosum/v1/tspublic/v1/searchdata?x=1'), 'JSESSIONID=a; clientId=c');
  jar.store('JSESSIONID=b; Path=/', login);
  assert.equal(jar.header('/ts_dataservice/v1/public/loads'), 'JSESSIONID=b; clientId=c');
  assert.equal(jar.size, 2);
});

test('Max-Age ends a cookie after that many seconds; 0 removes it at once', () => {
  const { jar, clock } = jarAt();
  jar.store(['short=1; Path=/; Max-Age=60', 'long=2; Path=/'], login);
  clock.now += 59_000;
  assert.equal(jar.header('/x'), 'short=1; long=2');
  clock.now += 1_000;
  assert.equal(jar.header('/x'), 'long=2');
  jar.store('long=; Path=/; Max-Age=0', login);
  assert.equal(jar.header('/x'), undefined);
  assert.equal(jar.size, 0);
});

test('Expires ends a cookie at that date; a past date removes it; Max-Age wins over Expires', () => {
  const { jar, clock } = jarAt(Date.UTC(2026, 0, 1));
  jar.store('a=1; Path=/; Expires=Fri, 02 Jan 2026 00:00:00 GMT', login);
  assert.equal(jar.header('/x'), 'a=1');
  clock.now = Date.UTC(2026, 0, 2);
  assert.equal(jar.header('/x'), undefined, 'expired at its Expires date');
  jar.store('b=1; Path=/', login);
  jar.store('b=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT', login);
  assert.equal(jar.header('/x'), undefined, 'a past Expires deletes (how Fastify clears a cookie)');
  jar.store('c=1; Path=/; Max-Age=3600; Expires=Thu, 01 Jan 1970 00:00:00 GMT', login);
  assert.equal(jar.header('/x'), 'c=1', 'Max-Age wins over a past Expires');
});

test('Path limits where a cookie is sent; without Path it is the directory of the request that set it', () => {
  const { jar } = jarAt();
  jar.store('api=1; Path=/callosum', login);
  jar.store('load=2; Path=/ts_dataservice/v1/', login);
  jar.store('here=3', login);
  assert.equal(jar.header('/callosum/v1/tspublic/v1/session/info'), 'here=3; api=1');
  assert.equal(jar.header('/callosumx/v1'), undefined, 'a path is matched at a / boundary');
  assert.equal(jar.header('/callosum'), 'api=1');
  assert.equal(jar.header('/ts_dataservice/v1/public/loads/1'), 'load=2');
  assert.equal(jar.header('/callosum/v1/tspublic/v1/metadata/list'), 'api=1', 'the default path is /callosum/v1/tspublic/v1/session');
});

test('one name under two paths is two cookies, the longer path first', () => {
  const { jar } = jarAt();
  jar.store('id=root; Path=/', login);
  jar.store('id=deep; Path=/a/b', login);
  assert.equal(jar.header('/a/b/c'), 'id=deep; id=root');
  assert.equal(jar.header('/a'), 'id=root');
});

test('unparsable or nameless Set-Cookie lines are ignored', () => {
  const { jar } = jarAt();
  jar.store(['', 'novalue', '=x; Path=/'], login);
  assert.equal(jar.header('/'), undefined);
});

test('default path and path matching follow RFC 6265 §5.1.4', () => {
  assert.equal(defaultCookiePath('/a/b/c?x=/y'), '/a/b');
  assert.equal(defaultCookiePath('/a'), '/');
  assert.equal(defaultCookiePath(''), '/');
  assert.ok(pathMatches('/a/b', '/a'));
  assert.ok(pathMatches('/a/b', '/a/'));
  assert.ok(!pathMatches('/ab', '/a'));
  assert.ok(pathMatches('/?q=1', '/'));
});

test('an HttpSession sends its cookies by path and stops sending an expired one', async (t) => {
  const seen: { path: string; cookie: string | undefined }[] = [];
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = req.headers;
    seen.push({ path: req.url ?? '', cookie: headers.cookie });
    if (req.url === login) res.setHeader('set-cookie', ['JSESSIONID=s1; Path=/callosum; HttpOnly', 'gone=1; Path=/; Max-Age=0', 'temp=1; Path=/; Max-Age=1']);
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const dispatcher = new Agent();
  t.after(async () => {
    server.close();
    await dispatcher.close();
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const session = new HttpSession(origin, dispatcher, async (s, signal) => {
    await s.call({ operation: 'login', method: 'POST', path: login, repeatable: true, authenticated: false, signal });
  });
  await session.call({ operation: 'info', method: 'GET', path: '/callosum/v1/tspublic/v1/session/info', repeatable: true });
  await session.call({ operation: 'loads', method: 'GET', path: '/ts_dataservice/v1/public/loads', repeatable: true });
  await new Promise((done) => setTimeout(done, 1_100));
  await session.call({ operation: 'info', method: 'GET', path: '/callosum/v1/tspublic/v1/session/info', repeatable: true });
  assert.deepEqual(seen, [
    { path: login, cookie: undefined },
    { path: '/callosum/v1/tspublic/v1/session/info', cookie: 'JSESSIONID=s1; temp=1' },
    { path: '/ts_dataservice/v1/public/loads', cookie: 'temp=1' },
    { path: '/callosum/v1/tspublic/v1/session/info', cookie: 'JSESSIONID=s1' },
  ]);
});
