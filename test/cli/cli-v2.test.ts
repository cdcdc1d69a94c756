// The command line against a service where REST API v1 is gone (`--public-api v2`), signing in with a
// password and with a token from TSQ_TOKEN; and TSQ_TOKEN under the same trust gate as TSQ_PASSWORD.
// The built `tsq` runs as a child process against a real emulator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countRows, startLive, type Live } from '../emulator/client-support';
import { recordingServer, tsq, type TsqRun } from './cli-support';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-workspace');
const STOCKS = 'demo.engine_default_schema.stocks';
const STOCKS_SQL = '"demo.engine_default_schema"."stocks"';

let live: Live;
let dir: string;
let conn: string[];
let token: string;

before(async () => {
  live = await startLive({ options: { publicApi: 'v2' } });
  dir = mkdtempSync(join(tmpdir(), 'tsq-cli-v2-'));
  conn = ['--url', live.emu.url, '--user', 'tsadmin'];
  const r = await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin', validity_time_in_sec: 3600 }) });
  token = ((await r.json()) as { token: string }).token;
});

after(async () => {
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function noToken(run: TsqRun): void {
  assert.ok(!run.stdout.includes(token) && !run.stderr.includes(token), 'the token appears in the output');
}

for (const [how, env] of [
  ['a password', () => ({ TSQ_PASSWORD: 'admin' })],
  ['TSQ_TOKEN', () => ({ TSQ_TOKEN: token })],
] as const) {
  describe(`against --public-api v2 with ${how}`, () => {
    test('objects lists the data sources', async () => {
      const r = await tsq(['objects', '--format', 'json', ...conn], { env: env() });
      assert.equal(r.code, 0, r.stderr);
      const names = (JSON.parse(r.stdout) as { name: string }[]).map((o) => o.name);
      assert.ok(names.includes('flights') && names.includes('Flights Worksheet'), names.join());
      noToken(r);
    });
    test('objects --type lists users, groups, tags and columns over v2 (metadata/search)', async () => {
      for (const [type, expected] of [['USER', 'analyst'], ['USER_GROUP', 'Analysts'], ['LOGICAL_COLUMN', 'origin'], ['TAG', undefined]] as const) {
        const r = await tsq(['objects', '--type', type, '--format', 'json', ...conn], { env: env() });
        assert.equal(r.code, 0, `${type}: ${r.stderr}`);
        const names = (JSON.parse(r.stdout) as { name: string }[]).map((o) => o.name);
        if (expected) assert.ok(names.includes(expected), `${type}: ${names.join()}`);
      }
    });
    test('query runs a query and pages through its answer', async () => {
      const r = await tsq(['query', join(DEMO, 'flights.tsq'), '--query', '2', '--format', 'json', '--page-size', '2', ...conn], { env: env() });
      assert.equal(r.code, 0, r.stderr);
      const rows = JSON.parse(r.stdout) as unknown[];
      assert.ok(rows.length > 2, r.stdout);
      noToken(r);
    });
    test('check knows the columns', async () => {
      const bad = join(dir, `unknown-${how.replace(/\W/g, '')}.tsq`);
      writeFileSync(bad, "@datasource 'flights'\n[origin] [delayz]\n");
      const r = await tsq(['check', bad, ...conn], { env: env() });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /Unknown column \[delayz\] in "flights"\. Did you mean \[delay\]\?/);
      const clean = await tsq(['check', join(DEMO, 'flights.tsq'), ...conn], { env: env() });
      assert.equal(clean.code, 0, clean.stderr);
    });
  });
}

describe('load against --public-api v2', () => {
  test('with a password: the data-load API is unaffected by v1 being gone', async () => {
    const before = await countRows(live, STOCKS_SQL);
    const csv = join(dir, 'some.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const r = await tsq(['load', csv, '--table', STOCKS, '--json', ...conn], { env: { TSQ_PASSWORD: 'admin' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await countRows(live, STOCKS_SQL), before + 45);
  });
});

describe('load with TSQ_TOKEN alone', () => {
  test('the data-load API gets the token as a bearer: the rows are loaded, no password is asked for, the token is not printed', async () => {
    const before = await countRows(live, STOCKS_SQL);
    const csv = join(dir, 'token-only.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const r = await tsq(['load', csv, '--table', STOCKS, ...conn], { env: { TSQ_TOKEN: token } });
    assert.equal(r.code, 0, r.stderr);
    noToken(r);
    assert.equal(await countRows(live, STOCKS_SQL), before + 45);
  });

  test('a revoked token: the load fails with a message about the token, nothing is loaded, the token is not printed', async () => {
    const t = await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
    const revoked = ((await t.json()) as { token: string }).token;
    await fetch(`${live.emu.url}/api/rest/2.0/auth/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${revoked}` }, body: JSON.stringify({ token: revoked }) });
    const before = await countRows(live, STOCKS_SQL);
    const csv = join(dir, 'revoked.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const r = await tsq(['load', csv, '--table', STOCKS, ...conn], { env: { TSQ_TOKEN: revoked } });
    assert.notEqual(r.code, 0);
    assert.ok(!r.stdout.includes(revoked) && !r.stderr.includes(revoked), 'the token appears in the output');
    assert.match(r.stderr, /token/i);
    assert.equal(await countRows(live, STOCKS_SQL), before);
  });

  test('a data-load API that refuses bearer tokens: a message says to load with TSQ_PASSWORD, nothing is sent after the refusal, the token is not printed', async () => {
    // a data-load API that takes only its own login: every call 401 "Unable to verify user"
    const refusing = await recordingServer(undefined, { status: 401, contentType: 'text/plain', body: 'Unable to verify user. Please login again.' });
    try {
      const csv = join(dir, 'refused.csv');
      copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
      const r = await tsq(['load', csv, '--table', STOCKS, ...conn, '--load-url', refusing.url], { env: { TSQ_TOKEN: token } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /did not accept the connection's token/);
      assert.match(r.stderr, /TSQ_PASSWORD/);
      noToken(r);
      // on a v2-only service the load asks first, without signing in, whether there is a data-load API (loadPathOf)
      const [probe, ...rest] = refusing.requests;
      assert.ok(probe?.url === '/ts_dataservice/v1/public/ping' && probe.authorization === undefined, JSON.stringify(probe));
      assert.ok(rest.every((q) => q.url === '/ts_dataservice/v1/public/loads' && q.authorization === `Bearer ${token}`), JSON.stringify(rest.map((q) => q.url)));
      assert.ok(rest.length >= 1 && rest.length <= 2, 'StartLoad was sent more than twice');
    } finally {
      await refusing.close();
    }
  });
});

describe('TSQ_TOKEN and the trust gate', () => {
  test('a repository tsq.json connection never receives TSQ_TOKEN: exit 3 before any request', async () => {
    const attacker = await recordingServer();
    try {
      const home = mkdtempSync(join(tmpdir(), 'tsq-cli-v2-home-'));
      const repo = join(home, 'src', 'cloned');
      mkdirSync(join(repo, '.git'), { recursive: true });
      writeFileSync(join(repo, 'tsq.json'), JSON.stringify({ connections: [{ name: 'team', url: attacker.url, username: 'tsadmin', apiVersion: 'v2' }], default: 'team' }));
      writeFileSync(join(repo, 'q.tsq'), "@datasource 'flights'\n[origin]\n");
      const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TSQ_TOKEN: token };
      for (const args of [['objects'], ['query', 'q.tsq'], ['check', 'q.tsq']]) {
        const r = await tsq(args, { cwd: repo, env });
        assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /sends no password or token/);
        noToken(r);
      }
      assert.deepEqual(attacker.requests, [], 'the repository\'s server received a request');
      rmSync(home, { recursive: true, force: true });
    } finally {
      await attacker.close();
    }
  });

  test('a token for another service: a 401 message naming the service, a failed run, the token never printed', async () => {
    const other = await startLive({ options: { publicApi: 'v2' } });
    try {
      const r = await tsq(['objects', '--url', other.emu.url, '--user', 'tsadmin'], { env: { TSQ_TOKEN: token } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(other.emu.url.replace(/[.:/]/g, '\\$&')));
      assert.match(r.stderr, /refused the token/);
      noToken(r);
    } finally {
      await other.stop();
    }
  });
});
