// The command line in an Org: `--org ID|NAME` on a command or before it (a program-level option) makes
// the command run there, on v1 and on v2; `tsq orgs` lists the user's Orgs with the current one; an Org
// the user is not in fails with the user's Orgs named. The built `tsq` against a real emulator (demo
// seed: Orgs Primary and Finance; `analyst` is in both, `trader` in Finance only); the administrator reaches
// every Org, one it was never added to included, where analyst cannot.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from '../emulator/client-support';
import { tsq } from './cli-support';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => live?.stop());

const env = { TSQ_PASSWORD: 'analyst' };

async function names(args: string[]): Promise<string[]> {
  const r = await tsq(args, { env });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { name: string }[]).map((o) => o.name).sort();
}

for (const api of ['v1', 'v2'] as const) {
  describe(`--org (${api})`, () => {
    const conn = (): string[] => ['--url', live.emu.url, '--user', 'analyst', '--api-version', api];

    test('on the command and before it: objects of that Org only', async () => {
      assert.deepEqual(await names(['objects', '--format', 'json', ...conn(), '--org', 'Finance']), ['quotes']);
      assert.deepEqual(await names(['--org', 'finance', 'objects', '--format', 'json', ...conn()]), ['quotes']);
      const primary = await names(['objects', '--format', 'json', ...conn()]);
      assert.ok(primary.includes('flights') && !primary.includes('quotes'), primary.join());
    });

    test('tsq orgs lists the Orgs and marks the current one; --org by id', async () => {
      const r = await tsq(['orgs', '--format', 'json', ...conn(), '--org', 'Finance'], { env });
      assert.equal(r.code, 0, r.stderr);
      const a = JSON.parse(r.stdout) as { current: { id: number; name: string }; orgs: { id: number; name: string }[] };
      assert.equal(a.current.name, 'Finance');
      assert.deepEqual(a.orgs.map((o) => o.name).sort(), ['Finance', 'Primary']);
      const table = await tsq(['orgs', ...conn(), '--org', String(a.current.id)], { env });
      assert.match(table.stdout, /^\s*\*\s+\d+\s+Finance\s*$/m, table.stdout);
      assert.match(table.stdout, /^\s+0\s+Primary\s*$/m, table.stdout);
    });

    test('an Org the user is not in: a failure naming the user\'s Orgs', async () => {
      const r = await tsq(['objects', '--url', live.emu.url, '--user', 'trader', '--api-version', api, '--org', 'Primary'], { env: { TSQ_PASSWORD: 'trader' } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /not a member of an Org "Primary"/);
      assert.match(r.stderr, /Finance/);
      assert.equal(r.stdout, '');
    });
  });
}

describe('the administrator of every Org', () => {
  test('tsq orgs as tsadmin lists every Org, one it was never added to included, and --org reaches each; analyst cannot reach that one', async () => {
    const admin = { TSQ_PASSWORD: 'admin' };
    const r = await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
    const token = ((await r.json()) as { token: string }).token;
    const created = await fetch(`${live.emu.url}/api/rest/2.0/orgs/create`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'Audit' }) });
    assert.equal(created.status, 200);
    for (const api of ['v1', 'v2'] as const) {
      const conn = ['--url', live.emu.url, '--user', 'tsadmin', '--api-version', api];
      const listed = await tsq(['orgs', '--format', 'json', ...conn], { env: admin });
      assert.equal(listed.code, 0, listed.stderr);
      const orgs = (JSON.parse(listed.stdout) as { orgs: { name: string }[] }).orgs.map((o) => o.name).sort();
      assert.deepEqual(orgs, ['Audit', 'Finance', 'Primary'], api);
      for (const org of orgs) {
        const current = await tsq(['orgs', '--format', 'json', ...conn, '--org', org], { env: admin });
        assert.equal(current.code, 0, current.stderr);
        assert.equal((JSON.parse(current.stdout) as { current: { name: string } }).current.name, org, `${api} ${org}`);
      }
      const objects = await tsq(['objects', '--format', 'json', ...conn, '--org', 'Audit'], { env: admin });
      assert.equal(objects.code, 0, objects.stderr);
      assert.deepEqual(JSON.parse(objects.stdout), [], 'a new Org has no objects');
      const analyst = await tsq(['objects', '--url', live.emu.url, '--user', 'analyst', '--api-version', api, '--org', 'Audit'], { env });
      assert.notEqual(analyst.code, 0);
      assert.match(analyst.stderr, /not a member of an Org "Audit"/);
    }
  });
});
