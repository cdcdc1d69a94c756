// `tsq tml export → edit → validate → import` round trip of an answer against a real emulator, on a
// service with REST API v1 only and on one with v2 only; VALIDATE_ONLY and all-or-none change nothing
// when a file fails; `--format github` and `--format sarif` of `tsq tml validate` and `tsq check`;
// many answers: a line per batch off a terminal, a bar on one (util-linux `script`), stdout exact, and
// Ctrl-C after the batch in flight.
// The built `tsq` runs as a child process (node esbuild.mjs first).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { sarifErrors } from '../fixtures/sarif/validate';
import { assertExportInterrupted, CLI_JS, cleanEnv, interruptSecondBatch, tsq } from './cli-support';

function hasScript(): boolean {
  return spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;
}

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

    test('a liveboard: export --type liveboard writes <name>.liveboard.tml; validate checks each visualization\'s search_query at its place; import is refused per object', async () => {
      const out = join(dir, 'boards');
      const r = await tsq(['tml', 'export', '--type', 'liveboard', 'Flight Operations', '-o', out, ...conn], { env: ENV });
      assert.equal(r.code, 0, r.stderr);
      const file = join(out, 'Flight Operations.liveboard.tml');
      assert.equal(r.stdout, `${file}\n`);
      const doc = parse(readFileSync(file, 'utf8'));
      assert.deepEqual(doc.liveboard.visualizations.map((v: any) => v.answer.search_query), ['[origin] [delay] top 10', '[date].monthly [distance]', "[date].'day of week' average [delay]"]);
      const ok = await tsq(['tml', 'validate', file, ...conn], { env: ENV });
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      const text = readFileSync(file, 'utf8').replace('[date].monthly [distance]', '[date].monthly [distanse]');
      writeFileSync(file, text);
      const v = await tsq(['tml', 'validate', file, ...conn], { env: ENV });
      assert.equal(v.code, 1, v.stdout + v.stderr);
      const line = text.split('\n').findIndex((l) => l.includes('[distanse]')) + 1;
      const col = text.split('\n')[line - 1]!.indexOf('distanse') + 1;
      assert.match(v.stdout, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:${col}: error: .*distanse.* \\[tsq.unknownColumn\\]`));
      assert.equal(v.stdout.trim().split('\n').length, 1, v.stdout);
      writeFileSync(file, text.replace('[distanse]', '[distance]'));
      const refused = await tsq(['tml', 'import', file, ...conn], { env: ENV });
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      assert.match(refused.stdout, /: ERROR Liveboard TML cannot be imported into the emulator: its liveboards are read only/);
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

describe('an import the service refuses for want of MODIFY', () => {
  let live: Live;
  let dir: string;
  before(async () => {
    live = await startLive();
    dir = mkdtempSync(join(tmpdir(), 'tsq-tml-perms-'));
  });
  after(async () => {
    await live?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  test("tsq tml import shows the service's message for the file, its control characters escaped; exit 1; the answer is unchanged", async () => {
    const v2 = async (path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> => {
      const r = await fetch(`${live.emu.url}/api/rest/2.0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    };
    const admin = (await v2('/auth/token/full', { username: 'tsadmin', password: 'admin' })).body.token as string;
    // analyst may import (DATAMANAGEMENT) and reads the answer through Analysts, READ_ONLY
    assert.equal((await v2('/groups/Data Managers/update', { user_identifiers: ['analyst'], operation: 'ADD' }, admin)).status, 204);
    const name = 'Shared \u001b[2Kread only';
    const created = await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ answer: { name, tables: [{ name: 'movies' }], search_query: '[Director] [US Gross] top 3' } })] }, admin);
    const id = created.body[0].response.header.id_guid as string;
    assert.equal((await v2('/security/metadata/share', { metadata_identifiers: [id], permissions: [{ principal: { identifier: 'Analysts', type: 'USER_GROUP' }, share_mode: 'READ_ONLY' }] }, admin)).status, 204);
    const file = join(dir, 'shared.answer.tml');
    writeFileSync(file, `guid: ${id}\nanswer:\n  name: Rewritten\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross] top 1"\n`);
    const r = await tsq(['tml', 'import', file, '--url', live.emu.url, '--user', 'analyst'], { env: { TSQ_PASSWORD: 'analyst' } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stdout, `${file}: ERROR You may not change the answer Shared \\e[2Kread only (${id}): it is shared with you READ_ONLY; importing over it needs MODIFY (Edit), which its author or an administrator can give.\n`);
    const back = await v2('/metadata/tml/export', { metadata: [{ identifier: id }], edoc_format: 'YAML' }, admin);
    assert.equal(parse(back.body[0].edoc).answer.search_query, '[Director] [US Gross] top 3');
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

describe('many answers: batches and progress', () => {
  const EXTRA = 120;
  let live: Live;
  let dir: string;
  let conn: string[];
  let total: number;
  before(async () => {
    live = await startLive();
    dir = mkdtempSync(join(tmpdir(), 'tsq-tml-many-'));
    conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    const client = live.client();
    for (let i = 0; i < EXTRA; i += 50) {
      const batch = Array.from({ length: Math.min(50, EXTRA - i) }, (_, k) => `answer:\n  name: Many ${i + k}\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross] top ${1 + ((i + k) % 9)}"\n`);
      for (const r of await client.importTml(batch, 'PARTIAL')) assert.equal(r.status.status_code, 'OK', r.status.error_message);
    }
    total = (await client.listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK' })).length;
    assert.ok(total > 100 && total <= 150, `3 batches of 50: ${total}`);
  });
  after(async () => {
    await live?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('not on a terminal: a line per batch on stderr; stdout holds the file names only, and the SARIF log only', async () => {
    const out = join(dir, 'lines');
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    const files = r.stdout.split('\n').filter(Boolean);
    assert.equal(r.stdout, files.map((f) => `${f}\n`).join(''));
    assert.equal(files.length, total);
    assert.deepEqual(files.map((f) => f.slice(out.length + 1)).sort(), readdirSync(out).sort());
    assert.deepEqual(r.stderr.match(/^exported .*$/gm), [`exported 50 of ${total} (batch 1 of 3)`, `exported 100 of ${total} (batch 2 of 3)`, `exported ${total} of ${total} (batch 3 of 3)`]);
    assert.doesNotMatch(r.stderr, /\r|\x1b/, 'no bar drawn off a terminal');

    const v = await tsq(['tml', 'validate', '--format', 'sarif', ...files, ...conn], { env: ENV });
    assert.equal(v.code, 0, v.stderr);
    const log = JSON.parse(v.stdout);
    assert.deepEqual(sarifErrors(log), []);
    assert.deepEqual(v.stderr.match(/^validated .*$/gm), [`validated 50 of ${total} on the service (batch 1 of 3)`, `validated 100 of ${total} on the service (batch 2 of 3)`, `validated ${total} of ${total} on the service (batch 3 of 3)`]);
  });

  test('Ctrl-C during a batch: that batch is written, no other; exit 130 saying how many', () =>
    assertExportInterrupted({ target: live.emu.url, path: '/metadata/tml/export', args: ['tml', 'export', '--all', '--type', 'answer'], env: ENV, out: join(dir, 'interrupted'), total, suffix: '.answer.tml' }));

  test('Ctrl-C during a validate batch: stops after it, exit 130, nothing on stdout', async () => {
    const out = join(dir, 'to-validate');
    const e = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(e.code, 0, e.stderr);
    const r = await interruptSecondBatch(live.emu.url, '/metadata/tml/import', (url) => ['tml', 'validate', '--format', 'sarif', ...e.stdout.split('\n').filter(Boolean), '--url', url, '--user', 'tsadmin'], ENV);
    assert.equal(r.code, 130, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`interrupted \\(Ctrl-C\\): 100 of ${total} files validated on the service \\(batch 2 of 3\\); no result printed`));
  });

  test('on a terminal: a bar with objects, batches and rate on stderr; stdout exact; --no-progress and CI give lines', { skip: hasScript() ? false : 'util-linux script (a pseudo-terminal) is not installed' }, async () => {
    const shellQuote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const onTerminal = async (args: string[], stdoutFile: string, env: Record<string, string> = {}): Promise<{ code: number | null; terminal: string }> => {
      // stderr is the pseudo-terminal (script copies it to its stdout); tsq's stdout goes to a file.
      // Not spawnSync: the emulator answers from this process.
      const command = `${[process.execPath, CLI_JS, ...args].map(shellQuote).join(' ')} > ${shellQuote(stdoutFile)}`;
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cleanEnv({ ...ENV, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
      let terminal = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (terminal += d));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      return { code, terminal };
    };
    const out = join(dir, 'bar');
    const list = join(dir, 'bar.txt');
    const bar = await onTerminal(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], list);
    assert.equal(bar.code, 0, bar.terminal);
    assert.match(bar.terminal, new RegExp(`export \\[[=-]+\\] ${total}/${total} objects \\| batch 3/3 \\| [\\d.,]+/s`));
    assert.doesNotMatch(bar.terminal, /^exported /m);
    const files = readFileSync(list, 'utf8');
    assert.equal(files.split('\n').filter(Boolean).length, total);
    assert.equal(files, files.split('\n').filter(Boolean).map((f) => `${f}\n`).join(''), 'stdout holds the file names only');

    const sarif = join(dir, 'bar.sarif');
    const v = await onTerminal(['tml', 'validate', '--format', 'sarif', ...files.split('\n').filter(Boolean), ...conn], sarif);
    assert.equal(v.code, 0, v.terminal);
    assert.match(v.terminal, new RegExp(`validate \\[[=-]+\\] ${total}/${total} files \\| batch 3/3`));
    assert.deepEqual(sarifErrors(JSON.parse(readFileSync(sarif, 'utf8'))), []);

    for (const [args, env] of [[['--no-progress'], {}], [[], { CI: 'true' }]] as const) {
      const t = await onTerminal(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...args, ...conn], list, env);
      assert.equal(t.code, 0, t.terminal);
      assert.match(t.terminal, /^exported 50 of \d+ \(batch 1 of 3\)/m);
      assert.doesNotMatch(t.terminal, /\[[=-]+\]/);
    }
  });
});
