/**
 * `tsq query FILE.tsq --sql` (dist/cli.js, cli/src/sql.ts) against the emulator: a file linked to a
 * saved Answer by its `@answer 'GUID'` line prints the SQL the service lists for that Answer (read here
 * straight from v2 metadata/answer/sql); a file with no link is refused (exit 2), saying why.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsq } from './cli-support';
import { startLive, type Live } from '../emulator/client-support';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => live?.stop());

async function v2(path: string, body: unknown, token?: string): Promise<any> {
  const r = await fetch(`${live.emu.url}/api/rest/2.0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  assert.equal(r.status, 200, path);
  return r.json();
}

test("tsq query --sql: the SQL of the file's Answer; no @answer line, exit 2", async () => {
  const root = mkdtempSync(join(tmpdir(), 'tsq-query-sql-'));
  try {
    const { token } = await v2('/auth/token/full', { username: 'tsadmin', password: 'admin' });
    const [answer] = await v2('/metadata/search', { metadata: [{ type: 'ANSWER' }], record_size: 1 }, token);
    const sql = await v2('/metadata/answer/sql', { metadata_identifier: answer.metadata_id }, token);
    const expected = (sql.sql_queries as { sql_query: string }[]).map((q) => q.sql_query.replace(/\n+$/, '')).join('\n\n');
    assert.match(expected, /SELECT/i);
    const conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    const env = { TSQ_PASSWORD: 'admin' };
    writeFileSync(join(root, 'linked.tsq'), `@answer '${answer.metadata_id}'\n@datasource 'anything'\n[x]\n`);
    const run = await tsq(['query', 'linked.tsq', '--sql', ...conn], { cwd: root, env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${expected}\n`);
    assert.ok(run.stderr.includes(answer.metadata_name), run.stderr);
    writeFileSync(join(root, 'adhoc.tsq'), "@datasource 'flights'\n[origin]\n");
    const adhoc = await tsq(['query', 'adhoc.tsq', '--sql', ...conn], { cwd: root, env });
    assert.equal(adhoc.code, 2, adhoc.stderr);
    assert.equal(adhoc.stdout, '');
    assert.match(adhoc.stderr, /no @answer 'GUID' line: the service gives the SQL of a saved Answer only/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
