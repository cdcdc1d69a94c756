// `tsq tml export → edit → validate → import` round trip of an answer against a real emulator, on a
// service with REST API v1 only and on one with v2 only; VALIDATE_ONLY and all-or-none change nothing
// when a file fails; `--format github` and `--format sarif` of `tsq tml validate` and `tsq check`.
// The built `tsq` runs as a child process (node esbuild.mjs first).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { sarifErrors } from '../fixtures/sarif/validate';
import { tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

for (const generation of ['v1', 'v2'] as const) {
  describe(`tsq tml on a service with REST API ${generation} only`, () => {
    let live: Live;
    let dir: string;
    let conn: string[];
    before(async () => {
      live = await startLive({ options: { publicApi: generation } });
      dir = mkdtempSync(join(tmpdir(), `tsq-tml-${generation}-`));
      conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    });
    after(async () => {
      await live?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const exportDemo = async (): Promise<{ file: string; doc: any }> => {
      const out = join(dir, 'out');
      const r = await tsq(['tml', 'export', '--type', 'answer', 'Top grossing genres', '-o', out, ...conn], { env: ENV });
      assert.equal(r.code, 0, r.stderr);
      const file = r.stdout.trim();
      assert.equal(file, join(out, 'Top grossing genres.answer.tml'));
      return { file, doc: parse(readFileSync(file, 'utf8')) };
    };

    test('export → edit → validate → import; the re-export holds the new search_query', async () => {
      const { file, doc } = await exportDemo();
      assert.equal(doc.answer.search_query, '[Major Genre] [Worldwide Gross] top 5');
      writeFileSync(file, readFileSync(file, 'utf8').replace('[Worldwide Gross] top 5', '[US Gross] top 3'));
      const v = await tsq(['tml', 'validate', file, ...conn], { env: ENV });
      assert.equal(v.code, 0, v.stdout + v.stderr);
      const i = await tsq(['tml', 'import', file, ...conn], { env: ENV });
      assert.equal(i.code, 0, i.stdout + i.stderr);
      assert.match(i.stdout, new RegExp(`: OK ${doc.guid}`));
      const again = await exportDemo();
      assert.equal(again.doc.answer.search_query, '[Major Genre] [US Gross] top 3');
    });

    test('a bad column: validate shows it on its line inside the YAML string, exit 1; all-or-none imports nothing', async () => {
      const { file, doc } = await exportDemo();
      const good = join(dir, 'good.answer.tml');
      const bad = join(dir, 'bad.answer.tml');
      writeFileSync(good, `answer:\n  name: New answer\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross] top 3"\n`);
      writeFileSync(bad, readFileSync(file, 'utf8').replace(/search_query: .*/, 'search_query: "[Major Genre] [Budget X]"'));
      const v = await tsq(['tml', 'validate', good, bad, ...conn], { env: ENV });
      assert.equal(v.code, 1, v.stdout + v.stderr);
      const line = readFileSync(bad, 'utf8').split('\n').findIndex((l) => l.includes('[Budget X]')) + 1;
      const col = readFileSync(bad, 'utf8').split('\n')[line - 1]!.indexOf('Budget X') + 1;
      assert.match(v.stdout, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:${col}: error: .*Budget X.* \\[tsq.unknownColumn\\]`));
      const before = (await tsq(['objects', '--type', 'QUESTION_ANSWER_BOOK', '--format', 'json', ...conn], { env: ENV })).stdout;
      const i = await tsq(['tml', 'import', '--policy', 'all-or-none', good, bad, ...conn], { env: ENV });
      assert.equal(i.code, 1);
      const afterList = (await tsq(['objects', '--type', 'QUESTION_ANSWER_BOOK', '--format', 'json', ...conn], { env: ENV })).stdout;
      assert.deepEqual(JSON.parse(afterList), JSON.parse(before));
      assert.equal((await exportDemo()).doc.answer.search_query, doc.answer.search_query);
    });
  });
}

describe('a hostile answer name', () => {
  let live: Live;
  let dir: string;
  before(async () => {
    live = await startLive();
    dir = mkdtempSync(join(tmpdir(), 'tsq-tml-names-'));
  });
  after(async () => {
    await live?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  test('an answer named ../../x exports into the --out folder, never above it', async () => {
    const conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    const file = join(dir, 'evil.answer.tml');
    writeFileSync(file, 'answer:\n  name: ../../evil\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross]"\n');
    assert.equal((await tsq(['tml', 'import', file, ...conn], { env: ENV })).code, 0);
    const out = join(dir, 'out', 'deep');
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(readdirSync(out).some((f) => f.endsWith('evil.answer.tml') && !f.includes('/')), JSON.stringify(readdirSync(out)));
    assert.deepEqual(readdirSync(join(dir, 'out')), ['deep']);
    assert.ok(!readdirSync(dir).some((f) => f.startsWith('evil') && f !== 'evil.answer.tml'));
  });
});

describe('--format github and sarif', () => {
  let live: Live;
  let dir: string;
  let conn: string[];
  before(async () => {
    live = await startLive();
    dir = mkdtempSync(join(tmpdir(), 'tsq-tml-fmt-'));
    conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    writeFileSync(join(dir, 'a.answer.tml'), 'answer:\n  name: A\n  tables:\n  - name: movies\n  search_query: "[Director] [nope, really]"\n');
    writeFileSync(join(dir, 'q.tsq'), "@datasource 'movies'\n[Director] [nope]\n");
  });
  after(async () => {
    await live?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('github: one ::error workflow command per problem, with file, line and column', async () => {
    const r = await tsq(['tml', 'validate', '--format', 'github', 'a.answer.tml', ...conn], { env: ENV, cwd: dir });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^::error file=a\.answer\.tml,line=5,col=\d+,endLine=5,endColumn=\d+,title=tsq\.unknownColumn::.*nope%2C really|^::error file=a\.answer\.tml,line=5,col=\d+,endLine=5,endColumn=\d+,title=tsq\.unknownColumn::.*nope, really/m);
    const c = await tsq(['check', '--format', 'github', 'q.tsq', 'a.answer.tml', ...conn], { env: ENV, cwd: dir });
    assert.equal(c.code, 1);
    assert.match(c.stdout, /^::error file=q\.tsq,line=2,col=\d+,.*title=tsq\.unknownColumn::/m);
    assert.match(c.stdout, /^::error file=a\.answer\.tml,line=5,col=\d+,.*title=tsq\.unknownColumn::/m, 'tsq check reads Answer TML files too');
  });

  test('sarif: one log per run, valid against the SARIF 2.1.0 schema, a result per problem at its region', async () => {
    const r = await tsq(['check', '--format', 'sarif', 'q.tsq', ...conn], { env: ENV, cwd: dir });
    const log = JSON.parse(r.stdout);
    assert.deepEqual(sarifErrors(log), []);
    assert.equal(log.version, '2.1.0');
    const [res] = log.runs[0].results;
    assert.equal(res.ruleId, 'tsq.unknownColumn');
    assert.equal(res.level, 'error');
    assert.deepEqual(res.locations[0].physicalLocation.artifactLocation, { uri: 'q.tsq' });
    assert.equal(res.locations[0].physicalLocation.region.startLine, 2);
    const v = await tsq(['tml', 'validate', '--format', 'sarif', 'a.answer.tml', ...conn], { env: ENV, cwd: dir });
    assert.equal(v.code, 1);
    assert.deepEqual(sarifErrors(JSON.parse(v.stdout)), []);
    assert.deepEqual(readdirSync(dir).sort(), ['a.answer.tml', 'q.tsq']);
  });
});
