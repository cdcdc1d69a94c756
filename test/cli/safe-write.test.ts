// The files `tsq query --out` and `tsq bad-records --out` write, against a real emulator with the built
// `tsq` as a child process (node esbuild.mjs first): a link a repository planted at the name is replaced,
// never followed, and a run that fails half way leaves the file as it was and no temporary file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };
const STOCKS = 'demo.engine_default_schema.stocks';

describe('files tsq writes with --out', () => {
  const fx = liveFixture('tsq-safe-write-', {}, async () => {
    writeFileSync(join(fx.dir, '.bashrc'), 'mine\n');
    writeFileSync(join(fx.dir, 'q.tsq'), "@datasource 'flights'\n[origin] [delay] top 3;\n[origin] [delayz]\n");
  });

  test('tsq query --out: a link at the name is replaced by the answer; what it pointed at is untouched', async () => {
    const out = join(fx.dir, 'answer.csv');
    symlinkSync(join(fx.dir, '.bashrc'), out);
    const r = await tsq(['query', join(fx.dir, 'q.tsq'), '--query', '1', '--format', 'csv', '--out', out, ...fx.conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(fx.dir, '.bashrc'), 'utf8'), 'mine\n');
    assert.ok(lstatSync(out).isFile());
    assert.match(readFileSync(out, 'utf8'), /^origin,Total delay\r\n/);
  });

  test('tsq query --out: a run the service refuses half way leaves the old file whole and no temporary file', async () => {
    const out = join(fx.dir, 'kept.csv');
    writeFileSync(out, 'the old answer\n');
    const before = readdirSync(fx.dir).sort();
    const r = await tsq(['query', join(fx.dir, 'q.tsq'), '--out', out, ...fx.conn], { env: ENV });
    assert.equal(r.code, 4, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), 'the old answer\n');
    assert.deepEqual(readdirSync(fx.dir).sort(), before);
  });

  test('tsq bad-records --out: a link at the name is replaced by the file; what it pointed at is untouched', async () => {
    const csv = join(fx.dir, 'two-bad.csv');
    writeFileSync(csv, 'symbol,date,price\nAAA,2011-01-01,1.5\nBBB,2011-02-01,lots\nCCC,2011-03-01,many\n');
    const load = await tsq(['load', csv, '--table', STOCKS, '--max-ignored', '1', ...fx.conn], { env: ENV });
    assert.equal(load.code, 6, load.stderr);
    const cycleId = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(load.stderr)?.[1];
    assert.ok(cycleId, load.stderr);
    const out = join(fx.dir, 'bad.csv');
    symlinkSync(join(fx.dir, '.bashrc'), out);
    const r = await tsq(['bad-records', cycleId, '--out', out, ...fx.conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(fx.dir, '.bashrc'), 'utf8'), 'mine\n');
    assert.ok(lstatSync(out).isFile());
    assert.match(readFileSync(out, 'utf8'), /BBB,2011-02-01,lots/);
  });
});
