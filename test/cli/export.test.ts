// `tsq export`: an answer's report and one liveboard visualization's as CSV, through REST API v2
// report/answer and report/liveboard, on a service with both generations and on a v2-only one (v1 has no
// such call). The built `tsq` runs as a child process against a real emulator; the CSV holds the rows
// metadata/answer/data gives.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startLive, type Live } from '../emulator/client-support';
import { tsq } from './cli-support';

for (const publicApi of ['both', 'v2'] as const) {
  describe(`tsq export (--public-api ${publicApi})`, () => {
    let live: Live;
    let dir: string;
    let conn: string[];
    const env = { TSQ_PASSWORD: 'admin' };
    before(async () => {
      live = await startLive({ options: { publicApi } });
      dir = mkdtempSync(join(tmpdir(), 'tsq-cli-export-'));
      conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    });
    after(async () => {
      await live?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("an answer's report to stdout holds the answer's rows", async () => {
      const r = await tsq(['export', 'Top grossing genres', ...conn], { env });
      assert.equal(r.code, 0, r.stderr);
      const rows = parse(r.stdout) as string[][];
      const token = await (await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) })).json() as { token: string };
      const data = await (await fetch(`${live.emu.url}/api/rest/2.0/metadata/answer/data`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token.token}` }, body: JSON.stringify({ metadata_identifier: 'Top grossing genres', record_size: -1 }) })).json() as { contents: { column_names: string[]; data_rows: unknown[][] }[] };
      assert.deepEqual(rows[0], data.contents[0]!.column_names);
      assert.deepEqual(rows.slice(1), data.contents[0]!.data_rows.map((row) => row.map(String)));
    });

    test("one liveboard visualization's report to a file; a liveboard of several without --viz is refused with the service's message", async () => {
      const out = join(dir, 'delays.csv');
      const r = await tsq(['export', 'Flight Operations', '--liveboard', '--viz', 'Total delay by origin, top 10', '--out', out, ...conn], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal((parse(readFileSync(out, 'utf8')) as string[][]).length, 11, 'a header and the top 10');
      const many = await tsq(['export', 'Flight Operations', '--liveboard', ...conn], { env });
      assert.notEqual(many.code, 0);
      assert.match(many.stderr, /visualization_identifiers/);
    });
  });
}
