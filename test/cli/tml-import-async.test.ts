// `tsq tml import --async` against a real emulator on REST API v2, the built `tsq` as a child process
// (node esbuild.mjs first): one task of the files that pass the local checks, polled to COMPLETED with a
// line per state, each file's outcome and the answer changed; a file failing the checks is not sent;
// Ctrl-C while a status call is in flight stops at once, names the task, and the task completes anyway.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { holdingProxy, liveFixture, startTsq, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('tsq tml import --async on a service with REST API v2 only', () => {
  const fx = liveFixture('tsq-tml-async-', { options: { publicApi: 'v2' } });

  const exportDemo = async (out: string): Promise<{ file: string; doc: { guid: string; answer: { search_query: string } } }> => {
    const r = await tsq(['tml', 'export', '--type', 'answer', 'Top grossing genres', '-o', join(fx.dir, out), ...fx.conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    const file = r.stdout.trim();
    return { file, doc: parse(readFileSync(file, 'utf8')) };
  };

  test('one task, polled to COMPLETED; each file OK with its GUID; the re-export holds the change; a bad file is not sent', async () => {
    const { file, doc } = await exportDemo('a');
    writeFileSync(file, readFileSync(file, 'utf8').replace('[Worldwide Gross] top 5', '[US Gross] top 4'));
    const bad = join(fx.dir, 'bad.answer.tml');
    writeFileSync(bad, 'answer:\n  name: Bad\n  tables:\n  - name: movies\n  search_query: "[No Such Column]"\n');
    const r = await tsq(['tml', 'import', '--async', file, bad, ...fx.conn], { env: ENV });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`: OK ${doc.guid}`));
    assert.doesNotMatch(r.stdout, /bad\.answer\.tml: OK/);
    assert.match(r.stderr, new RegExp(`^tsq: import task ${UUID} started \\(1 file\\)`, 'm'));
    assert.match(r.stderr, new RegExp(`^task ${UUID}: COMPLETED, 1 of 1 objects$`, 'm'));
    assert.match(r.stderr, /1 of 2 imported \(task /);
    assert.equal((await exportDemo('b')).doc.answer.search_query, '[Major Genre] [US Gross] top 4');
  });

  test('Ctrl-C during a status call: stops at once naming the task (exit 130); the task completes on the service', async () => {
    const { file } = await exportDemo('c');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\[US Gross\] top \d/, '[US Gross] top 2'));
    const proxy = await holdingProxy(fx.live.emu.url, 1, '/metadata/tml/async/status');
    try {
      const run = startTsq(['tml', 'import', '--async', file, '--url', proxy.url, '--user', 'tsadmin'], { env: ENV });
      await proxy.held;
      run.child.kill('SIGINT');
      const r = await run.done;
      assert.equal(r.code, 130, r.stderr);
      const id = new RegExp(`stopped polling the import task (${UUID}); it goes on on the service`).exec(r.stderr)?.[1];
      assert.ok(id, r.stderr);
      assert.equal(r.stdout, '', 'no outcome printed');
      const task = await fx.live.client(undefined, { apiVersion: 'v2' }).importTaskStatus(id);
      assert.equal(task?.task_status, 'COMPLETED');
    } finally {
      proxy.release();
      await proxy.close();
    }
  });
});
