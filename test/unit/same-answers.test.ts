/**
 * Same answers from every front end: one set of recorded service answers (test/fixtures/recorded-catalog/:
 * `metadata/listobjectheaders`, `metadata/details` and `searchdata` bodies, served by a small real HTTP
 * server) is read by the VS Code path — the extension's catalog (client/src/catalog.ts over
 * client/src/serviceAdapter.ts), its answers sent as JSON through the catalog protocol into the server's
 * protocol catalog — and by the `tsq check` / `tsq lsp` path, the server reading the service itself
 * (`ServiceCatalogProvider`), down to the `tsq check` command itself (dist/cli.js, built by
 * scripts/run-tests.mjs). All must give the same columns (types, kinds, order), the same hover and the
 * same diagnostics. The cases the fixture holds: `ORDERS`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Hover } from 'vscode-languageserver-types';
import { AnalyticsServiceClient } from '../../common/src/api';
import type { Column } from '../../common/src/model';
import { createServiceCatalog } from '../../client/src/catalog';
import { createService, type Service } from '../../client/src/serviceAdapter';
import { ProtocolCatalog, type RequestSender } from '../../server/src/protocolCatalog';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider, LanguageService } from '../../common/src/languageService/types';
import { formatDiagnostic } from '../../cli/src/check';

const fixtures = join(__dirname, '..', 'fixtures', 'recorded-catalog');
const read = <T>(name: string): T => JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as T;
const headers = read<{ LOGICAL_TABLE: Record<string, unknown[]>; LOGICAL_COLUMN: unknown[] }>('listobjectheaders.json');
const details = read<Record<string, unknown>>('details.json');
const values = read<Record<string, string[]>>('searchdata.json');

const PREFIX = '/callosum/v1/tspublic/v1';

/** Answers the recorded bodies, as the service would (docs/service-notes.md §3.1, §3.2). */
function recordedService(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname;
      if (path === '/session/login') {
        res.writeHead(204, { 'set-cookie': 'JSESSIONID=recorded; Path=/' });
        return res.end();
      }
      if (req.headers.cookie !== 'JSESSIONID=recorded') {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end('{"debug":"not logged in"}');
      }
      if (path === '/session/logout') {
        res.writeHead(204);
        return res.end();
      }
      if (path === '/metadata/listobjectheaders') {
        const type = url.searchParams.get('type');
        if (type === 'LOGICAL_COLUMN') return json(headers.LOGICAL_COLUMN);
        const subtypes = JSON.parse(url.searchParams.get('subtypes') ?? '[]') as string[];
        return json(subtypes.flatMap((s) => headers.LOGICAL_TABLE[s] ?? []));
      }
      if (path === '/metadata/details') {
        const ids = JSON.parse(url.searchParams.get('id') ?? '[]') as string[];
        return json(details[ids[0]] ?? { storables: [] });
      }
      if (path === '/searchdata') {
        const query = url.searchParams.get('query_string') ?? '';
        const column = /^\[([^\]]+)\]/.exec(query)?.[1] ?? '';
        const prefix = (/begins with '([^']*)'/.exec(query)?.[1] ?? '').toLowerCase();
        const rows = (values[column] ?? []).filter((v) => v.toLowerCase().startsWith(prefix)).map((v) => [v]);
        return json({ columnNames: [column], data: rows, samplingRatio: 1, totalRowCount: rows.length, rowCount: rows.length, pageSize: 50, offset: 0 });
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"debug":"not recorded"}');
    });
  });
}

let server: Server;
let url: string;
let service: Service;
let client: AnalyticsServiceClient;
/** The VS Code path: the extension's catalog, answering the server's `tsq/*` requests as JSON. */
let vscodePath: CatalogProvider;
/** The `tsq check` / `tsq lsp` path: the server reading the service itself. */
let cliPath: CatalogProvider;

before(async () => {
  server = recordedService();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = createService({ url, username: 'tsadmin' }, () => 'recorded');
  const extensionCatalog = createServiceCatalog(service);
  // what client/src/languageClient.ts answers, sent through JSON as the LSP connection sends it
  const sender: RequestSender = {
    async sendRequest<R>(method: string, params: unknown): Promise<R> {
      const p = params as { dataSource: string; column: string; prefix: string };
      const answer =
        method === 'tsq/dataSources' ? await extensionCatalog.dataSources()
        : method === 'tsq/columns' ? await extensionCatalog.columns(p.dataSource)
        : await extensionCatalog.columnValues(p.dataSource, p.column, p.prefix);
      return JSON.parse(JSON.stringify(answer)) as R;
    },
  };
  const timer = { setTimeout: (cb: () => void, ms: number) => { const t = setTimeout(cb, ms); return { dispose: () => clearTimeout(t) }; } };
  vscodePath = new ProtocolCatalog(sender, { timer, requestTimeout: 10_000 });
  client = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'recorded' });
  cliPath = new ServiceCatalogProvider(client);
});

after(async () => {
  await service?.logout();
  await client?.logout();
  await new Promise<void>((r) => server?.close(() => r()));
});

/**
 * The columns each rule of the mapping gives the recorded answers, in position order, hidden ones left out.
 * The fixture holds each case where the two copies of the mapping once disagreed: BOOLEAN, INT, INTEGER,
 * BIGINT and DATETIME data types; a numeric UNKNOWN column with a default aggregation (a MEASURE) and
 * one without (an ATTRIBUTE); a hidden column; positions out of order; and a data source whose details
 * describe no table, so that its columns come from its LOGICAL_COLUMN headers (`LEGACY`).
 */
const ORDERS: Column[] = [
  { id: '0a1b2c3d-0000-4000-8000-0000000000a0', name: 'order id', dataType: 'INT64', kind: 'ATTRIBUTE' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a1', name: 'quantity', dataType: 'INT32', kind: 'MEASURE' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a2', name: 'is gift', dataType: 'BOOL', kind: 'ATTRIBUTE', synonyms: ['gift'] },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a4', name: 'ordered at', dataType: 'DATE_TIME', kind: 'ATTRIBUTE' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a5', name: 'amount', dataType: 'DOUBLE', kind: 'MEASURE', description: 'Order total in dollars' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a6', name: 'units', dataType: 'INT32', kind: 'ATTRIBUTE' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000a7', name: 'discount code', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
];
const LEGACY: Column[] = [
  { id: '0a1b2c3d-0000-4000-8000-0000000000c1', name: 'region', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
  { id: '0a1b2c3d-0000-4000-8000-0000000000c2', name: 'revenue', dataType: 'DOUBLE', kind: 'MEASURE', description: 'Revenue in dollars' },
];

test('both front ends read the same columns, types and kinds from the same service answers', async () => {
  const orders = { id: '0a1b2c3d-0000-4000-8000-000000000001', name: 'Orders', columns: ORDERS };
  const legacy = { id: '0a1b2c3d-0000-4000-8000-000000000002', name: 'Legacy', columns: LEGACY };
  assert.deepEqual(await vscodePath.getColumns('Orders'), orders, 'VS Code');
  assert.deepEqual(await cliPath.getColumns('Orders'), orders, 'tsq check / tsq lsp');
  assert.deepEqual(await vscodePath.getColumns('legacy'), legacy, 'VS Code: LOGICAL_COLUMN headers when the details describe no table');
  assert.deepEqual(await cliPath.getColumns('legacy'), legacy, 'tsq check / tsq lsp: LOGICAL_COLUMN headers when the details describe no table');
  assert.equal(await vscodePath.getColumns('no such table'), null);
  assert.equal(await cliPath.getColumns('no such table'), null);
  assert.deepEqual(await vscodePath.getColumnValues('Orders', 'discount code', 'sp'), ['SPRING10', 'SPRING25']);
  assert.deepEqual(await cliPath.getColumnValues('Orders', 'discount code', 'sp'), ['SPRING10', 'SPRING25']);
});

const DOCUMENT = [
  "@datasource 'Orders'",
  '[order id] [quantity] [is gift] [ordered at] [amount] [units] [discount code];',
  '[cost basis] [amount];',
  "[ordered at].monthly [quantity] > 'many';",
  "[amount] contains '5' [units] contains '5' [is gift] = 'true';",
  '[order id].monthly [amount] > 10;',
  "@datasource 'Legacy'",
  '[region] [revenue] [nope];',
].join('\n');

/** Diagnostics and the hover of every column token of DOCUMENT through one front end's catalog. */
async function answers(catalog: CatalogProvider): Promise<{ diagnostics: Diagnostic[]; hovers: (Hover | null)[] }> {
  const ls: LanguageService = getLanguageService({ catalog });
  const doc = TextDocument.create('file:///same-answers.tsq', 'tsq', 1, DOCUMENT);
  const diagnostics = await ls.doValidation(doc, {});
  diagnostics.sort((a, b) => doc.offsetAt(a.range.start) - doc.offsetAt(b.range.start));
  const hovers: (Hover | null)[] = [];
  for (const m of DOCUMENT.matchAll(/\[[^\]]+\]|@datasource/g)) hovers.push(await ls.doHover(doc, doc.positionAt(m.index + 1), {}));
  return { diagnostics, hovers };
}

test('both front ends give the same hover and the same diagnostics for one document', async () => {
  const vscode = await answers(vscodePath);
  const cli = await answers(cliPath);
  const codes = (d: Diagnostic[]) => d.map((x) => `${x.range.start.line}:${String(x.code)}`);
  // each line's verdict follows from one rule of the mapping: hidden column, DATETIME, INT, UNKNOWN+SUM, BIGINT, headers
  const expected = ['2:tsq.unknownColumn', '3:tsq.textComparedToNumber', '4:tsq.textOperatorOnNumber', '4:tsq.textOperatorOnNumber', '5:tsq.bucketOnNonDate', '7:tsq.unknownColumn'];
  assert.deepEqual(codes(vscode.diagnostics), expected, 'VS Code');
  assert.deepEqual(codes(cli.diagnostics), expected, 'tsq check / tsq lsp');
  assert.deepEqual(cli.diagnostics, vscode.diagnostics);
  assert.deepEqual(cli.hovers, vscode.hovers);
  assert.ok(vscode.hovers.every((h) => h !== null));
});

test('the tsq check command prints the diagnostics of the VS Code path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-same-answers-'));
  try {
    const file = join(dir, 'same-answers.tsq');
    writeFileSync(file, DOCUMENT);
    const { diagnostics } = await answers(vscodePath);
    // a clean environment: no connection file of the machine, the password from TSQ_PASSWORD
    const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), TSQ_PASSWORD: 'recorded' };
    // asynchronously: the recorded service answers from this process
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), 'check', file, '--url', url, '--user', 'tsadmin'], { env, encoding: 'utf8', timeout: 60_000 }, (_e, stdout, stderr) =>
        resolve({ status: child.exitCode, stdout, stderr }),
      );
    });
    assert.equal(run.status, 1, `tsq check exits 1 on errors; stderr: ${run.stderr}`);
    assert.deepEqual(run.stdout.trim().split('\n'), diagnostics.map((d) => formatDiagnostic(file, d)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
