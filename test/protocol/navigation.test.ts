/**
 * Navigation in the built language server over stdio (lspClient.ts), asked from `.tsq` files and the
 * model TML, on the workspace of navigationWorkspace.ts (several `.tsq` files, an exported Answer TML, a
 * Liveboard TML and a model TML; `revenue` and `region` of `Retail Sales` used in many files and in both
 * query forms, `Marketing` with columns of the same names). Definition, references, highlights, rename,
 * code lenses, workspace symbols and `tsq/uses` answer exactly the locations and edits computed from the
 * texts written; nonsense positions answer empty. The same asked from inside TML strings:
 * navigation-tml.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import type { CodeLens, DocumentHighlight, Location, Range, SymbolInformation, WorkspaceEdit } from 'vscode-languageserver-types';
import { positionAt, positionOf } from './lspClient';
import { applyEdits, declaration, FILES, GUID, nameAfter, RETAIL, retailRevenue, retailUses, sorted, start, uses, withWorkspace } from './navigationWorkspace';

test('initialize declares the navigation providers and the server command of the Run lens', async () => {
  await withWorkspace(async ({ capabilities }) => {
    for (const k of ['definitionProvider', 'referencesProvider', 'documentHighlightProvider', 'workspaceSymbolProvider']) assert.equal(capabilities[k], true, k);
    assert.deepEqual(capabilities.renameProvider, { prepareProvider: true });
    assert.ok(capabilities.codeLensProvider);
    assert.deepEqual(capabilities.executeCommandProvider, { commands: ['tsq.server.runQuery'] });
  });
});

test('references: every use of that column of that data source across the workspace, never the same name of another; includeDeclaration honoured', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const a = FILES['queries/a.tsq']!;
    const at = positionOf(a, '[revenue]', 3);
    const refs = (includeDeclaration: boolean, u = uri('queries/a.tsq'), position = at) => client.connection.sendRequest<Location[] | null>('textDocument/references', { textDocument: { uri: u }, position, context: { includeDeclaration } });
    const expected = retailRevenue(uri);
    assert.equal(expected.length, 9);
    assert.deepEqual(sorted(await refs(false)), sorted(expected));
    assert.deepEqual(sorted(await refs(true)), sorted([...expected, declaration(uri, 'revenue')]));
    // from the answer TML's string, the GUID-named file and the model's declaration: the same set
    const answer = FILES['answers/revenue.answer.tml']!;
    assert.deepEqual(sorted(await refs(false, uri('answers/revenue.answer.tml'), positionOf(answer, 'Sales::revenue', 8))), sorted(expected));
    assert.deepEqual(sorted(await refs(false, uri('queries/by-guid.tsq'), positionOf(FILES['queries/by-guid.tsq']!, '[revenue]', 1))), sorted(expected));
    assert.deepEqual(sorted(await refs(false, uri('models/retail.model.tml'), declaration(uri, 'revenue').range.start)), sorted(expected));
    // Marketing's revenue: its own uses only
    const board = FILES['boards/overview.liveboard.tml']!;
    const marketing = [
      ...uses(a, 'revenue', RETAIL.length).map((range) => ({ uri: uri('queries/a.tsq'), range })),
      ...uses(board, 'revenue', board.indexOf('Viz_2')).map((range) => ({ uri: uri('boards/overview.liveboard.tml'), range })),
    ];
    assert.deepEqual(sorted(await refs(true, uri('queries/a.tsq'), positionAt(a, a.lastIndexOf('[revenue]') + 2))), sorted(marketing));
    // a data source: its @datasource lines, tables entries and declaration
    const span = (f: string, before: string, name: string) => nameAfter(uri, f, before, name);
    const dsUses = [
      span('queries/a.tsq', "@datasource '", 'Retail Sales'),
      span('queries/b.tsq', "@datasource '", 'Retail Sales'),
      span('queries/by-guid.tsq', "@datasource '", GUID),
      span('answers/revenue.answer.tml', '    name: ', 'Retail Sales'),
      span('boards/overview.liveboard.tml', '        name: ', 'Retail Sales'),
    ];
    const dsDeclaration = span('models/retail.model.tml', 'model:\n  name: ', 'Retail Sales');
    assert.deepEqual(sorted(await refs(true, uri('queries/b.tsq'), positionOf(FILES['queries/b.tsq']!, 'Retail', 2))), sorted([...dsUses, dsDeclaration]));
    assert.deepEqual(sorted(await refs(false, uri('answers/revenue.answer.tml'), positionOf(FILES['answers/revenue.answer.tml']!, '    name: Retail', 12))), sorted(dsUses));
    assert.deepEqual(client.failures, []);
  });
});

test('definition: the model TML declaring the column, else a tsq: document the server serves; highlights in one file', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const a = FILES['queries/a.tsq']!;
    const def = (u: string, position: { line: number; character: number }) => client.connection.sendRequest<Location[] | null>('textDocument/definition', { textDocument: { uri: u }, position });
    assert.deepEqual(await def(uri('queries/a.tsq'), positionOf(a, 'sum [revenue]', 6)), [declaration(uri, 'revenue')]);
    const marketing = await def(uri('queries/a.tsq'), positionOf(a, '[campaign]', 2));
    assert.equal(marketing?.length, 1);
    assert.match(marketing![0]!.uri, /^tsq:/);
    const doc = await client.connection.sendRequest<{ text: string; languageId: string } | null>('tsq/virtualDocument', { uri: marketing![0]!.uri });
    assert.ok(doc?.text.includes('Marketing') && doc.text.includes('VARCHAR') && doc.text.includes('ATTRIBUTE'), doc?.text);
    assert.match(doc!.text, /References in the workspace\*\*: 2/); // a.tsq and viz 2
    const highlights = await client.connection.sendRequest<DocumentHighlight[] | null>('textDocument/documentHighlight', { textDocument: { uri: uri('queries/a.tsq') }, position: positionOf(a, '[region]', 1) });
    assert.deepEqual((highlights ?? []).map((h) => h.range), uses(a, 'region', 0, RETAIL.length));
  });
});

test('nonsense positions (whitespace, a comment, a keyword, past the end) answer empty, never an error', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const a = FILES['queries/a.tsq']!;
    const u = uri('queries/a.tsq');
    const lines = a.split('\n');
    const positions = [
      positionOf(a, '] [region]', 1), // whitespace
      positionOf(a, 'in a comment', 1),
      positionOf(a, 'sum [', 1), // a keyword
      positionOf(a, 'sort by', 2),
      { line: lines.length + 5, character: 0 },
      { line: 1, character: 500 },
    ];
    for (const position of positions) {
      const p = { textDocument: { uri: u }, position };
      assert.deepEqual(await client.connection.sendRequest('textDocument/definition', p), [], JSON.stringify(position));
      assert.deepEqual(await client.connection.sendRequest('textDocument/references', { ...p, context: { includeDeclaration: true } }), []);
      assert.deepEqual(await client.connection.sendRequest('textDocument/documentHighlight', p), []);
      assert.equal(await client.connection.sendRequest('textDocument/prepareRename', p), null);
      assert.equal(await client.connection.sendRequest('textDocument/rename', { ...p, newName: 'x' }), null);
    }
    assert.deepEqual(client.failures, []);
  });
});

test('rename: one WorkspaceEdit over every use, inside TML strings with their quoting, the YAML still valid; a clash is refused', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const a = FILES['queries/a.tsq']!;
    const position = positionOf(a, '[revenue]', 1);
    const prepared = await client.connection.sendRequest<{ range: Range; placeholder: string }>('textDocument/prepareRename', { textDocument: { uri: uri('queries/a.tsq') }, position });
    assert.deepEqual(prepared, { range: uses(a, 'revenue')[0], placeholder: 'revenue' });
    const newName = `it's "net" revenue`;
    const edit = await client.connection.sendRequest<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: uri('queries/a.tsq') }, position, newName });
    const changes = edit.changes ?? {};
    const byFile = new Map<string, Range[]>();
    for (const l of [...retailRevenue(uri), declaration(uri, 'revenue')]) byFile.set(l.uri, [...(byFile.get(l.uri) ?? []), l.range]);
    for (const ranges of byFile.values()) ranges.sort((x, y) => x.start.line - y.start.line || x.start.character - y.start.character);
    assert.deepEqual(Object.keys(changes).sort(), [...byFile.keys()].sort());
    for (const [f, text] of Object.entries(FILES)) {
      const edits = changes[uri(f)];
      if (!edits) continue;
      assert.deepEqual(edits.map((e) => e.range).sort((x, y) => x.start.line - y.start.line || x.start.character - y.start.character), byFile.get(uri(f)));
      const after = applyEdits(text, edits);
      if (f.endsWith('.tsq')) {
        assert.equal(after, applyEdits(text, byFile.get(uri(f))!.map((range) => ({ range, newText: newName }))));
        continue;
      }
      // the YAML reads back the new name where the old one was, and nothing else changed
      const before = parse(text) as Record<string, unknown>;
      const read = parse(after) as Record<string, unknown>;
      const renamed = JSON.parse(JSON.stringify(before).replace(/\[(Retail Sales::)?revenue\]/g, (_, p: string | undefined) => `[${p ?? ''}${newName.replace(/"/g, '\\"')}]`)) as Record<string, unknown>;
      if (f.endsWith('.model.tml')) (renamed.model as { columns: { name: string }[] }).columns[0]!.name = newName;
      type Board = { liveboard: { visualizations: { answer: { search_query: string } }[] } };
      if (f.endsWith('.liveboard.tml')) (renamed as Board).liveboard.visualizations[1]!.answer.search_query = (before as Board).liveboard.visualizations[1]!.answer.search_query; // Marketing's
      assert.deepEqual(read, renamed, f);
    }
    for (const clash of ['cost', 'Region']) {
      await assert.rejects(client.connection.sendRequest('textDocument/rename', { textDocument: { uri: uri('queries/a.tsq') }, position, newName: clash }), /already has a column/);
    }
    // a column Marketing has is no clash for Retail Sales
    assert.ok(await client.connection.sendRequest('textDocument/rename', { textDocument: { uri: uri('queries/a.tsq') }, position, newName: 'campaign' }));
    await assert.rejects(client.connection.sendRequest('textDocument/rename', { textDocument: { uri: uri('queries/a.tsq') }, position, newName: 'a]b' }), /cannot be a column name/);
  });
});

test('the index follows changes: an edit of an open document, a file created and deleted on disk', async () => {
  await withWorkspace(async ({ client, dir, uri }) => {
    const b = FILES['queries/b.tsq']!;
    const refs = async () => sorted(await client.connection.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: uri('queries/b.tsq') }, position: positionOf(b, '[revenue]', 1), context: { includeDeclaration: false } }));
    const expected = retailRevenue(uri);
    assert.deepEqual(await refs(), sorted(expected));
    // a.tsq opened and its first query removed: two uses fewer
    const a = FILES['queries/a.tsq']!;
    await client.didOpen(uri('queries/a.tsq'), a);
    const cut = a.replace('[revenue] [region] -- [revenue] in a comment\n', '');
    await client.didChange(uri('queries/a.tsq'), cut, 2);
    const aUses = uses(cut, 'revenue', 0, cut.indexOf("@datasource 'Marketing'")).map((range) => ({ uri: uri('queries/a.tsq'), range }));
    assert.deepEqual(await refs(), sorted([...expected.filter((l) => l.uri !== uri('queries/a.tsq')), ...aUses]));
    // a new file on disk
    const c = `@datasource 'Retail Sales'\n[revenue]\n`;
    writeFileSync(join(dir, 'queries', 'c.tsq'), c);
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('queries/c.tsq'), type: 1 }] });
    const withC = sorted([...expected.filter((l) => l.uri !== uri('queries/a.tsq')), ...aUses, ...uses(c, 'revenue').map((range) => ({ uri: uri('queries/c.tsq'), range }))]);
    assert.deepEqual(await refs(), withC);
    rmSync(join(dir, 'queries', 'c.tsq'));
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('queries/c.tsq'), type: 3 }] });
    assert.deepEqual(await refs(), sorted([...expected.filter((l) => l.uri !== uri('queries/a.tsq')), ...aUses]));
    // a folder deleted: every file under it goes (the open a.tsq stays, from its text)
    rmSync(join(dir, 'answers'), { recursive: true });
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('answers'), type: 3 }] });
    assert.deepEqual(await refs(), sorted([...expected.filter((l) => l.uri !== uri('queries/a.tsq') && !l.uri.includes('/answers/')), ...aUses]));
    // an untitled .tsq document: its own references, and its Run lenses
    const untitled = 'untitled:Untitled-1';
    const text = "@datasource 'Retail Sales'\n[cost] [region]\n\n[cost]\n";
    await client.connection.sendNotification('textDocument/didOpen', { textDocument: { uri: untitled, languageId: 'tsq', version: 1, text } });
    const costs = await client.connection.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: untitled }, position: positionOf(text, '[cost]', 1), context: { includeDeclaration: false } });
    assert.deepEqual(sorted(costs), sorted([...uses(text, 'cost').map((range) => ({ uri: untitled, range })), ...uses(FILES['queries/by-guid.tsq']!, 'cost').map((range) => ({ uri: uri('queries/by-guid.tsq'), range }))]));
    const lenses = await client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: untitled } });
    assert.deepEqual(lenses.map((l) => l.range.start.line), [1, 3]);
  });
});

test('code lenses: Run above each query with the server command, references counts on the model; workspace symbols', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const a = FILES['queries/a.tsq']!;
    await client.didOpen(uri('queries/a.tsq'), a);
    const lenses = await client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: uri('queries/a.tsq') } });
    const queryLines = a.split('\n').flatMap((l, i) => (l.trim() && !l.startsWith('@') ? [i] : []));
    assert.deepEqual(lenses.map((l) => [l.range.start.line, l.command?.command, l.command?.arguments]), queryLines.map((line, index) => [line, 'tsq.server.runQuery', [{ uri: uri('queries/a.tsq'), index }]]));
    // without a connection, the server's run answers an error saying so
    await assert.rejects(client.connection.sendRequest('workspace/executeCommand', { command: 'tsq.server.runQuery', arguments: [{ uri: uri('queries/a.tsq'), index: 0 }] }), /needs a connection/);
    const model = FILES['models/retail.model.tml']!;
    await client.didOpen(uri('models/retail.model.tml'), model);
    const counts = await client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: uri('models/retail.model.tml') } });
    const countOf = (name: string) => counts.find((l) => l.range.start.line === declaration(uri, name).range.start.line)?.command?.title;
    assert.equal(countOf('revenue'), `${retailRevenue(uri).length} references`);
    assert.equal(countOf('region'), `${retailUses(uri, 'region').length} references`);
    assert.equal(countOf('cost'), '1 reference');
    const symbols = await client.connection.sendRequest<SymbolInformation[]>('workspace/symbol', { query: '' });
    assert.deepEqual(symbols.map((s) => [s.name, s.containerName]).sort(), [['Marketing', 'data source'], ['Overview', 'liveboard'], ['Retail Sales', 'data source'], ['Revenue by region', 'answer']].sort());
    // each at its name: a data source at its declaration, else at one of its references
    const nameIn = (f: string, before: string, name: string) => nameAfter(uri, f, before, name);
    const at = (name: string) => symbols.find((s) => s.name === name)?.location;
    assert.deepEqual(at('Retail Sales'), nameIn('models/retail.model.tml', 'model:\n  name: ', 'Retail Sales'));
    assert.deepEqual(at('Revenue by region'), nameIn('answers/revenue.answer.tml', 'answer:\n  name: ', 'Revenue by region'));
    assert.deepEqual(at('Overview'), nameIn('boards/overview.liveboard.tml', 'liveboard:\n  name: ', 'Overview'));
    const marketing = [nameIn('queries/a.tsq', "@datasource '", 'Marketing'), nameIn('boards/overview.liveboard.tml', '        name: ', 'Marketing')];
    assert.ok(marketing.some((l) => JSON.stringify(l) === JSON.stringify(at('Marketing'))), JSON.stringify(at('Marketing')));
    const filtered = await client.connection.sendRequest<SymbolInformation[]>('workspace/symbol', { query: 'ovw' });
    assert.deepEqual(filtered.map((s) => s.name), ['Overview']);
  });
});

test('a query with no @datasource reads tsq.defaultDataSource: its columns are that data source\'s', async () => {
  const bare = '[revenue] [region]\n';
  await withWorkspace(async ({ client, uri }) => {
    const refs = await client.connection.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: uri('queries/bare.tsq') }, position: positionOf(bare, 'revenue'), context: { includeDeclaration: false } });
    assert.deepEqual(sorted(refs), sorted([...retailRevenue(uri), ...uses(bare, 'revenue').map((range) => ({ uri: uri('queries/bare.tsq'), range }))]));
  }, { 'queries/bare.tsq': bare }, { defaultDataSource: 'Retail Sales' });
});

test('the index follows the workspace folders: an added folder is indexed, a removed one\'s files go', async () => {
  const { client, dir, uri } = await start();
  const other = mkdtempSync(join(tmpdir(), 'tsq-nav-other-'));
  const d = `@datasource 'Retail Sales'\n[revenue] [region]\n\n[revenue]\n`;
  writeFileSync(join(other, 'd.tsq'), d);
  const dUri = pathToFileURL(join(other, 'd.tsq')).href;
  const dUses = uses(d, 'revenue').map((range) => ({ uri: dUri, range }));
  const folders = (list: string[]) => list.map((f, i) => ({ uri: pathToFileURL(f).href, name: `f${i}` }));
  const change = (added: string[], removed: string[]) => client.connection.sendNotification('workspace/didChangeWorkspaceFolders', { event: { added: folders(added), removed: folders(removed) } });
  try {
    const refs = async () => sorted(await client.connection.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: dUri }, position: positionOf(d, '[revenue]', 1), context: { includeDeclaration: false } }));
    const b = FILES['queries/b.tsq']!;
    const fromB = async () => sorted(await client.connection.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: uri('queries/b.tsq') }, position: positionOf(b, '[revenue]', 1), context: { includeDeclaration: false } }));
    assert.deepEqual(await fromB(), sorted(retailRevenue(uri)), 'before: the first folder only');
    await change([other], []);
    assert.deepEqual(await fromB(), sorted([...retailRevenue(uri), ...dUses]), 'the added folder is indexed');
    await change([], [dir]);
    assert.deepEqual(await refs(), sorted(dUses), 'the removed folder\'s files are gone');
    await change([dir], [other]);
    assert.deepEqual(await fromB(), sorted(retailRevenue(uri)), 'added back, and the other removed');
  } finally {
    await client.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }
});

test('tsq/uses: the column at a position, its data source as written, and its workspace uses; null off a column', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const b = FILES['queries/b.tsq']!;
    const answer = await client.connection.sendRequest<{ column: string; dataSource: string; locations: Location[] } | null>('tsq/uses', { textDocument: { uri: uri('queries/b.tsq') }, position: positionOf(b, '[revenue]', 1) });
    assert.ok(answer);
    assert.equal(answer.column, 'revenue');
    assert.equal(answer.dataSource, 'Retail Sales');
    assert.deepEqual(sorted(answer.locations), sorted(retailRevenue(uri)));
    assert.equal(await client.connection.sendRequest('tsq/uses', { textDocument: { uri: uri('queries/b.tsq') }, position: positionOf(b, 'top') }), null);
    assert.deepEqual(client.failures, []);
  });
});
