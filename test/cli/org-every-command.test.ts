// `--org` on every `tsq` command that talks to the service, the list taken from the command line's own
// command table (`buildProgram`): a command with connection options and no case here fails the first
// test, so a new command cannot go without one. Each case runs the built `tsq` with `--org Finance` and
// shows it ran there: it sees the Finance Org's objects and none of Primary's (demo seed; `analyst` is in
// both Orgs, the administrator `tsadmin` acts in every Org). `tsq lsp --org` is a real stdio session whose
// completion offers the Finance table's columns; `tsq mcp --org` lists Finance's data sources (switching
// Orgs there: mcp-orgs.test.ts). The data-load API's commands (status, bad-records) have no Org to scope.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../cli/src/main';
import { startLive, type Live } from '../emulator/client-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_JS, cleanEnv, EMPTY_HOME, tsq } from './cli-support';
import { startTsqLsp } from './lsp-stdio';

let live: Live;
let dir: string;
const analyst = { TSQ_PASSWORD: 'analyst' };
const admin = { TSQ_PASSWORD: 'admin' };
const V2 = '/api/rest/2.0';

async function v2(path: string, body: unknown, token: string): Promise<any> {
  const r = await fetch(`${live.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  assert.ok(r.ok, `${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A token of tsadmin in the Finance Org (`org_identifier`), for setting up Finance's objects. */
async function financeToken(): Promise<string> {
  const r = await fetch(`${live.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin', org_identifier: 'Finance', validity_time_in_sec: 3600 }) });
  assert.equal(r.status, 200);
  return ((await r.json()) as { token: string }).token;
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** `tsq ARGS` as `user` with --org Finance. */
function inFinance(args: string[], user: 'analyst' | 'tsadmin' = 'analyst') {
  return tsq([...args, '--url', live.emu.url, '--user', user, '--org', 'Finance'], { env: user === 'analyst' ? analyst : admin, cwd: dir });
}

/** Runs `r` and asserts it succeeded. @returns its stdout */
async function ok(r: ReturnType<typeof inFinance>): Promise<string> {
  const done = await r;
  assert.equal(done.code, 0, done.stderr);
  return done.stdout;
}

/** Runs `r` and asserts it failed with a message matching `message` (on stderr, or stdout for a check's findings). */
async function fails(r: ReturnType<typeof inFinance>, message: RegExp): Promise<void> {
  const done = await r;
  assert.notEqual(done.code, 0, done.stdout);
  assert.match(done.stderr + done.stdout, message);
}

/** What each command does in Finance, showing it ran there and not in Primary. */
const CASES: Record<string, () => Promise<void>> = {
  query: async () => {
    assert.match(await ok(inFinance(['query', join(dir, 'quotes.tsq'), '--format', 'csv'])), /^symbol\r?\nAAPL\r?$/m);
    await fails(inFinance(['query', join(dir, 'flights.tsq')]), /flights/);
  },
  check: async () => {
    await ok(inFinance(['check', join(dir, 'quotes.tsq')]));
    await fails(inFinance(['check', join(dir, 'flights.tsq')]), /flights/);
  },
  impact: async () => {
    // exit 1: uses were found (quotes.tsq and quotes.answer.tml)
    const uses = await inFinance(['impact', 'symbol', '--data-source', 'quotes', '--dir', dir]);
    assert.equal(uses.code, 1, uses.stderr);
    assert.match(uses.stdout + uses.stderr, /uses of \[symbol\] of quotes in 2 files/);
    await fails(inFinance(['impact', 'origin', '--data-source', 'flights', '--dir', dir]), /flights/);
  },
  objects: async () => {
    const names = (JSON.parse(await ok(inFinance(['objects', '--format', 'json']))) as { name: string }[]).map((o) => o.name);
    assert.deepEqual(names, ['quotes']);
  },
  orgs: async () => {
    assert.equal((JSON.parse(await ok(inFinance(['orgs', '--format', 'json']))) as { current: { name: string } }).current.name, 'Finance');
  },
  export: async () => {
    assert.match(await ok(inFinance(['export', 'Finance prices'], 'tsadmin')), /AAPL/);
    await fails(inFinance(['export', 'Top grossing genres'], 'tsadmin'), /Top grossing genres/);
  },
  'tml export': async () => {
    const out = mkdtempSync(join(dir, 'tml-'));
    await ok(inFinance(['tml', 'export', 'Finance prices', '--type', 'answer', '--out', out], 'tsadmin'));
    assert.match(readFileSync(join(out, readdirSync(out)[0]!), 'utf8'), /name: quotes/);
    await fails(inFinance(['tml', 'export', 'Top grossing genres', '--type', 'answer', '--out', out], 'tsadmin'), /Top grossing genres/);
  },
  'tml validate': async () => {
    await ok(inFinance(['tml', 'validate', join(dir, 'quotes.answer.tml')], 'tsadmin'));
    await fails(inFinance(['tml', 'validate', join(dir, 'flights.answer.tml')], 'tsadmin'), /flights/);
  },
  'tml import': async () => {
    await ok(inFinance(['tml', 'import', join(dir, 'quotes.answer.tml')], 'tsadmin'));
    const finance = (JSON.parse(await ok(inFinance(['objects', '--type', 'QUESTION_ANSWER_BOOK', '--format', 'json'], 'tsadmin'))) as { name: string }[]).map((o) => o.name);
    assert.ok(finance.includes('Imported quotes'), finance.join());
    const primary = await tsq(['objects', '--type', 'QUESTION_ANSWER_BOOK', '--format', 'json', '--url', live.emu.url, '--user', 'tsadmin'], { env: admin });
    assert.ok(!primary.stdout.includes('Imported quotes'), primary.stdout);
  },
  load: async () => {
    const csv = file('notes.csv', 'symbol,note\nAAPL,fruit\nIBM,blue\n');
    await ok(inFinance(['load', csv, '--input-table', 'quote_notes', '--replace'], 'tsadmin'));
    const primary = await tsq(['load', csv, '--input-table', 'quote_notes', '--replace', '--url', live.emu.url, '--user', 'tsadmin'], { env: admin });
    assert.notEqual(primary.code, 0);
    assert.match(primary.stderr, /There is no input table quote_notes/);
  },
  status: async () => {
    // the data-load API (Software clusters) has no Orgs: a cycle reads the same in every Org
    const r = await inFinance(['status', cycle], 'tsadmin');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^stage +DONE$/m);
    // …and says so rather than seeming to run in Finance
    assert.match(r.stderr, /--org Finance has no effect here: the data-load API has no Orgs/);
  },
  'bad-records': async () => {
    const r = await inFinance(['bad-records', cycle], 'tsadmin');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /--org Finance has no effect here/);
  },
  lsp: async () => {
    const lsp = startTsqLsp(['--url', live.emu.url, '--user', 'analyst', '--org', 'Finance'], dir, analyst);
    lsp.connection.onNotification('textDocument/publishDiagnostics', () => undefined);
    lsp.connection.onNotification('window/showMessage', () => undefined);
    lsp.connection.listen();
    try {
      await lsp.initialize();
      const uri = `file://${join(dir, 'lsp.tsq')}`;
      await lsp.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tsq', version: 1, text: "@datasource 'quotes'\n[" } });
      const labels = async (): Promise<string[]> => {
        const r = await lsp.connection.sendRequest<{ items: { label: string }[] } | { label: string }[] | null>('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 1 } });
        return (Array.isArray(r) ? r : r?.items ?? []).map((i) => i.label);
      };
      let got: string[] = [];
      for (let i = 0; i < 50 && !got.some((l) => /symbol/.test(l)); i++) {
        got = await labels();
        if (!got.some((l) => /symbol/.test(l))) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(got.some((l) => /symbol/.test(l)) && got.some((l) => /price/.test(l)), got.join());
      assert.ok(!got.some((l) => /origin|delay/.test(l)), got.join());
    } finally {
      await lsp.close();
    }
  },
  mcp: async () => {
    // list_orgs and switch_org: mcp-orgs.test.ts
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--url', live.emu.url, '--user', 'analyst', '--org', 'Finance'], env: cleanEnv(analyst) as Record<string, string>, cwd: EMPTY_HOME, stderr: 'pipe' });
    const client = new Client({ name: 'tsq-org-every-command', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'list_data_sources', arguments: {} });
      const listed = r.structuredContent as { org: { name: string }; dataSources: { name: string }[] };
      assert.equal(listed.org.name, 'Finance');
      assert.deepEqual(listed.dataSources.map((d) => d.name), ['quotes']);
    } finally {
      await client.close();
    }
  },
};

/** Commands that never talk to the service, and why (they take no connection options). */
const OFFLINE: Record<string, string> = { trust: 'approves a project\'s tsq.json on this machine' };

let cycle = '';

/** Every leaf command of `c` by its path (`tml export`). */
function leaves(c: Command, prefix = ''): { path: string; command: Command }[] {
  return c.commands.flatMap((sub) => {
    const path = prefix ? `${prefix} ${sub.name()}` : sub.name();
    return sub.commands.length ? leaves(sub, path) : [{ path, command: sub }];
  });
}

before(async () => {
  live = await startLive();
  dir = mkdtempSync(join(tmpdir(), 'tsq-org-every-'));
  file('quotes.tsq', "@datasource 'quotes'\n[symbol] [symbol] = 'AAPL'\n");
  file('flights.tsq', "@datasource 'flights'\n[origin]\n");
  file('quotes.answer.tml', 'answer:\n  name: Imported quotes\n  tables:\n  - name: quotes\n  search_query: "[symbol] [price]"\n');
  file('flights.answer.tml', 'answer:\n  name: Imported flights\n  tables:\n  - name: flights\n  search_query: "[origin] [delay]"\n');
  const token = await financeToken();
  await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ answer: { name: 'Finance prices', tables: [{ name: 'quotes' }], search_query: "[symbol] [price] [symbol] = 'AAPL'" } })] }, token);
  await v2('/metadata/tml/import', { metadata_tmls: [JSON.stringify({ worksheet: { name: 'Quote Symbols', tables: [{ name: 'quotes' }], worksheet_columns: [{ name: 'symbol', column_id: 'quotes::symbol' }] } })] }, token);
  await v2('/input-tables/create', { table_name: 'quote_notes', model_identifier: 'Quote Symbols', table_definition: { referenced_columns: ['symbol'], new_columns: [{ name: 'note', data_type: 'VARCHAR', type: 'ATTRIBUTE' }] } }, token);
  const loaded = await tsq(['load', file('stocks.csv', 'symbol,date,price\nTSQ,Jan 1 2000,1\n'), '--table', 'demo.engine_default_schema.stocks', '--json', '--url', live.emu.url, '--user', 'tsadmin'], { env: admin });
  assert.equal(loaded.code, 0, loaded.stderr);
  cycle = (JSON.parse(loaded.stdout) as { cycleId: string }).cycleId;
});

after(async () => {
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every command of the command table takes --org and has a case here, or never talks to the service', () => {
  const all = leaves(buildProgram());
  const service = all.filter((l) => l.command.options.some((o) => o.long === '--org')).map((l) => l.path).sort();
  const rest = all.filter((l) => !service.includes(l.path)).map((l) => l.path).sort();
  assert.deepEqual(rest, Object.keys(OFFLINE).sort(), 'a command without --org that is not known to stay offline');
  assert.deepEqual(service, Object.keys(CASES).sort(), 'a command with --org and no case in this file');
});

for (const [path, run] of Object.entries(CASES)) {
  test(`tsq ${path} --org Finance runs in Finance: its objects, none of Primary's`, { timeout: 120_000 }, run);
}

test('--org of an Org the user is not in refuses every command that signs in with it', { timeout: 240_000 }, async () => {
  for (const args of [['objects'], ['query', join(dir, 'quotes.tsq')], ['tml', 'export', 'Finance prices', '--type', 'answer', '--out', dir], ['export', 'Finance prices']]) {
    const r = await tsq([...args, '--url', live.emu.url, '--user', 'trader', '--org', 'Primary'], { env: { TSQ_PASSWORD: 'trader' }, cwd: dir });
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, /not a member of an Org "Primary"/, args.join(' '));
  }
});
