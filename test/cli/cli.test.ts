// The `tsq` command line against the real emulator (in-process, ephemeral port, demo data): every
// command and every exit code, Ctrl-C during an upload, and a password that never shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countRows, startLive, type Live } from '../emulator/client-support';
import { CLI_JS, cleanEnv, startTsq, tsq, waitForOutput } from './cli-support';

function hasScript(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const DEMO = join(__dirname, '..', 'fixtures', 'demo-workspace');
const STOCKS = 'demo.engine_default_schema.stocks';
const STOCKS_SQL = '"demo.engine_default_schema"."stocks"';
/** The administrator's password for these tests: distinctive, so that finding it anywhere is a leak. */
const SECRET = 'Qz7-unmistakable-Secret-81f4';

let live: Live;
let dir: string;
let conn: string[];
let env: Record<string, string>;

before(async () => {
  live = await startLive();
  await live.client().updatePassword({ name: 'tsadmin', currentPassword: 'admin', newPassword: SECRET });
  dir = mkdtempSync(join(tmpdir(), 'tsq-cli-'));
  conn = ['--url', live.emu.url, '--user', 'tsadmin'];
  env = { TSQ_PASSWORD: SECRET };
});

after(async () => {
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Asserts that the password shows nowhere in a run's output. */
function noSecret(run: { stdout: string; stderr: string }): void {
  assert.ok(!run.stdout.includes(SECRET) && !run.stderr.includes(SECRET), 'the password appears in the output');
}

describe('usage', () => {
  test('--help lists the commands and the exit codes, and exits 0', async () => {
    const r = await tsq(['--help']);
    assert.equal(r.code, 0);
    for (const c of ['query', 'load', 'status', 'bad-records', 'objects', 'check', 'trust', 'lsp']) assert.match(r.stdout, new RegExp(`^  ${c} `, 'm'));
    assert.match(r.stdout, /Exit codes:[\s\S]*130/);
    const load = await tsq(['load', '--help']);
    assert.equal(load.code, 0);
    assert.match(load.stdout, /--max-ignored/);
    assert.match(load.stdout, /Ctrl-C before the commit aborts/);
  });

  test('an unknown option, a missing argument or no connection exit 2 (usage)', async () => {
    const unknown = await tsq(['query', '--bogus']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option '--bogus'/);
    assert.equal((await tsq(['status'])).code, 2);
    const none = await tsq(['objects'], { env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No connection: give --url and --user, or --connection NAME/);
    const unreadable = await tsq(['query', join(dir, 'missing.tsq'), ...conn], { env });
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.stderr, /missing\.tsq cannot be read/);
    const both = await tsq(['query', join(DEMO, 'flights.tsq'), '--all', '--query', '1', ...conn], { env });
    assert.equal(both.code, 2);
  });

  test('a named connection comes from tsq.json in the working folder or above it', async () => {
    const project = join(dir, 'project');
    execFileSync('mkdir', ['-p', join(project, 'queries')]);
    writeFileSync(join(project, 'tsq.json'), JSON.stringify({ connections: [{ name: 'emulator', url: live.emu.url, username: 'tsadmin' }], defaultDataSource: 'flights' }));
    writeFileSync(join(project, 'queries', 'no-datasource.tsq'), '[origin] [delay] top 3 sort by [delay] descending\n');
    // a project's file is not the user's own: its connection gets no password until approved (tsq trust)
    const unapproved = await tsq(['query', 'no-datasource.tsq', '--connection', 'emulator', '--format', 'csv'], { env, cwd: join(project, 'queries') });
    assert.equal(unapproved.code, 3, unapproved.stderr);
    assert.match(unapproved.stderr, /run "tsq trust" in /);
    assert.equal((await tsq(['trust'], { cwd: project })).code, 0);
    const named = await tsq(['query', 'no-datasource.tsq', '--connection', 'emulator', '--format', 'csv'], { env, cwd: join(project, 'queries') });
    assert.equal(named.code, 0, named.stderr);
    assert.equal(named.stdout, 'origin,Total delay\r\nORD,98651\r\nDFW,80732\r\nATL,69046\r\n');
    // the only connection of the file is the default
    const implicit = await tsq(['objects', '--format', 'json'], { env, cwd: project });
    assert.equal(implicit.code, 0, implicit.stderr);
    const unknownName = await tsq(['objects', '--connection', 'prod'], { env, cwd: project });
    assert.equal(unknownName.code, 2);
    assert.match(unknownName.stderr, /no connection named "prod".*Known: emulator/);
  });
});

describe('query', () => {
  test('prints every answer of flights.tsq as CSV on stdout, messages on stderr', async () => {
    const r = await tsq(['query', join(DEMO, 'flights.tsq'), '--format', 'csv', ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    const answers = r.stdout.split('\r\n\r\n');
    assert.equal(answers.length, 3);
    assert.ok(answers[0].startsWith('origin,Total delay\r\nORD,98651\r\n'));
    assert.equal(answers[0].trimEnd().split('\r\n').length, 11);
    assert.ok(answers[1].startsWith('Month(date),Total distance\r\n'));
    assert.match(r.stderr, /query 1 on flights: \[origin\] \[delay\] top 10/);
    assert.match(r.stderr, /query 1: 10 rows/);
    noSecret(r);
  });

  test('--query N --format json writes one answer, every page of it, to --out', async () => {
    const out = join(dir, 'answer.json');
    const r = await tsq(['query', join(DEMO, 'flights.tsq'), '--query', '2', '--format', 'json', '--page-size', '2', '--out', out, ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const rows = JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>[];
    assert.equal(rows.length, 6);
    assert.deepEqual(Object.keys(rows[0]), ['Month(date)', 'Total distance']);
    assert.equal(rows[0]['Total distance'], 24621512);
  });

  test('--format table shows dates and numbers as the results grid does', async () => {
    const r = await tsq(['query', join(DEMO, 'flights.tsq'), '-q', '2', ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Month\(date\) +Total distance\n-+ +-+\n2001-01 +24,621,512\n/);
  });

  test('a query the service refuses, or an unknown data source, exits 4', async () => {
    const bad = join(dir, 'refused.tsq');
    writeFileSync(bad, "@datasource 'flights'\n[origin] [delayz]\n");
    const refused = await tsq(['query', bad, ...conn], { env });
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /HTTP 400: .*delayz/);
    const unknown = join(dir, 'unknown-source.tsq');
    writeFileSync(unknown, "@datasource 'no such table'\n[a]\n");
    const r = await tsq(['query', unknown, ...conn], { env });
    assert.equal(r.code, 4);
    assert.match(r.stderr, /unknown-source\.tsq:2: there is no data source "no such table"/);
  });
});

describe('objects, check', () => {
  test('objects lists the data sources with their subtypes, as a table or JSON', async () => {
    const table = await tsq(['objects', ...conn], { env });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAME +SUBTYPE +ID/);
    assert.match(table.stdout, /^Flights Worksheet +WORKSHEET +[0-9a-f-]{36}/m);
    const json = await tsq(['objects', '--pattern', 'fli%', '--format', 'json', ...conn], { env });
    assert.equal(json.code, 0, json.stderr);
    const names = (JSON.parse(json.stdout) as { name: string }[]).map((h) => h.name).sort();
    assert.deepEqual(names, ['Flights Model', 'Flights Worksheet', 'flights']);
  });

  test('check prints compiler-style lines and exits 1 on an unknown column, 0 on a clean file', async () => {
    const bad = join(dir, 'unknown-column.tsq');
    writeFileSync(bad, "@datasource 'flights'\n[origin] [delayz]\n");
    const r = await tsq(['check', bad, join(DEMO, 'flights.tsq'), ...conn], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, `${bad}:2:11: error: Unknown column [delayz] in "flights". Did you mean [delay]? [tsq.unknownColumn]\n`);
    assert.match(r.stderr, /1 error, 0 warnings in 2 files/);
    const clean = await tsq(['check', join(DEMO, 'flights.tsq'), join(DEMO, 'movies.tsq'), ...conn], { env });
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(clean.stdout, '');
    // --offline checks the syntax only: the unknown column is not known to be unknown
    const offline = await tsq(['check', bad, '--offline']);
    assert.equal(offline.code, 0, offline.stderr);
    // a catalog that cannot be read fails the check rather than passing what it cannot judge
    const noAuth = await tsq(['check', bad, ...conn], { env: { TSQ_PASSWORD: 'wrong' } });
    assert.equal(noAuth.code, 3);
  });
});

describe('check: subsearches', () => {
  test('an in subsearch is checked as a query of the data source, findings at their columns inside the parentheses', async () => {
    const file = join(dir, 'subsearch.tsq');
    writeFileSync(file, "@datasource 'flights'\n[origin] in ([origin] [delay] contains '5' [delya]) [delay]\n");
    const r = await tsq(['check', file, ...conn], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, [
      `${file}:2:31: error: "contains" is a text operator, but [delay] is INT32: use =, !=, <, >, between … and … on numbers. [tsq.textOperatorOnNumber]`,
      `${file}:2:45: error: Unknown column [delya] in "flights". Did you mean [delay]? [tsq.unknownColumn]`,
      '',
    ].join('\n'));
  });
});

describe('load, status, bad-records', () => {
  test('load sniffs the file, loads it in one cycle, and status reads the cycle', async () => {
    const before = await countRows(live, STOCKS_SQL);
    const csv = join(dir, 'some.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const r = await tsq(['load', csv, '--table', STOCKS, '--json', ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { cycleId: string; rowsWritten: number; ignoredRows: number };
    assert.equal(result.rowsWritten, 45);
    assert.equal(await countRows(live, STOCKS_SQL), before + 45);
    // not a terminal: plain progress lines, no bar
    assert.match(r.stderr, /sniffed some\.csv: .*the first row is a header/);
    assert.match(r.stderr, /^starting the load cycle$/m);
    assert.match(r.stderr, /^committing cycle /m);
    assert.match(r.stderr, /Loaded 45 rows into demo\.engine_default_schema\.stocks \(cycle /);
    assert.doesNotMatch(r.stderr, /\x1b\[/);
    noSecret(r);
    const status = await tsq(['status', result.cycleId, ...conn], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^stage +DONE$/m);
    assert.match(status.stdout, /^rows written +45$/m);
    const none = await tsq(['bad-records', result.cycleId, ...conn], { env });
    assert.equal(none.code, 0);
    assert.match(none.stderr, /ignored no rows/);
  });

  test('on a terminal, load draws the shared progress bar on stderr; the --json result alone is on stdout', { skip: hasScript() ? false : 'util-linux script (a pseudo-terminal) is not installed' }, async () => {
    const csv = join(dir, 'bar.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const json = join(dir, 'bar.json');
    const q = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const command = `${[process.execPath, CLI_JS, 'load', csv, '--table', STOCKS, '--json', ...conn].map(q).join(' ')} > ${q(json)}`;
    // not spawnSync: the emulator answers from this process
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let terminal = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (terminal += d));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, terminal);
    assert.match(terminal, /bar\.csv → demo\.engine_default_schema\.stocks \[[=-]+\] 100% \| /);
    assert.doesNotMatch(terminal, /^uploading: /m);
    assert.equal(JSON.parse(readFileSync(json, 'utf8')).rowsWritten, 45);
    noSecret({ stdout: terminal, stderr: '' });
  });

  test('more bad rows than --max-ignored exit 6 and leave the table unchanged; bad-records prints them', async () => {
    const csv = join(dir, 'two-bad.csv');
    writeFileSync(csv, 'symbol,date,price\nAAA,2011-01-01,1.5\nBBB,2011-02-01,lots\nCCC,2011-03-01,many\nDDD,2011-04-01,4.5\n');
    const before = await countRows(live, STOCKS_SQL);
    const over = await tsq(['load', csv, '--table', STOCKS, '--max-ignored', '1', ...conn], { env });
    assert.equal(over.code, 6, over.stderr);
    assert.match(over.stderr, /2 rows were ignored, more than max_ignored_rows \(1\)/);
    assert.match(over.stderr, /tsq bad-records /);
    assert.equal(await countRows(live, STOCKS_SQL), before);
    const cycle = /load cycle ([0-9a-f-]{36})|cycle ([0-9a-f-]{36})/.exec(over.stderr);
    const cycleId = cycle?.[1] ?? cycle?.[2];
    assert.ok(cycleId);
    const status = await tsq(['status', cycleId, ...conn], { env });
    assert.equal(status.code, 5, 'a failed cycle: exit code 5');
    assert.match(status.stdout, /LOAD_FAILED/);
    const bad = await tsq(['bad-records', cycleId, ...conn], { env });
    assert.equal(bad.code, 0, bad.stderr);
    assert.match(bad.stdout, /BBB,2011-02-01,lots/);
    assert.match(bad.stdout, /CCC,2011-03-01,many/);
    // within the limit: the good rows load, exit 0
    const within = await tsq(['load', csv, '--table', STOCKS, '--max-ignored', '2', ...conn], { env });
    assert.equal(within.code, 0, within.stderr);
    assert.match(within.stderr, /Loaded 2 rows .*; 2 rows were ignored/);
    assert.equal(await countRows(live, STOCKS_SQL), before + 2);
  });

  test('a load the service refuses exits 5; an unknown cycle exits 4; no definition or target exits 2', async () => {
    const csv = join(dir, 'refused.csv');
    writeFileSync(csv, 'a,b\n1,2\n');
    const refused = await tsq(['load', csv, '--table', 'demo.engine_default_schema.no_such_table', ...conn], { env });
    assert.equal(refused.code, 5, refused.stderr);
    assert.match(refused.stderr, /no_such_table/);
    const unknown = await tsq(['status', '00000000-0000-0000-0000-000000000000', ...conn], { env });
    assert.equal(unknown.code, 4, unknown.stderr);
    const nowhere = await tsq(['load', csv, ...conn], { env });
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /Give --table database\.schema\.table, or --definition/);
  });

  test('a saved definition that empties the table needs --replace', async () => {
    const csv = join(dir, 'replace.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const def = JSON.parse(readFileSync(join(DEMO, 'new-stock-prices.csv.load.json'), 'utf8')) as { load_options: Record<string, unknown> };
    def.load_options.empty_target = true;
    writeFileSync(`${csv}.load.json`, JSON.stringify(def));
    const unconfirmed = await tsq(['load', csv, ...conn], { env });
    assert.equal(unconfirmed.code, 2);
    assert.match(unconfirmed.stderr, /run again with --replace to confirm/);
  });

  // issue: a saved definition in the flat form of the seed's StartLoad example (docs/service-interface.md
  // §2.2) emptied a table without --replace, and a flat target_table emptied another table than --table
  test('a flat "empty_target": true in a saved definition needs --replace: the table keeps its rows', async () => {
    const csv = join(dir, 'flat-empty.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const def = JSON.parse(readFileSync(join(DEMO, 'new-stock-prices.csv.load.json'), 'utf8')) as { load_options: Record<string, unknown> };
    const before = await countRows(live, STOCKS_SQL);
    assert.ok(before > 0);
    // as the issue found it: the nested load_options say append, the flat member empties
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...def, empty_target: true }));
    const both = await tsq(['load', csv, '--table', STOCKS, ...conn], { env });
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /names load_options\.empty_target false and empty_target true, which disagree/);
    assert.equal(await countRows(live, STOCKS_SQL), before);
    // the flat member alone: a replace, which needs --replace
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...def, load_options: { max_ignored_rows: 0 }, empty_target: true }));
    for (const args of [['--table', STOCKS], []]) {
      const r = await tsq(['load', csv, ...args, ...conn], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /empties demo\.engine_default_schema\.stocks before loading \(load_options\.empty_target\); run again with --replace to confirm/);
      assert.equal(await countRows(live, STOCKS_SQL), before);
    }
    // the same through --definition
    const r = await tsq(['load', csv, '--definition', `${csv}.load.json`, '--table', STOCKS, ...conn], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(await countRows(live, STOCKS_SQL), before);
  });

  test('a saved definition naming another table than --table is refused (exit 2), naming both; the other table keeps its rows', async () => {
    const CARS_SQL = '"demo.engine_default_schema"."cars"';
    const csv = join(dir, 'flat-table.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const def = JSON.parse(readFileSync(join(DEMO, 'new-stock-prices.csv.load.json'), 'utf8')) as { target: Record<string, string> };
    const stocks = await countRows(live, STOCKS_SQL);
    const cars = await countRows(live, CARS_SQL);
    // nested target cars, flat target_table stocks (which a service reads first)
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...def, target: { ...def.target, table: 'cars' }, target_table: 'stocks', empty_target: true }));
    const two = await tsq(['load', csv, '--table', 'demo.engine_default_schema.cars', '--replace', ...conn], { env });
    assert.equal(two.code, 2, two.stderr);
    assert.match(two.stderr, /names two tables: demo\.engine_default_schema\.cars \(target\) and demo\.engine_default_schema\.stocks \(target_table "stocks" in place of target\.table "cars"\)/);
    // a definition given with --definition that names stocks while --table says cars
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...def, target_table: 'stocks' }));
    const other = await tsq(['load', csv, '--definition', `${csv}.load.json`, '--table', 'demo.engine_default_schema.cars', ...conn], { env });
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /loads into demo\.engine_default_schema\.stocks, not into demo\.engine_default_schema\.cars, the table you chose/);
    // an unknown member is not passed on to the service
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...def, truncate_target: true }));
    const unknown = await tsq(['load', csv, ...conn], { env });
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /"truncate_target" is not a member of a load definition/);
    assert.deepEqual([await countRows(live, STOCKS_SQL), await countRows(live, CARS_SQL)], [stocks, cars]);
  });

  test('your own saved definition, flat or nested, still loads with no new question', async () => {
    const csv = join(dir, 'own.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const def = JSON.parse(readFileSync(join(DEMO, 'new-stock-prices.csv.load.json'), 'utf8')) as { target: Record<string, string> };
    const before = await countRows(live, STOCKS_SQL);
    const { target, ...rest } = def;
    writeFileSync(`${csv}.load.json`, JSON.stringify({ ...rest, target_database: target.database, target_schema: target.schema, target_table: target.table, empty_target: false }));
    const r = await tsq(['load', csv, ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /into demo\.engine_default_schema\.stocks with the saved definition own\.csv\.load\.json: .*; append/);
    const rows = await countRows(live, STOCKS_SQL);
    assert.ok(rows > before);
    // --replace empties it as asked
    const replaced = await tsq(['load', csv, '--table', STOCKS, '--replace', ...conn], { env });
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(replaced.stderr, /replace all rows/);
    assert.equal(await countRows(live, STOCKS_SQL), rows - before);
  });
});

describe('authentication and network', () => {
  test('a wrong password exits 3 and shows neither password', async () => {
    const r = await tsq(['objects', ...conn], { env: { TSQ_PASSWORD: 'wrong-Pass-7731' } });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /could not verify the user; check the user name and password/);
    assert.ok(!r.stderr.includes('wrong-Pass-7731') && !r.stdout.includes('wrong-Pass-7731'));
  });

  test('no password and no terminal to ask on exits 3 and says where a password comes from', async () => {
    const r = await tsq(['objects', ...conn]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /set the TSQ_PASSWORD environment variable/);
  });

  test('on a terminal, the password is asked without echo and never shown', { skip: hasScript() ? false : 'util-linux script (a pseudo-terminal) is not installed' }, async () => {
    // `script` runs tsq on a pseudo-terminal: stdin and stderr are terminals, as for a person
    const command = [process.execPath, CLI_JS, 'objects', '--format', 'json', ...conn].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let seen = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      seen += d;
      if (seen.includes('Password of tsadmin at ') && !child.stdin.writableEnded) child.stdin.end(`${SECRET}\r`);
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, seen);
    assert.match(seen, /"name": "flights"/);
    assert.ok(!seen.includes(SECRET), 'the typed password is echoed');
  });

  test('a service that cannot be reached exits 7', async () => {
    const r = await tsq(['objects', '--url', 'http://127.0.0.1:9', '--user', 'tsadmin'], { env });
    assert.equal(r.code, 7);
    assert.match(r.stderr, /could not reach the service \(ECONNREFUSED/);
  });

  test('the password is in no process argument (ps) while tsq runs', async () => {
    // editors add flags of their own (--clientProcessId): the server takes them
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: process.pid, rootUri: null, capabilities: {} } });
    const lsp = startTsq(['lsp', ...conn, `--clientProcessId=${process.pid}`], { env, keepStdin: true, input: `Content-Length: ${Buffer.byteLength(initialize)}\r\n\r\n${initialize}` });
    try {
      // the server answers initialize: it runs, with the editor's extra flag
      await waitForOutput(lsp.child, lsp.output, (o) => o.stdout.includes('"capabilities"'));
      const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
      assert.match(ps, new RegExp(`${lsp.child.pid} .*cli\\.js lsp --url`));
      assert.ok(!ps.includes(SECRET), 'the password appears in ps');
      assert.ok(!readFileSync(`/proc/${lsp.child.pid}/cmdline`, 'utf8').includes(SECRET));
    } finally {
      lsp.child.kill();
      await lsp.done;
    }
  });
});

describe('Ctrl-C', () => {
  test('SIGINT during an upload aborts the cycle, says so, exits 130, and the table is unchanged', async () => {
    const csv = join(dir, 'big.csv');
    const lines = ['symbol,date,price'];
    // about 40 MB in 64 KB chunks: the upload lasts far longer than a signal takes to arrive
    for (let i = 0; i < 2_000_000; i++) lines.push(`S${i % 97},2012-${String((i % 12) + 1).padStart(2, '0')}-01,${i % 1000}.25`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    lines.length = 0;
    const before = await countRows(live, STOCKS_SQL);
    const load = startTsq(['load', csv, '--table', STOCKS, '--chunk-size', '65536', ...conn], { env });
    // the first progress line of the upload phase is printed as the first chunk is sent
    await waitForOutput(load.child, load.output, (o) => /^uploading: /m.test(o.stderr));
    const ps = execFileSync('ps', ['-o', 'args=', '-p', String(load.child.pid)], { encoding: 'utf8' });
    assert.ok(!ps.includes(SECRET));
    load.child.kill('SIGINT');
    const r = await load.done;
    assert.equal(r.code, 130, r.stderr);
    assert.doesNotMatch(r.stderr, /^committing/m);
    assert.match(r.stderr, /The load into demo\.engine_default_schema\.stocks was cancelled: cycle [0-9a-f-]{36} was aborted and the table was not changed/);
    assert.equal(await countRows(live, STOCKS_SQL), before);
    noSecret(r);
  });
});
