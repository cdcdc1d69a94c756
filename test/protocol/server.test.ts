/**
 * The built language server (`node dist/server.js --stdio`) driven message by message by a real LSP client
 * (lspClient.ts), which answers the server's `tsq/*` catalog requests from catalogs built from
 * vega-datasets (flights, cars, movies; weather from weather.csv): completion, push and pull diagnostics,
 * hover, code actions, formatting, document symbols, semantic tokens, `tsq/queries`, settings, caching
 * and `tsq/catalogChanged`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { IPCMessageReader, IPCMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, MarkupContent, TextEdit } from 'vscode-languageserver-types';
import { carsCatalog, catalogFromRows, datasetValues, flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';
import type { FixtureSource } from '../fixtures/catalogs';
import { SERVER_EXEC_ARGV } from '../../common/src/serverProcess';
import { LspClient, SERVER_JS, positionAt, positionOf, rangeOf } from './lspClient';
import type { LspClientOptions } from './lspClient';

const values = datasetValues();

/** `Weather` from vega-datasets' weather.csv (location, date, precipitation, temp_max, temp_min, wind, weather). */
function weatherCatalog(): FixtureSource {
  const file = join(dirname(require.resolve('vega-datasets')), '..', 'data', 'weather.csv');
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, cast: (value) => (value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value) }) as Record<string, unknown>[];
  return catalogFromRows('Weather', rows, { temp_max: 'Daily maximum temperature (°C)' });
}

function fixtureCatalog() {
  return makeCatalogProvider([flightsCatalog(), carsCatalog(), moviesCatalog(), weatherCatalog()], values);
}

/** Starts a server with the fixture catalog, runs `body`, and always stops it; asserts stdout stayed pure. */
async function withServer(options: LspClientOptions, body: (client: LspClient, capabilities: Record<string, unknown>) => Promise<void>): Promise<void> {
  const { client, capabilities } = await LspClient.start(options);
  try {
    await body(client, capabilities);
    assert.ok(client.alive, `the server is still running; stderr: ${client.stderr}`);
    assert.deepEqual(client.protocolErrors, [], 'stdout carried only LSP frames');
  } finally {
    await client.stop();
  }
}

const FLIGHTS = "@datasource 'Flights'\n";
const VALID = `-- flights out of Seattle
@datasource 'Flights'
[origin] [delay] top 10 sort by [delay] descending;
[date].monthly [delay] [origin] = 'SEA', 'PDX'

[distance] [destination] [distance] > 1000
`;

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => String(d.code));
/** A diagnostic's message as text (LSP 3.18 allows markup). */
const messageOf = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);

test('initialize announces the features, the trigger characters and push diagnostics when the client cannot pull', async () => {
  await withServer({ catalog: fixtureCatalog() }, async (_client, capabilities) => {
    const completion = capabilities.completionProvider as { triggerCharacters: string[]; resolveProvider: boolean };
    assert.deepEqual([...completion.triggerCharacters].sort(), [' ', "'", '.', '@', '['].sort());
    assert.equal(completion.resolveProvider, true, 'documentation comes on completionItem/resolve');
    assert.equal(capabilities.hoverProvider, true);
    assert.equal(capabilities.documentFormattingProvider, true);
    assert.equal(capabilities.documentRangeFormattingProvider, true);
    assert.equal(capabilities.documentSymbolProvider, true);
    assert.deepEqual((capabilities.codeActionProvider as { codeActionKinds: string[] }).codeActionKinds, ['quickfix']);
    const semantic = capabilities.semanticTokensProvider as { full: boolean; legend: { tokenTypes: string[] } };
    assert.equal(semantic.full, true);
    assert.ok(semantic.legend.tokenTypes.length > 0);
    assert.equal(capabilities.diagnosticProvider, undefined, 'no pull diagnostics for a client without the capability');
  });
});

test('completion after [ lists the columns of the data source learned through tsq/columns', async () => {
  const catalog = fixtureCatalog();
  await withServer({ catalog }, async (client) => {
    const uri = 'file:///flights.tsq';
    const text = FLIGHTS + '[origin] [';
    await client.didOpen(uri, text);
    const list = await client.completion(uri, positionOf(text, '[origin] [', '[origin] ['.length));
    assert.ok(list);
    assert.deepEqual(list.items.map((i) => i.label).sort(), ['date', 'delay', 'destination', 'distance', 'origin']);
    assert.deepEqual(client.requestsOf('tsq/columns').map((r) => r.params), [{ dataSource: 'Flights' }], 'asked for the data source of the document');
    const delay = list.items.find((i) => i.label === 'delay')!;
    assert.match(delay.detail ?? '', /INT64/);

    // Another data source further down: its own columns.
    const text2 = text + "\n\n@datasource 'Movies'\n[Major G";
    await client.didChange(uri, text2, 2);
    const list2 = await client.completion(uri, positionOf(text2, '[Major G', '[Major G'.length));
    assert.ok(list2?.items.some((i) => i.label === 'Major Genre'));
    assert.ok(!list2?.items.some((i) => i.label === 'delay'));
  });
});

test('completionItem/resolve: the list carries no column documentation; resolving an item answers its description', async () => {
  const catalog = fixtureCatalog();
  await withServer({ catalog }, async (client) => {
    const uri = 'file:///resolve.tsq';
    const text = FLIGHTS + '[origin] [';
    await client.didOpen(uri, text);
    const list = await client.completion(uri, positionOf(text, '[origin] [', '[origin] ['.length));
    assert.ok(list && list.items.length === 5);
    assert.ok(list.items.every((i) => i.documentation === undefined), 'no documentation inline');
    const delay = list.items.find((i) => i.label === 'delay')!;
    const resolved = await client.resolveCompletion(delay);
    assert.equal(resolved.label, 'delay');
    assert.deepEqual(resolved.textEdit, delay.textEdit, 'the rest of the item is unchanged');
    const doc = resolved.documentation as { kind: string; value: string };
    assert.equal(doc.kind, 'markdown');
    assert.match(doc.value, /Arrival delay in minutes/);
    assert.match(doc.value, /Data source: \*\*Flights\*\*/);
    // Answered from the catalog cache: no second tsq/columns round trip.
    assert.equal(client.requestsOf('tsq/columns').length, 1);
    // A keyword item; an item the server never made comes back as it was.
    const words = await client.completion(uri, { line: 1, character: '[origin] '.length });
    const top = words!.items.find((i) => i.label === 'top')!;
    assert.match(((await client.resolveCompletion(top)).documentation as { value: string }).value, /Example:/);
    assert.deepEqual(await client.resolveCompletion({ label: 'foreign', data: { column: 'nope', dataSource: 'Flights' } }), { label: 'foreign', data: { column: 'nope', dataSource: 'Flights' } });
  });
});

test('a client taking completionList.itemDefaults gets the shared replace range once, items keep only their text', async () => {
  await withServer({ catalog: fixtureCatalog(), itemDefaults: true }, async (client) => {
    const uri = 'file:///defaults.tsq';
    const text = FLIGHTS + '[origin] [de';
    await client.didOpen(uri, text);
    const at = positionOf(text, '[origin] [de', '[origin] [de'.length);
    const list = await client.completion(uri, at);
    assert.ok(list?.itemDefaults?.editRange && 'start' in list.itemDefaults.editRange);
    assert.deepEqual(list.itemDefaults.editRange, { start: { line: 1, character: '[origin] ['.length }, end: at });
    const delay = list.items.find((i) => i.label === 'delay')!;
    assert.equal(delay.textEdit, undefined);
    assert.equal(delay.textEditText, 'delay]');
    // Applying the default range with the item's text gives the same document as before.
    const doc = TextDocument.create(uri, 'tsq', 1, text);
    assert.equal(TextDocument.applyEdits(doc, [{ range: list.itemDefaults.editRange, newText: delay.textEditText! }]), FLIGHTS + '[origin] [delay]');
    // The data source goes once into itemDefaults.data; a column item names its column by its label, and
    // resolves as the client hands it back (its data being the default, LSP 3.17).
    assert.deepEqual(list.itemDefaults.data, { dataSource: 'Flights' });
    assert.equal(delay.data, undefined);
    const resolved = await client.resolveCompletion({ ...delay, data: list.itemDefaults.data });
    assert.match((resolved.documentation as { value: string }).value, /Arrival delay in minutes/);
    const words = await client.completion(uri, { line: 1, character: '[origin] '.length });
    const bracketed = words!.items.find((i) => i.label === '[delay]')!;
    assert.equal(bracketed.data, undefined);
    assert.match(((await client.resolveCompletion({ ...bracketed, data: words!.itemDefaults?.data })).documentation as { value: string }).value, /Arrival delay in minutes/);
    assert.deepEqual(words!.items.find((i) => i.label === 'top')!.data, { keyword: 'top' }, 'a keyword keeps its own data');
    // A multi-word keyword typed in part keeps its own, wider range.
    const text2 = FLIGHTS + '[origin] sort b';
    await client.didChange(uri, text2, 2);
    const list2 = await client.completion(uri, positionOf(text2, 'sort b', 'sort b'.length));
    const sortBy = list2!.items.find((i) => i.label === 'sort by')!;
    assert.ok(sortBy.textEdit && 'range' in sortBy.textEdit);
    assert.equal(sortBy.textEdit.range.start.character, '[origin] '.length);
    // An item whose text is its label carries neither (LSP 3.17: the label is then the text).
    const top = list2!.items.find((i) => i.label === 'top')!;
    assert.deepEqual([top.textEdit, top.textEditText], [undefined, undefined]);
    assert.deepEqual(list2!.itemDefaults?.editRange, { start: { line: 1, character: '[origin] sort '.length }, end: { line: 1, character: '[origin] sort b'.length } });
  });
});

test('push diagnostics: an unknown column is flagged at its exact range, valid queries stay silent', async () => {
  await withServer({ catalog: fixtureCatalog(), args: ['--validation-delay=50'] }, async (client) => {
    const valid = 'file:///valid.tsq';
    await client.didOpen(valid, VALID);
    assert.deepEqual(await client.publishedDiagnostics(valid), [], 'no diagnostic on valid queries');

    const uri = 'file:///bad.tsq';
    const text = FLIGHTS + '[origin] [dela] top 10;\n[distance] > 100';
    await client.didOpen(uri, text);
    const diagnostics = await client.publishedDiagnostics(uri);
    assert.deepEqual(codes(diagnostics), ['tsq.unknownColumn']);
    assert.deepEqual(diagnostics[0].range, rangeOf(text, 'dela'), 'the range of the unknown name');
    assert.equal(diagnostics[0].severity, 1);
    assert.match(messageOf(diagnostics[0]), /dela/);

    // Fixing it re-publishes an empty list for the new version.
    await client.didChange(uri, text.replace('[dela]', '[delay]'), 2);
    await client.waitFor('diagnostics of version 2', () => client.published.get(uri)?.find((p) => p.version === 2));
    assert.deepEqual(client.published.get(uri)!.at(-1)!.diagnostics, []);

    // Closing clears the document's diagnostics.
    await client.didClose(uri);
    await client.waitFor('diagnostics cleared on close', () => client.published.get(uri)!.length >= 3);
    assert.deepEqual(client.published.get(uri)!.at(-1)!.diagnostics, []);
  });
});

test('push diagnostics are debounced per document: a burst of changes publishes once, for the last version', async () => {
  await withServer({ catalog: fixtureCatalog(), args: ['--validation-delay=300'] }, async (client) => {
    const uri = 'file:///burst.tsq';
    await client.didOpen(uri, FLIGHTS + '[o');
    for (let v = 2; v <= 6; v++) await client.didChange(uri, FLIGHTS + '[origin] [x' + 'y'.repeat(v) + ']', v);
    const diagnostics = await client.publishedDiagnostics(uri);
    assert.deepEqual(client.published.get(uri)!.map((p) => p.version), [6], 'one publish, for the last version');
    assert.deepEqual(codes(diagnostics), ['tsq.unknownColumn']);
    assert.match(messageOf(diagnostics[0]), /xyyyyyy/);
  });
});

test('pull diagnostics: the server answers textDocument/diagnostic and publishes nothing', async () => {
  await withServer({ catalog: fixtureCatalog(), pullDiagnostics: true, args: ['--validation-delay=0'] }, async (client, capabilities) => {
    assert.ok(capabilities.diagnosticProvider, 'announces a diagnostic provider');
    const uri = 'file:///pull.tsq';
    const text = "@datasource 'Cars'\n[Name] [Horsepowr] [Cylinders] > 4";
    await client.didOpen(uri, text);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(codes(diagnostics), ['tsq.unknownColumn']);
    assert.deepEqual(diagnostics[0].range, rangeOf(text, 'Horsepowr'));
    assert.deepEqual(await client.pullDiagnostics('file:///not-open.tsq'), []);
    const valid = 'file:///pull-valid.tsq';
    await client.didOpen(valid, VALID);
    assert.deepEqual(await client.pullDiagnostics(valid), []);
    // The signal that the server has handled every notification sent so far, in order: a catalog change
    // makes a pushing server re-validate and publish every open document, a pulling one ask the client to
    // pull again (workspace/diagnostic/refresh). Once the refresh arrives and one more pull is answered,
    // anything the server had published would have reached the client before them.
    await client.catalogChanged();
    await client.waitFor('workspace/diagnostic/refresh', () => client.requestsOf('workspace/diagnostic/refresh').length === 1);
    assert.deepEqual(await client.pullDiagnostics(valid), []);
    assert.equal(client.published.size, 0, 'nothing pushed to a pulling client');
  });
});

test('catalog answers are cached per data source and dropped on tsq/catalogChanged (push: re-validated and re-published)', async () => {
  // The first catalog lacks [Horsepower]; after the change, the client answers the full Cars catalog.
  const cars = carsCatalog();
  const before = { ...cars, columns: cars.columns.filter((c) => c.name !== 'Horsepower') };
  let current = makeCatalogProvider([before, flightsCatalog()], values);
  const handlers = {
    'tsq/columns': (p: unknown) => current.getColumns((p as { dataSource: string }).dataSource),
    'tsq/dataSources': () => current.getDataSources(),
  };
  await withServer({ catalog: current, handlers, args: ['--validation-delay=20'] }, async (client) => {
    const a = 'file:///a.tsq';
    const b = 'file:///b.tsq';
    const text = "@datasource 'Cars'\n[Name] [Horsepower]";
    await client.didOpen(a, text);
    assert.deepEqual(codes(await client.publishedDiagnostics(a)), ['tsq.unknownColumn']);
    await client.didOpen(b, text + ' [Origin]');
    assert.deepEqual(codes(await client.publishedDiagnostics(b)), ['tsq.unknownColumn']);
    await client.completion(a, positionOf(text, '[Name', 1));
    assert.equal(client.requestsOf('tsq/columns').length, 1, 'one tsq/columns for Cars, then the cache');

    current = makeCatalogProvider([cars, flightsCatalog()], values);
    await client.catalogChanged();
    await client.waitFor('re-published diagnostics of both documents', () => client.publishCount(a) >= 2 && client.publishCount(b) >= 2);
    assert.deepEqual(client.published.get(a)!.at(-1)!.diagnostics, []);
    assert.deepEqual(client.published.get(b)!.at(-1)!.diagnostics, []);
    assert.equal(client.requestsOf('tsq/columns').length, 2, 'asked again once after the change');
  });
});

test('tsq/catalogChanged with a pulling client sends workspace/diagnostic/refresh and the next pull sees the new catalog', async () => {
  const weather = weatherCatalog();
  let current = makeCatalogProvider([{ ...weather, columns: weather.columns.filter((c) => c.name !== 'wind') }], values);
  const handlers = { 'tsq/columns': (p: unknown) => current.getColumns((p as { dataSource: string }).dataSource) };
  await withServer({ catalog: current, handlers, pullDiagnostics: true }, async (client) => {
    const uri = 'file:///weather.tsq';
    const text = "@datasource 'Weather'\naverage [temp_max] [wind] [date].monthly [weather] = 'rain'";
    await client.didOpen(uri, text);
    const first = await client.pullDiagnostics(uri);
    assert.deepEqual(codes(first), ['tsq.unknownColumn']);
    assert.deepEqual(first[0].range, rangeOf(text, 'wind'));
    current = makeCatalogProvider([weather], values);
    await client.catalogChanged();
    await client.waitFor('workspace/diagnostic/refresh', () => client.requestsOf('workspace/diagnostic/refresh').length === 1);
    assert.deepEqual(await client.pullDiagnostics(uri), []);
  });
});

test('hover over a column shows its data type and description from the catalog', async () => {
  await withServer({ catalog: fixtureCatalog() }, async (client) => {
    const uri = 'file:///hover.tsq';
    const text = FLIGHTS + '[origin] [delay] top 10';
    await client.didOpen(uri, text);
    const hover = await client.hover(uri, positionOf(text, 'delay', 2));
    assert.ok(hover, 'a hover');
    const contents = hover.contents as MarkupContent;
    assert.match(contents.value, /Arrival delay in minutes/);
    assert.match(contents.value, /INT64/);
    assert.equal(await client.hover('file:///not-open.tsq', { line: 0, character: 0 }), null);
  });
});

test('code actions: a quick fix replaces an unknown column with the closest one', async () => {
  await withServer({ catalog: fixtureCatalog(), pullDiagnostics: true }, async (client) => {
    const uri = 'file:///fix.tsq';
    const text = FLIGHTS + '[origin] [destinaton] top 5';
    await client.didOpen(uri, text);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(codes(diagnostics), ['tsq.unknownColumn']);
    const actions = (await client.codeActions(uri, diagnostics[0].range, diagnostics)) ?? [];
    const fix = actions.find((a): a is CodeAction => 'kind' in a && a.kind === 'quickfix' && /destination/.test(a.title));
    assert.ok(fix, `a quick fix to destination among ${JSON.stringify(actions.map((a) => a.title))}`);
    const edits = fix.edit?.changes?.[uri] ?? [];
    assert.ok(edits.length > 0, 'the fix edits this document');
    const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'tsq', 1, text), edits);
    assert.equal(fixed, FLIGHTS + '[origin] [destination] top 5');
  });
});

test('formatting: keywords lower-cased, spacing canonical, names and values untouched, idempotent', async () => {
  await withServer({ catalog: fixtureCatalog() }, async (client) => {
    const uri = 'file:///format.tsq';
    const text = FLIGHTS + "[Origin]    [delay]   TOP 10   SORT BY [delay]   DESCENDING ;\n[origin]  =  'SeA'";
    await client.didOpen(uri, text);
    const edits = (await client.formatting(uri)) ?? [];
    assert.ok(edits.length > 0, 'something to format');
    const formatted = TextDocument.applyEdits(TextDocument.create(uri, 'tsq', 1, text), edits);
    assert.match(formatted, /\[Origin\] \[delay\] top 10 sort by \[delay\] descending/);
    assert.match(formatted, /'SeA'/);
    assert.doesNotMatch(formatted, / {2}/, 'no double spaces left');

    await client.didChange(uri, formatted, 2);
    assert.deepEqual((await client.formatting(uri)) ?? [], [], 'formatting formatted text changes nothing');

    // Range formatting touches only the range.
    const text3 = FLIGHTS + '[origin]   TOP 10;\n[delay]   TOP 5';
    await client.didChange(uri, text3, 3);
    const rangeEdits: TextEdit[] = (await client.rangeFormatting(uri, { start: { line: 2, character: 0 }, end: { line: 2, character: 15 } })) ?? [];
    const rangeFormatted = TextDocument.applyEdits(TextDocument.create(uri, 'tsq', 3, text3), rangeEdits);
    assert.ok(rangeFormatted.includes('[origin]   TOP 10;'), 'the first query is untouched');
    assert.ok(rangeFormatted.includes('[delay] top 5'), 'the second is formatted');
  });
});

test('tsq/queries answers each query with its range, its text without comments, and its data source', async () => {
  await withServer({ catalog: fixtureCatalog(), settings: { defaultDataSource: 'Cars', diagnostics: { disabled: [] } } }, async (client) => {
    const uri = 'file:///queries.tsq';
    const text = "[Name] [Horsepower] -- default data source\n\n@datasource 'Flights'\n[origin] -- comment\n  [delay] top 10;\n[date].monthly [delay]\n";
    await client.didOpen(uri, text);
    const queries = await client.queries(uri);
    assert.deepEqual(queries.map((q) => q.dataSource), ['Cars', 'Flights', 'Flights']);
    const norm = (t: string) => t.replace(/\s+/g, ' ').replace(/\s*;$/, '').trim();
    assert.deepEqual(queries.map((q) => norm(q.text)), ['[Name] [Horsepower]', '[origin] [delay] top 10', '[date].monthly [delay]']);
    assert.ok(!queries.some((q) => q.text.includes('--')), 'comments removed');
    const doc = TextDocument.create(uri, 'tsq', 1, text);
    assert.match(doc.getText(queries[0].range), /^\[Name\] \[Horsepower\]/);
    assert.match(doc.getText(queries[1].range), /^\[origin\]/);
    assert.match(doc.getText(queries[2].range), /^\[date\]\.monthly \[delay\]/);
    assert.deepEqual(await client.queries('file:///not-open.tsq'), []);
  });
});

test('settings come from workspace/configuration per document: default data source and disabled diagnostics', async () => {
  await withServer({ catalog: fixtureCatalog(), pullDiagnostics: true, settings: { defaultDataSource: 'Movies', diagnostics: { disabled: ['tsq.unknownColumn'] } } }, async (client) => {
    const uri = 'file:///settings.tsq';
    const text = '[Title] [Nope] [';
    await client.didOpen(uri, text);
    const list = await client.completion(uri, { line: 0, character: text.length });
    assert.ok(list?.items.some((i) => i.label === 'Major Genre'), 'columns of the default data source');
    assert.ok(!codes(await client.pullDiagnostics(uri)).includes('tsq.unknownColumn'), 'tsq.unknownColumn silenced');
    const config = client.requestsOf('workspace/configuration')[0]?.params as { items: { scopeUri: string; section: string }[] };
    assert.deepEqual(config.items, [{ scopeUri: uri, section: 'tsq' }]);
  });
});

test('settings pushed by workspace/didChangeConfiguration apply to clients without workspace/configuration', async () => {
  await withServer({ catalog: fixtureCatalog(), pullDiagnostics: true }, async (client) => {
    const uri = 'file:///pushed-settings.tsq';
    const text = '[Title] [Nope]';
    await client.didOpen(uri, text);
    assert.ok(!codes(await client.pullDiagnostics(uri)).includes('tsq.unknownColumn'), 'no data source yet: no column checked');
    await client.didChangeConfiguration({ tsq: { defaultDataSource: 'Movies' } });
    await client.waitFor('refresh after the settings change', () => client.requestsOf('workspace/diagnostic/refresh').length > 0);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(codes(diagnostics).filter((c) => c === 'tsq.unknownColumn'), ['tsq.unknownColumn']);
    assert.deepEqual(diagnostics.find((d) => d.code === 'tsq.unknownColumn')!.range, rangeOf(text, 'Nope'));
  });
});

test('document symbols give one symbol per query, semantic tokens cover the document', async () => {
  await withServer({ catalog: fixtureCatalog() }, async (client) => {
    const uri = 'file:///symbols.tsq';
    await client.didOpen(uri, VALID);
    const symbols = (await client.documentSymbols(uri)) ?? [];
    assert.equal(symbols.length, 3);
    const tokens = await client.semanticTokens(uri);
    assert.ok(tokens && tokens.data.length > 0 && tokens.data.length % 5 === 0, 'semantic tokens in groups of 5');
  });
});

test('over IPC (how VS Code starts it, --node-ipc) the server initializes and completes columns', async () => {
  const child = fork(SERVER_JS, ['--node-ipc'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execArgv: [...SERVER_EXEC_ARGV] });
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const catalog = fixtureCatalog();
  connection.onRequest('tsq/columns', (p: { dataSource: string }) => catalog.getColumns(p.dataSource));
  connection.listen();
  try {
    const init = await connection.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
    assert.ok(init.capabilities.completionProvider);
    await connection.sendNotification('initialized', {});
    const uri = 'file:///ipc.tsq';
    const text = "@datasource 'Cars'\n[";
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tsq', version: 1, text } });
    const list = await connection.sendRequest<{ items: { label: string }[] }>('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 1 } });
    assert.ok(list.items.some((i) => i.label === 'Horsepower'));
    await connection.sendRequest('shutdown');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await connection.sendNotification('exit');
    assert.equal(await exited, 0, 'exits 0 after shutdown + exit');
    assert.equal(stdout, '', 'nothing written to stdout over IPC');
  } finally {
    connection.dispose();
    if (child.exitCode === null) child.kill();
  }
});

test('started with no transport and no IPC channel, the server prints its usage on stderr and exits 2', () => {
  const r = spawnSync(process.execPath, [SERVER_JS], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--stdio/);
  assert.equal(r.stdout, '');
});

test('after calendar. the server offers the custom calendars the client answers to tsq/calendars, asked once until tsq/catalogChanged', async () => {
  let calendars = ['retail'];
  const handlers = { 'tsq/calendars': () => calendars };
  await withServer({ catalog: fixtureCatalog(), handlers }, async (client) => {
    const uri = 'file:///calendars.tsq';
    const text = FLIGHTS + '[delay] [date].monthly calendar.';
    await client.didOpen(uri, text);
    const end = positionAt(text, text.length);
    assert.deepEqual((await client.completion(uri, end))!.items.map((i) => i.label), ['fiscal', 'retail']);
    await client.completion(uri, end);
    assert.equal(client.requestsOf('tsq/calendars').length, 1, 'cached');
    calendars = ['retail', '4-4-5 US'];
    await client.catalogChanged();
    // notifications and requests are handled in order: the completion after the change asks again
    assert.deepEqual((await client.completion(uri, end))!.items.map((i) => (i.textEdit && 'newText' in i.textEdit ? i.textEdit.newText : i.label)), ['fiscal', 'retail', "'4-4-5 US'"]);
    assert.equal(client.requestsOf('tsq/calendars').length, 2, 'asked again once after the change');
  });
});
