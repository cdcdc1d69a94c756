// `tsq tml import` then `tsq tml export` of Answer TML in the shapes clusters export
// (test/fixtures/exportedAnswers.ts), against a real emulator on REST API v1 only and on v2 only: the
// exported file is the imported file, byte for byte, and `tsq tml export` of a typed answer writes its
// search in the token form (docs/service-notes.md §3.5). The built `tsq` runs as a child process
// (node esbuild.mjs first).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { exportedAnswers } from '../fixtures/exportedAnswers';
import { tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

for (const generation of ['v1', 'v2'] as const) {
  describe(`tsq tml import → export on REST API ${generation} only`, () => {
    let live: Live;
    let dir: string;
    let conn: string[];
    before(async () => {
      live = await startLive({ options: { publicApi: generation } });
      dir = mkdtempSync(join(tmpdir(), `tsq-tml-roundtrip-${generation}-`));
      conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    });
    after(async () => {
      await live?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Imports `text` from a file, exports the answer into a folder of its own; the exported file's text. */
    async function roundTrip(name: string, text: string, extra: string[] = []): Promise<string> {
      const file = join(dir, `${name}.answer.tml`);
      writeFileSync(file, text);
      const i = await tsq(['tml', 'import', file, ...conn], { env: ENV });
      assert.equal(i.code, 0, i.stdout + i.stderr);
      const guid = /: OK ([0-9a-f-]{36})/.exec(i.stdout)?.[1];
      assert.ok(guid, i.stdout);
      const out = join(dir, `out-${name}`);
      const e = await tsq(['tml', 'export', '--type', 'answer', guid, '-o', out, ...extra, ...conn], { env: ENV });
      assert.equal(e.code, 0, e.stderr);
      return readFileSync(e.stdout.trim(), 'utf8');
    }

    test('an exported-shaped file comes back byte for byte', async () => {
      const text = exportedAnswers()['a DUMMY.answer.tml shape']!;
      assert.equal(await roundTrip('dummy', text), text);
    });
    test('a typed search comes back in the token form, and that file back as it is', async () => {
      const typed = `answer:\n  name: Delays from two airports\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[Origin] [delay] [origin] = 'SEA', 'PDX' [date] last 180 days"\n`;
      const first = await roundTrip('typed', typed);
      assert.equal(parse(first).answer.search_query, "[origin] [delay] [origin] = [origin].SEA [origin].PDX [date].'last 180 days'");
      assert.equal(await roundTrip('typed-again', first), first);
    });
  });
}
