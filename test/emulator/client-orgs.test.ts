// The client in an Org (common/src/api/orgs.ts, `AnalyticsServiceClientOptions.org`): on v1 the session
// enters the Org after its login (session/orgs), on v2 the token is asked for it (org_id; a name looked
// up first), and every call then runs there; `listOrgs` names the user's Orgs and the current one; an Org
// the user is not in is refused with its Orgs named. Against a real emulator with the demo seed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AnalyticsServiceClient, type RequestLogInfo } from '../../common/src/api';
import { readConnectionFile, resolveConnection, serviceClientOptions } from '../../common/src/connectionConfig';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore, type Core } from './core-support';

let core: Core;
before(async () => {
  core = await startCore();
});
after(async () => core.stop());

function client(apiVersion: 'v1' | 'v2', org: string | undefined, username = 'analyst', password = username, log?: RequestLogInfo[]): AnalyticsServiceClient {
  return new AnalyticsServiceClient({ url: core.emu.url, username, password, apiVersion, ...(org !== undefined ? { org } : {}), ...(log ? { onRequest: (i) => log.push(i) } : {}) });
}

async function tables(c: AnalyticsServiceClient): Promise<string[]> {
  return (await c.listObjectHeaders({ type: 'LOGICAL_TABLE' })).map((h) => h.name).sort();
}

for (const generation of ['v1', 'v2'] as const) {
  describe(`a client in an Org (${generation})`, () => {
    test('by name: every call runs in Finance; listOrgs names both Orgs and the current one', async () => {
      const c = client(generation, 'Finance');
      try {
        assert.deepEqual(await tables(c), ['quotes']);
        const orgs = await c.listOrgs();
        assert.deepEqual(orgs.orgs.map((o) => o.name).sort(), ['Finance', 'Primary']);
        assert.equal(orgs.current?.name, 'Finance');
        const r = await c.searchData({ queryString: '[symbol] [price]', dataSourceGuid: (await c.listObjectHeaders({ type: 'LOGICAL_TABLE' }))[0]!.id });
        assert.ok(r.rowCount > 0);
      } finally {
        await c.close();
      }
    });

    test('by id, and without an Org the user\'s own (Primary)', async () => {
      const finance = (await client(generation, undefined).listOrgs()).orgs.find((o) => o.name === 'Finance')!;
      const byId = client(generation, String(finance.id));
      const own = client(generation, undefined);
      try {
        assert.deepEqual(await tables(byId), ['quotes']);
        const primary = await tables(own);
        assert.ok(primary.includes('flights') && !primary.includes('quotes'));
        assert.equal((await own.listOrgs()).current?.name, 'Primary');
      } finally {
        await byId.close();
        await own.close();
      }
    });

    test('an Org the user is not in is refused, naming its Orgs; nothing of it is read', async () => {
      const c = client(generation, 'Primary', 'trader');
      try {
        await assert.rejects(tables(c), (e: Error) => /trader is not a member of an Org "Primary"/.test(e.message) && /Finance \(\d+\)/.test(e.message));
      } finally {
        await c.close();
      }
    });
  });
}

test('a connection file names its Org, and --org overrides it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-org-conn-'));
  try {
    const file = join(dir, 'connections.json');
    writeFileSync(file, JSON.stringify({ connections: [{ name: 'emu', url: core.emu.url, username: 'analyst', org: 'Finance' }] }));
    assert.equal(readConnectionFile(file).connections[0]!.org, 'Finance');
    const env = { TSQ_PASSWORD: 'analyst' };
    const fromFile = resolveConnection({ config: file, connection: 'emu' }, { allowDefault: true, cwd: dir, env, home: dir })!;
    assert.equal(serviceClientOptions(fromFile, { env }).org, 'Finance');
    const overridden = resolveConnection({ config: file, connection: 'emu', org: '0' }, { allowDefault: true, cwd: dir, env, home: dir })!;
    const c = new AnalyticsServiceClient(serviceClientOptions(overridden, { env }));
    try {
      assert.ok((await tables(c)).includes('flights'));
    } finally {
      await c.close();
    }
    writeFileSync(file, JSON.stringify({ connections: [{ name: 'emu', url: core.emu.url, username: 'analyst', org: '' }] }));
    assert.throws(() => readConnectionFile(file), /must name an Org/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
