// The emulator refuses abuse cheaply: the listobjectheaders pattern is matched without backtracking,
// request bodies are limited by who sends them, deeply nested JSON is a 400, and no response body
// carries the engine's text (it goes to the incident log with the incident id the body names).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { ANONYMOUS_BODY_LIMIT, MAX_JSON_DEPTH, SIGNED_IN_BODY_LIMIT, jsonNestingError } from '../../emulator/src/app';
import type { Incident } from '../../emulator/src/errors';
import { MAX_PATTERN_LENGTH, NamePattern } from '../../emulator/src/public/headers';
import { adminCore, debugOf, PREFIX } from './core-support';

const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
const incidents: Incident[] = [];
const core = adminCore({ incidentLog: (i) => incidents.push(i) });
let admin: string;
let analyst: string;

before(async () => {
  await core.ready;
  admin = core.cookie;
  analyst = await core.login('analyst', 'analyst');
});

/** The adversarial pattern of the report: `%_` n times and a character no name ends with. */
export function adversarialPattern(n: number): string {
  return `${'%_'.repeat(n)}!`;
}

describe('listobjectheaders pattern: no backtracking', () => {
  test('matches as before: % any run, _ one character, case-insensitive, whole name', () => {
    const cases: [string, string, boolean][] = [
      ['%', '', true], ['', '', true], ['', 'a', false], ['fl%', 'Flights', true], ['%GHT%', 'flights', true], ['f_ights', 'flights', true],
      ['%s', 'flights', true], ['%x', 'flights', false], ['a%a', 'a', false], ['a%a', 'aa', true], ['_%_', 'a', false], ['%ab%ab%', 'abab', true],
      ['%ab%ab%', 'aba', false], ['a.b', 'axb', false], ['(x)*', '(x)*', true], ['%é', 'CAFÉ', true], ['_', '😀', true],
    ];
    for (const [p, name, want] of cases) assert.equal(new NamePattern(p).test(name), want, `${p} against ${name}`);
  });

  test('an adversarial pattern costs at most name length × pattern length comparisons', () => {
    // every middle segment matches at the first place it looks: the naive regex took 17 s for far less
    const name = 'a'.repeat(5000);
    for (const p of [adversarialPattern(500), `${'%a'.repeat(500)}!`, `%${'a_'.repeat(200)}b%a`, `${'%a'.repeat(250)}%${'a'.repeat(100)}b%`]) {
      const m = new NamePattern(p);
      assert.equal(m.test(name), false);
      assert.ok(m.comparisons <= name.length * p.length, `${m.comparisons} comparisons for a ${p.length}-character pattern`);
    }
  });

  test('over HTTP an adversarial pattern answers, and a pattern too long is a 400', async () => {
    const r = await core.call('GET', '/metadata/listobjectheaders', { type: 'LOGICAL_COLUMN', pattern: adversarialPattern(400) }, analyst);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, []);
    const long = await core.call('GET', '/metadata/listobjectheaders', { pattern: '%'.repeat(MAX_PATTERN_LENGTH + 1) }, analyst);
    assert.equal(long.status, 400);
  });
});

/** A raw POST to the emulator. */
async function post(path: string, body: string | Uint8Array | ReadableStream, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const r = await fetch(`${core.emu.url}${path}`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  return { status: r.status, text: await r.text() };
}

/** A body of `n` bytes sent in chunks without a Content-Length (chunked transfer encoding). */
function streamOf(n: number): ReadableStream<Uint8Array> {
  let left = n;
  return new ReadableStream({
    pull(c) {
      if (left <= 0) return c.close();
      const k = Math.min(left, 1024);
      left -= k;
      c.enqueue(new Uint8Array(k).fill(0x61));
    },
  });
}

describe('body limits', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  test('a login body over a few KiB is refused with 413, declared or streamed', async () => {
    const big = `username=tsadmin&password=${'a'.repeat(ANONYMOUS_BODY_LIMIT)}`;
    assert.equal((await post(`${PREFIX}/session/login`, big, form)).status, 413);
    assert.equal((await post(`${PREFIX}/session/login`, streamOf(ANONYMOUS_BODY_LIMIT * 4), form)).status, 413);
    // the data-load API answers every failed login 401 (docs/service-interface.md §4.1): right credentials padded past the limit fail
    const padded = JSON.stringify({ username: 'tsadmin', password: 'admin', padding: 'y'.repeat(ANONYMOUS_BODY_LIMIT) });
    assert.equal((await post('/ts_dataservice/v1/public/session', padded, { 'content-type': 'application/json' })).status, 401);
    assert.equal((await post('/ts_dataservice/v1/public/session', JSON.stringify({ username: 'tsadmin', password: 'admin' }), { 'content-type': 'application/json' })).status, 200);
    // a login of normal size still works
    const ok = (await post(`${PREFIX}/session/login`, 'username=tsadmin&password=admin', form)).status;
    assert.ok(ok === 200 || ok === 204, `login answered ${ok}`);
  });

  test('a forged session cookie does not lift the limit; a real one lifts it to the signed-in limit', async () => {
    const body = `query_string=${'a'.repeat(ANONYMOUS_BODY_LIMIT * 2)}&data_source_guid=${FLIGHTS}`;
    assert.equal((await post(`${PREFIX}/searchdata`, body, { ...form, cookie: 'JSESSIONID=forged' })).status, 413);
    const signed = await post(`${PREFIX}/searchdata`, body, { ...form, cookie: admin });
    assert.notEqual(signed.status, 413);
    const huge = `query_string=${'a'.repeat(SIGNED_IN_BODY_LIMIT + 1)}`;
    assert.equal((await post(`${PREFIX}/searchdata`, huge, { ...form, cookie: admin })).status, 413);
  });

  test('the data-load API: its own session lifts the limit for a load definition', async () => {
    const login = await fetch(`${core.emu.url}/ts_dataservice/v1/public/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
    assert.equal(login.status, 200);
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const def = JSON.stringify({ target: { database: 'nope', table: 'nope' }, padding: 'x'.repeat(ANONYMOUS_BODY_LIMIT * 2) });
    // the data-load API names a refused StartLoad body in x-tsq-detail (emulator/src/load/index.ts)
    const anonymous = await fetch(`${core.emu.url}/ts_dataservice/v1/public/loads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: def });
    assert.match(anonymous.headers.get('x-tsq-detail') ?? '', /larger than 4096 bytes/);
    const signed = await fetch(`${core.emu.url}/ts_dataservice/v1/public/loads`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: def });
    assert.doesNotMatch(signed.headers.get('x-tsq-detail') ?? '', /larger than/);
  });
});

describe('nested JSON', () => {
  test('JSON nested deeper than the limit answers 400, not 500, signed in or not', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const [path, cookie] of [[`${PREFIX}/user/sync`, admin], [`${PREFIX}/searchdata`, admin], [`${PREFIX}/session/login`, '']] as const) {
      const body = path.endsWith('login') ? '['.repeat(1000) + ']'.repeat(1000) : deep;
      const r = await post(path, body, { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) });
      assert.equal(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
    }
    assert.equal((await post('/ts_dataservice/v1/public/session', '{"a":'.repeat(1000) + '1' + '}'.repeat(1000), { 'content-type': 'application/json' })).status, 401);
  });
  test('the depth scan skips strings and escapes', () => {
    assert.equal(jsonNestingError(JSON.stringify({ a: '['.repeat(1000), b: '\\"[[[[' })), undefined);
    assert.ok(jsonNestingError('['.repeat(MAX_JSON_DEPTH + 1)));
    assert.equal(jsonNestingError('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)), undefined);
  });
});

describe('error texts', () => {
  const engineWords = /duckdb|out of range error|conversion error|invalid input error|binder error|parser error|catalog error|\bselect\b|\bfrom\s+"|\blimit\s+\d|\border by\b|int64|int32|hugeint/i;
  test('top 999999999999999999999 answers the service message and an incident id; the engine text is only in the log', async () => {
    incidents.length = 0;
    const r = await core.call('POST', '/searchdata', { query_string: '[origin] top 999999999999999999999', data_source_guid: FLIGHTS }, admin);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    const text = JSON.stringify(r.body);
    assert.doesNotMatch(text, engineWords);
    assert.match(debugOf(r.body)[0]!, /^The query could not run: /);
    const incident = incidents.find((i) => i.incident === r.body.incident_id_guid);
    assert.ok(incident, 'the incident is logged under the id the body names');
    assert.match(incident.detail, /Error/);
  });
  test('hostile queries and parameters: no body carries engine text or SQL', async () => {
    const queries = [
      '[origin] top 999999999999999999999', '[origin] bottom -99999999999999999999999', '[delay] > 99999999999999999999999999999', '[date] = \'99:99:99\'',
      "[origin] = 'x'' ; drop table flights; --'", '[delay] = 1e999', '[date] after 9999-99-99', '[origin] top 0', 'sum [delay] top 18446744073709551616',
    ];
    for (const q of queries) {
      const extras: Record<string, string | number>[] = [{}, { batchsize: 99999999999 }, { offset: '9007199254740993' }, { pagenumber: 99999999999 }];
      for (const extra of extras) {
        const r = await core.call('POST', '/searchdata', { query_string: q, data_source_guid: FLIGHTS, ...extra }, admin);
        if (r.status >= 400) assert.doesNotMatch(JSON.stringify(r.body), engineWords, `${q} ${JSON.stringify(extra)}`);
      }
    }
  });
});
