// `tsq tml export --type user|group --all` against a real emulator with the built `tsq` as a child
// process (node esbuild.mjs first): on REST API v2 in pages of metadata/tml/export/batch (62 users: two
// pages, a line per batch), the same files by GUID through metadata/tml/export on a service without the
// batched export (v1 only), nothing of another Org, and Ctrl-C during a page: that page written, no other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { assertExportInterrupted, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };
const EXTRA = 110;
const FALLBACK = /no metadata\/tml\/export\/batch .*exporting by GUID through metadata\/tml\/export/;

for (const generation of ['v2', 'v1'] as const) {
  describe(`tsq tml export --type user --all on a service with REST API ${generation} only`, () => {
    let live: Live;
    let dir: string;
    let users: string[];
    before(async () => {
      live = await startLive({ options: { publicApi: generation } });
      dir = mkdtempSync(join(tmpdir(), `tsq-tml-batch-${generation}-`));
      const client = live.client(undefined, { apiVersion: generation });
      const principals = Array.from({ length: EXTRA }, (_, i) => ({ name: `member${String(i).padStart(2, '0')}`, displayName: `Member ${i}`, principalTypeEnum: 'LOCAL_USER', groupNames: [] }));
      await client.syncPrincipals({ principals, applyChanges: true, password: 'Member-pass-1' });
      users = (await client.listPrincipals()).filter((p) => p.kind === 'USER').map((p) => p.name).sort();
      assert.ok(users.length > 100 && users.length <= 150, `three pages of 50: ${users.length}`);
      assert.ok(!users.includes('trader'), 'the Finance Org\'s user is not of the Primary Org');
    });
    after(async () => {
      await live?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test(generation === 'v2' ? 'three pages of metadata/tml/export/batch, a line per batch; one file per user of the Org' : 'no batched export: said once, then by GUID in batches of 50; the same files', async () => {
      const out = join(dir, 'users');
      const r = await tsq(['tml', 'export', '--type', 'user', '--all', '-o', out, '--url', live.emu.url, '--user', 'tsadmin'], { env: ENV });
      assert.equal(r.code, 0, r.stderr);
      // stdout names each file (the password "admin" redacted inside tsadmin's)
      assert.equal(r.stdout.split('\n').filter(Boolean).length, users.length);
      assert.deepEqual(readdirSync(out).sort(), users.map((u) => `${u}.user.tml`).sort());
      const doc = parse(readFileSync(join(out, 'member07.user.tml'), 'utf8')) as { guid: string; user: { name: string; display_name: string } };
      assert.equal(doc.user.name, 'member07');
      assert.equal(doc.user.display_name, 'Member 7');
      assert.deepEqual(r.stderr.match(/^exported .*$/gm), [`exported 50 of ${users.length} (batch 1 of 3)`, `exported 100 of ${users.length} (batch 2 of 3)`, `exported ${users.length} of ${users.length} (batch 3 of 3)`]);
      if (generation === 'v2') assert.doesNotMatch(r.stderr, FALLBACK);
      else assert.equal(r.stderr.match(new RegExp(FALLBACK.source, 'gm'))?.length, 1, r.stderr);
    });

    if (generation === 'v2') {
      test('--type group --all: every group of the Org, as TML with its privileges', async () => {
        const out = join(dir, 'groups');
        const r = await tsq(['tml', 'export', '--type', 'group', '--all', '-o', out, '--url', live.emu.url, '--user', 'tsadmin'], { env: ENV });
        assert.equal(r.code, 0, r.stderr);
        const groups = (await live.client(undefined, { apiVersion: generation }).listPrincipals()).filter((p) => p.kind === 'GROUP').map((p) => `${p.name}.group.tml`).sort();
        assert.deepEqual(readdirSync(out).sort(), groups);
        const first = parse(readFileSync(join(out, groups[0]!), 'utf8')) as { group: { privileges: unknown } };
        assert.ok(Array.isArray(first.group.privileges));
      });

      test('Ctrl-C during the second page: the page in flight is written, no other; exit 130 saying how many', () =>
        assertExportInterrupted({ target: live.emu.url, path: '/metadata/tml/export/batch', args: ['tml', 'export', '--type', 'user', '--all'], env: ENV, out: join(dir, 'interrupted'), total: users.length, suffix: '.user.tml' }));
    }
  });
}
