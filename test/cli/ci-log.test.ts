// Every text `tsq` writes for a person or a CI log goes through one gate (common/src/terminalText.ts): a
// file name, a folder name, a name from the service and the service's own message, holding a line break
// that starts a GitHub workflow command (`\n::error file=…::…`) and an OSC sequence (`ESC]0;… BEL`, which
// retitles a terminal), in `tsq check`, `tsq tml validate` (`--format text` and `github`), `tsq tml import`
// and `tsq tml export` (U+009B, DEL, U+202E in a path and in an answer's name), and `tsq lsp`'s own stderr. No output line starts a
// forged workflow command and no control character reaches stdout or stderr; SARIF and JSON keep the
// names exact. Run as a person or a CI job would: the built `tsq` (node esbuild.mjs first) against the real
// emulator, whose seed folder holds a data source with such a name.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { terminalSafe } from '../../common/src/terminalText';
import { startLive, type Live } from '../emulator/client-support';
import { tsq, type TsqRun } from './cli-support';

/**
 * A line break that starts a forged workflow command, an OSC window title (BEL-terminated), and the
 * runner's legacy form `##[command]data`, which it reads anywhere in a line (actions/runner ActionCommand.TryParse).
 */
const EVIL = '\n::error file=app.js,line=1::forged\x1b]0;pwned\x07 ##[error]legacy';
/** A carriage return, a C1 CSI, DEL and the bidi override: what the export's paths must not print raw. */
const PATH_EVIL = '\r\u009b2J\u007f\u202eevil';
/** A data source name the local checks take (no line break: it is quoted in the query) but that holds an OSC sequence. */
const DATA_SOURCE = 'ds\x1b]0;pwned\x07';
/** Anything a terminal would act on, but the line breaks of the output's own layout. */
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const ENV = { TSQ_PASSWORD: 'admin' };

let live: Live;
let root: string;
let conn: string[];

before(async () => {
  live = await startLive({ tables: [{ name: DATA_SOURCE, database: 'agents', columns: [{ name: 'note', dataType: 'VARCHAR' }, { name: 'n', dataType: 'INT64', kind: 'MEASURE' }] }] });
  conn = ['--url', live.emu.url, '--user', 'tsadmin'];
  root = mkdtempSync(join(tmpdir(), 'tsq-ci-log-'));
});

after(async () => {
  await live?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A workflow command property as GitHub's runner reads it (the toolkit's escapes undone). */
const unescapeProperty = (v: string): string => v.replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

/**
 * Asserts that no control character is in a run's output, and that every line GitHub's runner would read
 * as a workflow command (`::name props::data`, after leading white space) is one of tsq's own annotations:
 * on one of `files` (as shown, terminalSafe), never a forged `file=app.js`.
 */
function clean(r: TsqRun, what: string, files: string[] = []): void {
  assert.doesNotMatch(r.stderr, CONTROLS, `${what}: stderr holds a control character: ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stdout, CONTROLS, `${what}: stdout holds a control character: ${JSON.stringify(r.stdout)}`);
  const shown = files.map(terminalSafe);
  for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) {
    assert.ok(!line.includes('##['), `${what}: a legacy workflow command: ${JSON.stringify(line)}`);
    if (!/^\s*::/.test(line)) continue;
    const m = /^::(error|warning|notice) ([^:]*)::/.exec(line);
    assert.ok(m, `${what}: a forged workflow command: ${JSON.stringify(line)}`);
    const props = Object.fromEntries(m[2]!.split(',').map((p) => [p.slice(0, p.indexOf('=')), unescapeProperty(p.slice(p.indexOf('=') + 1))]));
    assert.ok(shown.includes(props.file!), `${what}: an annotation on ${JSON.stringify(props.file)}, not a file of the run: ${JSON.stringify(line)}`);
  }
}

/** An Answer TML on `dataSource` with `search_query`. */
const answer = (name: string, dataSource: string, query: string) => `answer:\n  name: ${JSON.stringify(name)}\n  tables:\n  - name: ${JSON.stringify(dataSource)}\n  search_query: ${JSON.stringify(query)}\n`;

describe('file and folder names', () => {
  let folder: string;
  let unknownColumn: string;
  let importable: string;
  before(() => {
    folder = join(root, `x${EVIL}`);
    mkdirSync(folder);
    unknownColumn = join(folder, `a${EVIL}.answer.tml`);
    writeFileSync(unknownColumn, answer('A', 'movies', '[Director] [nope]'));
    importable = join(folder, `d${EVIL}.answer.tml`);
    writeFileSync(importable, answer('D', 'movies', '[Director] [US Gross]'));
  });

  test('tsq check: a diagnostic and a file that cannot be read, in text and github', async () => {
    for (const format of ['text', 'github']) {
      const r = await tsq(['check', '--format', format, unknownColumn, ...conn], { env: ENV });
      assert.equal(r.code, 1, r.stderr);
      clean(r, `tsq check --format ${format}`, [unknownColumn]);
      // the annotation's file= is checked by clean(); the text line shows the name escaped
      if (format === 'text') assert.ok(r.stdout.includes(terminalSafe(`a${EVIL}`)), r.stdout);
      else assert.match(r.stdout, /^::error file=.*title=tsq\.unknownColumn::/, r.stdout);
      const missing = await tsq(['check', '--format', format, join(folder, `q${EVIL}.tsq`), ...conn], { env: ENV });
      assert.equal(missing.code, 2, missing.stderr);
      clean(missing, `tsq check --format ${format} of a file that cannot be read`);
      assert.match(missing.stderr, /cannot be read/);
    }
  });

  test('tsq tml validate: text and github', async () => {
    for (const format of ['text', 'github']) {
      const r = await tsq(['tml', 'validate', '--format', format, unknownColumn, importable, ...conn], { env: ENV });
      assert.equal(r.code, 1, r.stderr);
      clean(r, `tsq tml validate --format ${format}`, [unknownColumn, importable]);
    }
  });

  test('tsq tml import: the refused file and the imported one', async () => {
    const r = await tsq(['tml', 'import', unknownColumn, importable, ...conn], { env: ENV });
    assert.equal(r.code, 1, r.stderr);
    clean(r, 'tsq tml import');
    assert.ok(r.stdout.includes(`${terminalSafe(importable)}: OK `), r.stdout);
  });

  test('SARIF carries the exact file name', async () => {
    const r = await tsq(['check', '--format', 'sarif', unknownColumn, ...conn], { env: ENV, cwd: root });
    assert.equal(r.code, 1, r.stderr);
    const log = JSON.parse(r.stdout) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
    const uri = log.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri;
    assert.equal(uri.split('/').map(decodeURIComponent).join('/'), relative(root, unknownColumn).split('\\').join('/'));
  });

  test('an option value that commander echoes in its error', async () => {
    const r = await tsq(['check', '--format', `x${EVIL}`, unknownColumn]);
    assert.equal(r.code, 2, r.stderr);
    clean(r, 'a bad --format');
  });
});

describe('a connection file that cannot be read, in a folder with such a name', () => {
  test('tsq lsp and tsq check say so on one line', async () => {
    const repo = join(root, `repo${EVIL}`);
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'tsq.json'), '{"connections": [');
    writeFileSync(join(repo, 'q.tsq'), "@datasource 'movies'\n[Director]\n");
    const lsp = await tsq(['lsp'], { cwd: repo });
    clean(lsp, 'tsq lsp');
    assert.match(lsp.stderr, /cannot be read/);
    const check = await tsq(['check', 'q.tsq'], { cwd: repo });
    assert.equal(check.code, 2, check.stderr);
    clean(check, 'tsq check');
    assert.match(check.stderr, /cannot be read/);
  });
});

describe("the service's messages and names", () => {
  let dir: string;
  let visualization: string;
  let onDataSource: string;
  before(() => {
    dir = mkdtempSync(join(root, 'service-'));
    // the service's message quotes the visualization's id; tsq's own checks pass it ("bogus" is a warning)
    visualization = join(dir, 'l.liveboard.tml');
    writeFileSync(visualization, `liveboard:\n  name: L\n  visualizations:\n  - id: ${JSON.stringify(`v${EVIL}`)}\n    answer:\n      name: A\n      tables:\n      - name: movies\n      search_query: "[Director] bogus"\n`);
    // the service's message names the data source
    onDataSource = join(dir, 'e.answer.tml');
    writeFileSync(onDataSource, answer('E', DATA_SOURCE, '[note] bogus'));
  });

  test('tsq tml validate: text and github', async () => {
    for (const format of ['text', 'github']) {
      const r = await tsq(['tml', 'validate', '--format', format, visualization, onDataSource, ...conn], { env: ENV });
      assert.equal(r.code, 1, r.stderr);
      clean(r, `tsq tml validate --format ${format}`, [visualization, onDataSource]);
      assert.ok(r.stdout.includes('forged\\e]0;pwned\\x07'), r.stdout);
      assert.ok(r.stdout.includes('ds\\e]0;pwned\\x07'), r.stdout);
    }
  });

  test('tsq tml import: the service refuses the file', async () => {
    const r = await tsq(['tml', 'import', onDataSource, ...conn], { env: ENV });
    assert.equal(r.code, 1, r.stderr);
    clean(r, 'tsq tml import');
    assert.match(r.stdout, /: ERROR search_query is not valid on ds\\e\]0;pwned\\x07/);
  });

  test('SARIF carries the exact message', async () => {
    const r = await tsq(['tml', 'validate', '--format', 'sarif', onDataSource, ...conn], { env: ENV });
    assert.equal(r.code, 1, r.stderr);
    const texts = (JSON.parse(r.stdout) as { runs: { results: { message: { text: string } }[] }[] }).runs[0]!.results.map((x) => x.message.text);
    assert.ok(texts.some((t) => t.includes(`search_query is not valid on ${DATA_SOURCE}:`)), JSON.stringify(texts));
  });
});

describe('tsq tml export', () => {
  test('a folder and an answer name with a C1 CSI, DEL and a bidi override: printed escaped, written without them', async () => {
    const dir = mkdtempSync(join(root, 'export-'));
    const name = `N${PATH_EVIL}\u200e\u061c\u2028.`;
    const file = join(dir, 'n.answer.tml');
    writeFileSync(file, answer(name, 'movies', '[Director] [US Gross]'));
    const imported = await tsq(['tml', 'import', file, ...conn], { env: ENV });
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    const out = join(dir, `o${PATH_EVIL}`);
    const r = await tsq(['tml', 'export', '--type', 'answer', name, '-o', out, ...conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    clean(r, 'tsq tml export');
    assert.deepEqual(readdirSync(out), ['N__2J__evil___..answer.tml']);
    assert.equal(r.stdout, `${terminalSafe(join(out, 'N__2J__evil___..answer.tml'))}\n`);
  });
});
