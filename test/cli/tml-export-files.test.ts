// `tsq tml export` into a folder a cloned repository holds, against a real emulator with the built `tsq`
// as a child process (node esbuild.mjs first): links planted at the temporary names a writer could
// guess (the child's own pid, the next 2,000 pids) and at a folder of `--out` are never followed;
// every object gets a file of its own (same names, names made the same by `/` → `_`, a file of another
// object already there), each rename said on stderr; a 300-byte name is cut and the export goes on;
// an object whose file cannot be written is reported and the others are written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { holdingProxy, startTsq, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };
const LONG = 'ж'.repeat(150);
const answerTml = (name: string, query = '[Director] [US Gross]'): string => `answer:\n  name: ${JSON.stringify(name)}\n  tables:\n  - name: movies\n  search_query: "${query}"\n`;
const guidIn = (file: string): string => (parse(readFileSync(file, 'utf8')) as { guid: string }).guid;

/** An emulator holding the demo answers and answers of `names`; the GUIDs by name, and the number of answers. */
function withAnswers(names: string[]): { live: () => Live; dir: () => string; conn: () => string[]; guids: () => Record<string, string[]>; total: () => number } {
  let live: Live;
  let dir: string;
  let guids: Record<string, string[]>;
  let total: number;
  before(async () => {
    live = await startLive();
    dir = mkdtempSync(join(tmpdir(), 'tsq-tml-files-'));
    const client = live.client();
    for (const r of await client.importTml(names.map((n) => answerTml(n)), 'PARTIAL')) assert.equal(r.status.status_code, 'OK', r.status.error_message);
    const headers = await client.listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK' });
    total = headers.length;
    guids = {};
    for (const h of headers) (guids[h.name] ??= []).push(h.id);
  });
  after(async () => {
    await live?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return { live: () => live, dir: () => dir, conn: () => ['--url', live.emu.url, '--user', 'tsadmin'], guids: () => guids, total: () => total };
}

describe('tsq tml export into a hostile folder', () => {
  const set = withAnswers(['Q3 numbers', 'Revenue', 'Revenue', 'North/South', 'North_South']);
  let live: Live;
  let dir: string;
  let conn: string[];
  let guids: Record<string, string[]>;
  let total: number;
  before(() => {
    ({ live, dir, conn, guids, total } = { live: set.live(), dir: set.dir(), conn: set.conn(), guids: set.guids(), total: set.total() });
    assert.equal(guids.Revenue?.length, 2);
  });

  /** A home folder with a `.bashrc` and a `.profile` of the user's own. */
  const home = (name: string): { rc: string; profile: string } => {
    const h = join(dir, name);
    mkdirSync(h, { recursive: true });
    writeFileSync(join(h, '.bashrc'), 'mine\n');
    writeFileSync(join(h, '.profile'), 'mine too\n');
    return { rc: join(h, '.bashrc'), profile: join(h, '.profile') };
  };

  test("a link at the .part name of the child's own pid: its target stays untouched, the file lands in the folder", async () => {
    const { rc } = home('home-pid');
    const out = join(dir, 'repo-pid', 'answers');
    mkdirSync(out, { recursive: true });
    const proxy = await holdingProxy(live.emu.url, 1);
    try {
      const run = startTsq(['tml', 'export', '--type', 'answer', 'Q3 numbers', '-o', out, '--url', proxy.url, '--user', 'tsadmin'], { env: ENV });
      await proxy.held;
      // the export is held at the service: its pid is known, and the link is there before it writes
      const planted = join(out, `Q3 numbers.answer.tml.${run.child.pid}.part`);
      symlinkSync(rc, planted);
      proxy.release();
      const r = await run.done;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(rc, 'utf8'), 'mine\n');
      assert.equal(readlinkSync(planted), rc);
      const file = join(out, 'Q3 numbers.answer.tml');
      assert.equal(r.stdout, `${file}\n`);
      assert.ok(lstatSync(file).isFile());
      assert.equal(guidIn(file), guids['Q3 numbers']![0]);
    } finally {
      proxy.release();
      await proxy.close();
    }
  });

  test('links for the next 2,000 pids and at the final name: their targets stay untouched, every file lands in the folder', async () => {
    const { profile } = home('home-guess');
    const out = join(dir, 'repo-guess', 'answers');
    mkdirSync(out, { recursive: true });
    const next = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const from = Number(next.stdout) + 1;
    const planted = Array.from({ length: 2000 }, (_, i) => join(out, `Q3 numbers.answer.tml.${from + i}.part`));
    for (const p of planted) symlinkSync(profile, p);
    // a link at the final name too: replaced by the file, never written through
    symlinkSync(profile, join(out, 'Q3 numbers.answer.tml'));
    const run = startTsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    const r = await run.done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(profile, 'utf8'), 'mine too\n');
    for (const p of planted) assert.equal(readlinkSync(p), profile);
    const files = r.stdout.split('\n').filter(Boolean);
    assert.equal(files.length, total);
    for (const f of files) assert.ok(lstatSync(f).isFile(), f);
    assert.equal(guidIn(join(out, 'Q3 numbers.answer.tml')), guids['Q3 numbers']![0]);
    assert.equal(readdirSync(out).length, total + planted.length, 'the files and the links, nothing else');
  });

  test('a link as a folder of --out inside the repository is not followed: exit 2, nothing written through it', async () => {
    const repo = join(dir, 'repo-folder');
    const outside = join(dir, 'outside');
    mkdirSync(repo, { recursive: true });
    mkdirSync(outside);
    symlinkSync(outside, join(repo, 'answers'));
    symlinkSync(join(dir, 'nowhere', 'autostart'), join(repo, 'exported'));
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', 'answers/q3', ...conn], { env: ENV, cwd: repo });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--out answers\/q3: .*answers is a link/);
    assert.equal(r.stdout, '');
    assert.deepEqual(readdirSync(outside), []);
    const dangling = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', 'exported', ...conn], { env: ENV, cwd: repo });
    assert.equal(dangling.code, 2, dangling.stderr);
    assert.match(dangling.stderr, /exported is a link to nothing/);
    assert.deepEqual(readdirSync(dir).filter((f) => f === 'nowhere'), []);
    const ok = await tsq(['tml', 'export', '--type', 'answer', 'Q3 numbers', '-o', 'real/q3', ...conn], { env: ENV, cwd: repo });
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(lstatSync(join(repo, 'real', 'q3', 'Q3 numbers.answer.tml')).isFile(), 'folders it creates are real folders');
  });

  test('two answers of one name, and North/South beside North_South, give a file each; stderr says the rename; a re-export updates the same files', async () => {
    const out = join(dir, 'same-names');
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    const files = r.stdout.split('\n').filter(Boolean);
    assert.equal(new Set(files).size, files.length, 'each path once');
    assert.equal(files.length, total);
    assert.deepEqual(files.map((f) => f.slice(out.length + 1)).sort(), readdirSync(out).sort());
    const revenue = [guidIn(join(out, 'Revenue.answer.tml')), guidIn(join(out, 'Revenue (2).answer.tml'))];
    assert.deepEqual([...revenue].sort(), [...guids.Revenue!].sort());
    const north = [guidIn(join(out, 'North_South.answer.tml')), guidIn(join(out, 'North_South (2).answer.tml'))];
    assert.deepEqual([...north].sort(), [guids['North/South']![0], guids.North_South![0]].sort());
    assert.match(r.stderr, /answer "Revenue" \([0-9a-f-]+\) is written as .*Revenue \(2\)\.answer\.tml: Revenue\.answer\.tml is another object's file in this export/);
    assert.match(r.stderr, /is written as .*North_South \(2\)\.answer\.tml: .*North_South\.answer\.tml is another object's file in this export/);

    const again = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(readdirSync(out).sort(), files.map((f) => f.slice(out.length + 1)).sort(), 'no (3): each object updates its own file');
    assert.deepEqual([guidIn(join(out, 'Revenue.answer.tml')), guidIn(join(out, 'Revenue (2).answer.tml'))], revenue);
  });

  test("a file of another object (or of none) already at the name is kept; the object takes the next name", async () => {
    const out = join(dir, 'taken');
    mkdirSync(out);
    const other = 'guid: 00000000-0000-4000-8000-000000000000\nanswer:\n  name: Q3 numbers\n';
    writeFileSync(join(out, 'Q3 numbers.answer.tml'), other);
    writeFileSync(join(out, 'Revenue.answer.tml'), 'my notes\n');
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'Q3 numbers.answer.tml'), 'utf8'), other);
    assert.equal(readFileSync(join(out, 'Revenue.answer.tml'), 'utf8'), 'my notes\n');
    assert.equal(guidIn(join(out, 'Q3 numbers (2).answer.tml')), guids['Q3 numbers']![0]);
    assert.deepEqual([guidIn(join(out, 'Revenue (2).answer.tml')), guidIn(join(out, 'Revenue (3).answer.tml'))].sort(), [...guids.Revenue!].sort());
    assert.match(r.stderr, /Q3 numbers \(2\)\.answer\.tml: Q3 numbers\.answer\.tml holds another object/);
  });

});

describe('tsq tml export of a long name', () => {
  const set = withAnswers([LONG]);
  let dir: string;
  let conn: string[];
  let guids: Record<string, string[]>;
  let total: number;
  before(() => {
    ({ dir, conn, guids, total } = { dir: set.dir(), conn: set.conn(), guids: set.guids(), total: set.total() });
  });

  test('a 300-byte name (150 two-byte letters) is cut to 255 bytes on a letter, and the objects after it export', async () => {
    const out = join(dir, 'long');
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    const files = r.stdout.split('\n').filter(Boolean);
    assert.equal(files.length, total);
    const cut = `${'ж'.repeat(122)}.answer.tml`;
    assert.equal(Buffer.byteLength(cut), 255);
    assert.ok(readdirSync(out).includes(cut), JSON.stringify(readdirSync(out).filter((f) => f.startsWith('ж'))));
    assert.equal(guidIn(join(out, cut)), guids[LONG]![0]);
    assert.match(r.stderr, /is written as .*ж\.answer\.tml: the name is cut to 255 bytes/);
  });

  test('an object whose file cannot be written is reported, the others are written, exit 1 at the end', async () => {
    // a folder whose path leaves room for every name but the 255-byte one (PATH_MAX 4096, Linux)
    let out = join(dir, 'deep');
    while (out.length < 4096 - 200) out = join(out, 'd'.repeat(Math.min(200, 4096 - 200 - out.length)));
    const r = await tsq(['tml', 'export', '--all', '--type', 'answer', '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`answer "${LONG}" \\(${guids[LONG]![0]}\\) is not written: .*ENAMETOOLONG`));
    const files = r.stdout.split('\n').filter(Boolean);
    assert.equal(files.length, total - 1);
    assert.equal(readdirSync(out).length, total - 1, 'no temporary file left');
  });
});
