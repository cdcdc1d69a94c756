/**
 * Bad input for the built language server (`node dist/server.js --stdio`): a client whose catalog answers
 * are null, malformed, errors or never come, a client that implements no `tsq/*` method, a 10 MB document,
 * binary bytes, a cancelled request. In every case the server stays up, answers within its budget, and
 * reports no false error (no semantic diagnostic from an unknown catalog), and no handler failed: a
 * handler that throws still answers (runSafeAsync turns the throw into an empty result), so every case
 * also asserts that the server logged no failure. Budgets are lowered with
 * `--request-timeout` so the tests stay short. Nothing here is timed: a server that hung would leave the
 * request unanswered and the test would fail on its timeout; speed is measured in test/bench.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { Diagnostic } from 'vscode-languageserver-types';
import { datasetValues, flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';
import { LspClient, positionOf, rangeOf } from './lspClient';
import type { LspClientOptions, RequestHandler } from './lspClient';

const SEMANTIC_CODES = ['tsq.unknownColumn', 'tsq.ambiguousColumn', 'tsq.bucketOnNonDate', 'tsq.textOperatorOnNumber', 'tsq.textComparedToNumber', 'tsq.unknownDataSource'];
const FLIGHTS_TEXT = "@datasource 'Flights'\n[origin] [no such column] [delay] > 10 [";
const BUDGET_MS = 400;

const semantic = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => SEMANTIC_CODES.includes(String(d.code)));

async function withServer(options: LspClientOptions, body: (client: LspClient) => Promise<void>): Promise<void> {
  const { client } = await LspClient.start({ args: [`--request-timeout=${BUDGET_MS}`, '--validation-delay=0'], ...options });
  try {
    await body(client);
    assert.ok(client.alive, `the server is still running; stderr: ${client.stderr}`);
    assert.deepEqual(client.protocolErrors, [], 'stdout carried only LSP frames');
    assert.deepEqual(client.failures, [], 'no handler failed (the server logged no failure)');
  } finally {
    await client.stop();
  }
}

/**
 * With a broken `tsq/columns`, the server answers pull diagnostics and completion, reports no semantic
 * diagnostic, offers no column, and later works normally once the client answers properly (nothing bad
 * was cached).
 */
async function assertSurvives(columns: RequestHandler, label: string): Promise<LspClient['logs']> {
  let logs: LspClient['logs'] = [];
  let broken = true;
  const good = makeCatalogProvider([flightsCatalog()], datasetValues());
  const handlers: Record<string, RequestHandler> = {
    'tsq/columns': (p, token) => (broken ? columns(p, token) : good.getColumns((p as { dataSource: string }).dataSource)),
    'tsq/dataSources': (_p, token) => (broken ? columns({ dataSource: 'Flights' }, token) : good.getDataSources()),
  };
  await withServer({ catalog: good, handlers, pullDiagnostics: true }, async (client) => {
    const uri = `file:///${label.replace(/\W+/g, '-')}.tsq`;
    await client.didOpen(uri, FLIGHTS_TEXT);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(semantic(diagnostics), [], `${label}: no semantic diagnostic from an unknown catalog`);
    const list = await client.completion(uri, positionOf(FLIGHTS_TEXT, '> 10 [', 6));
    assert.ok(!list?.items.some((i) => i.label === 'delay'), `${label}: no column offered`);
    assert.ok(client.requestsOf('tsq/columns').length >= 1, `${label}: the server did ask`);

    broken = false;
    const fixed = await client.pullDiagnostics(uri);
    assert.deepEqual(semantic(fixed).map((d) => d.range), [rangeOf(FLIGHTS_TEXT, 'no such column')], `${label}: the failed answer was not cached`);
    logs = client.logs;
  });
  return logs;
}

test('tsq/columns answering null for every data source: no column errors', async () => {
  await withServer({ handlers: { 'tsq/columns': () => null, 'tsq/dataSources': () => [] }, pullDiagnostics: true }, async (client) => {
    const uri = 'file:///null.tsq';
    await client.didOpen(uri, FLIGHTS_TEXT);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(diagnostics.filter((d) => d.code === 'tsq.unknownColumn'), [], 'a data source the service does not know has no column to check');
    const list = await client.completion(uri, positionOf(FLIGHTS_TEXT, '> 10 [', 6));
    assert.ok(!list?.items.some((i) => i.label === 'delay'));
  });
});

test('tsq/columns answering a malformed object is treated as unknown', async () => {
  await assertSurvives(() => ({ id: 42, columns: 'not a list' }), 'malformed object');
});

test('tsq/columns answering columns with a bad data type is treated as unknown', async () => {
  const flights = flightsCatalog();
  await assertSurvives(() => ({ ...flights, columns: flights.columns.map((c, i) => (i === 0 ? { ...c, dataType: 'BLOB' } : c)) }), 'bad data type');
});

test('tsq/columns answering a bare string or a number is treated as unknown', async () => {
  await assertSurvives(() => 'Flights', 'bare string');
});

test('tsq/columns answering an error is treated as unknown', async () => {
  await assertSurvives(() => {
    throw new ResponseError(-32001, 'The Analytics Service answered 401: Unable to verify user. Please login again.');
  }, 'error answer');
});

test('a client that never answers tsq/columns: the server answers within its budget and cancels the request', async () => {
  let cancelledByServer = 0;
  const logs = await assertSurvives((_p, token) => new Promise(() => token.onCancellationRequested(() => cancelledByServer++)), 'never answers');
  assert.ok(cancelledByServer >= 1, 'the server sent $/cancelRequest for the requests it gave up on');
  assert.ok(logs.some((l) => l.includes(`tsq/columns: no answer from the client within ${BUDGET_MS} ms`)), 'it gave up after its budget and said so');
});

test('a client that implements no tsq/* method (MethodNotFound): syntax diagnostics and keywords only', async () => {
  await withServer({ pullDiagnostics: true }, async (client) => {
    const uri = 'file:///no-catalog.tsq';
    const text = "@datasource 'Flights'\n[origin] [delay] > 10 to";
    await client.didOpen(uri, text);
    assert.deepEqual(semantic(await client.pullDiagnostics(uri)), []);
    const list = await client.completion(uri, { line: 1, character: text.split('\n')[1].length });
    assert.ok(list && list.items.some((i) => i.label === 'top'), 'keyword completion still works');
    // Syntax errors are still reported.
    await client.didChange(uri, "@datasource 'Flights'\n[origin] = 'SEA", 2);
    assert.ok((await client.pullDiagnostics(uri)).some((d) => d.code === 'tsq.unterminatedValue'));
    await client.completion(uri, { line: 1, character: 3 });
    assert.ok(client.requestsOf('tsq/columns').length <= 1, 'after MethodNotFound the server stops asking');
  });
});

test('a cancelled completion answers RequestCancelled and the server keeps serving', async () => {
  await withServer({ handlers: { 'tsq/columns': () => new Promise(() => undefined) }, args: ['--request-timeout=3000'] }, async (client) => {
    const uri = 'file:///cancel.tsq';
    await client.didOpen(uri, FLIGHTS_TEXT);
    const source = new CancellationTokenSource();
    const pending = client.connection.sendRequest('textDocument/completion', { textDocument: { uri }, position: positionOf(FLIGHTS_TEXT, '> 10 [', 6) }, source.token);
    await client.waitFor('tsq/columns asked', () => client.requestsOf('tsq/columns').length > 0);
    source.cancel();
    await assert.rejects(pending, (e: unknown) => e instanceof ResponseError && e.code === -32800);
    const symbols = await client.documentSymbols(uri);
    assert.ok(Array.isArray(symbols));
  });
});

test('a 10 MB document: the server answers diagnostics, completion and queries and stays up', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], datasetValues());
  await withServer({ catalog, pullDiagnostics: true, args: ['--request-timeout=5000'] }, async (client) => {
    const line = "[origin] [delay] top 10 sort by [delay] descending [origin] = 'SEA', 'PDX';\n";
    const text = "@datasource 'Flights'\n" + line.repeat(Math.ceil((10 * 1024 * 1024) / line.length)) + '[dest';
    assert.ok(text.length >= 10 * 1024 * 1024);
    const uri = 'file:///big.tsq';
    await client.didOpen(uri, text);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(diagnostics.filter((d) => d.code === 'tsq.unknownColumn'), []);
    const lines = text.split('\n');
    const list = await client.completion(uri, { line: lines.length - 1, character: lines.at(-1)!.length });
    assert.ok(list?.items.some((i) => i.label === 'destination'));
    const queries = await client.queries(uri);
    assert.ok(queries.length > 100_000, `got ${queries.length} queries`);
  });
});

test('binary bytes in a document: reported as syntax errors, never a crash', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], datasetValues());
  await withServer({ catalog }, async (client) => {
    const uri = 'file:///binary.tsq';
    let bytes = '';
    for (let i = 0; i < 512; i++) bytes += String.fromCharCode((i * 7919) % 256);
    const text = "@datasource 'Flights'\n[origin] \u0000\u0001\u0002 [delay]\n" + bytes + '\n\uD800 [\uDFFF] \uFFFE\n';
    await client.didOpen(uri, text);
    const diagnostics = await client.publishedDiagnostics(uri);
    assert.ok(diagnostics.length > 0, 'the stray characters are reported');
    for (const d of diagnostics) assert.ok(d.range.start.line >= 0 && typeof d.message === 'string');
    const hover = await client.hover(uri, { line: 2, character: 3 });
    assert.ok(hover === null || typeof hover === 'object');
    await client.formatting(uri);
    await client.semanticTokens(uri);
    assert.ok(Array.isArray(await client.queries(uri)));
  });
});

test('malformed parameters from the client answer an empty result, not a crash', async () => {
  await withServer({}, async (client) => {
    assert.deepEqual(await client.connection.sendRequest('tsq/queries', null), []);
    assert.deepEqual(await client.connection.sendRequest('tsq/queries', { uri: 42 }), []);
    const list = await client.completion('file:///never-opened.tsq', { line: 0, character: 0 });
    assert.deepEqual(list?.items ?? [], []);
  });
});

test('a client that never answers workspace/configuration: default settings after the budget, requests still answered', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], datasetValues());
  await withServer({ catalog, settings: {}, pullDiagnostics: true, handlers: { 'workspace/configuration': () => new Promise(() => undefined) } }, async (client) => {
    const uri = 'file:///no-config.tsq';
    await client.didOpen(uri, FLIGHTS_TEXT);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(semantic(diagnostics).map((d) => d.range), [rangeOf(FLIGHTS_TEXT, 'no such column')], 'validated with default settings');
    const list = await client.completion(uri, positionOf(FLIGHTS_TEXT, '> 10 [', 6));
    assert.ok(list?.items.some((i) => i.label === 'delay'));
    assert.ok(client.logs.some((l) => /workspace\/configuration/.test(l)), 'the missing answer is logged');
    await client.pullDiagnostics(uri);
    assert.equal(client.requestsOf('workspace/configuration').length, 1, 'asked once: the defaults stay cached for the document');
  });
});
