/**
 * Navigation asked from inside TML files, over stdio against the built server (the workspace of
 * navigationWorkspace.ts): from a column in an Answer's or a Liveboard visualization's `search_query`,
 * in the `[column]`, `[path::column]` and token form `[column].value`, definition, references (with and
 * without the declaration), highlights, prepareRename, rename and `tsq/uses` answer exactly the
 * locations and edits computed from the texts, never Marketing's column of the same name; a rename onto
 * a column the catalog gives the data source is refused; nonsense positions of TML files (whitespace, a
 * YAML comment, a key, a keyword or value of the search, past the end) answer empty, never an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentHighlight, Location, Position, WorkspaceEdit } from 'vscode-languageserver-types';
import { virtualUri } from '../../common/src/languageService/navigation';
import { positionAt, positionOf } from './lspClient';
import { applyEdits, byUri, declaration, FILES, marketingUses, nameAfter, retailUses, sorted, uses, withWorkspace } from './navigationWorkspace';

const ANSWER = 'answers/revenue.answer.tml';
const BOARD = 'boards/overview.liveboard.tml';
const answer = FILES[ANSWER]!;
const board = FILES[BOARD]!;

/** The position `delta` characters into the `n`-th (1-based) occurrence of `needle` in `text`. */
function nth(text: string, needle: string, n: number, delta = 0): Position {
  let at = -1;
  for (let i = 0; i < n; i++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`${JSON.stringify(needle)} is not ${n} times in the text`);
  return positionAt(text, at + delta);
}

test('from a TML string, in every form: references with and without the declaration, definition, highlights, tsq/uses', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const refs = (f: string, position: Position, includeDeclaration: boolean) => client.connection.sendRequest<Location[] | null>('textDocument/references', { textDocument: { uri: uri(f) }, position, context: { includeDeclaration } });
    const region = retailUses(uri, 'region');
    assert.equal(region.length, 8, JSON.stringify(region)); // a.tsq 3, b.tsq 1, the answer 2, viz 1 2; the model's declaration apart
    assert.ok(region.some((l) => l.uri === uri(ANSWER)) && region.some((l) => l.uri === uri(BOARD)));
    // [region].west of the answer (token form), [region] and [region].east of viz 1 (single-quoted)
    const from: [string, Position, string][] = [
      [ANSWER, nth(answer, '[region].west', 1, 3), 'region'],
      [BOARD, nth(board, "'[region]", 1, 2), 'region'],
      [BOARD, nth(board, '[region].east', 1, 1), 'region'],
      [ANSWER, nth(answer, 'Sales::revenue', 1, 9), 'revenue'], // a table path, at the name's end
      [BOARD, nth(board, 'sum [revenue]', 1, 5), 'revenue'],
    ];
    for (const [f, position, column] of from) {
      const label = `${column} from ${f}:${position.line}:${position.character}`;
      assert.deepEqual(sorted(await refs(f, position, false)), sorted(retailUses(uri, column)), label);
      assert.deepEqual(sorted(await refs(f, position, true)), sorted([...retailUses(uri, column), declaration(uri, column)]), label);
      const def = await client.connection.sendRequest<Location[] | null>('textDocument/definition', { textDocument: { uri: uri(f) }, position });
      assert.deepEqual(def, [declaration(uri, column)], label);
      const highlights = await client.connection.sendRequest<DocumentHighlight[] | null>('textDocument/documentHighlight', { textDocument: { uri: uri(f) }, position });
      assert.deepEqual((highlights ?? []).map((h) => h.range), byUri(retailUses(uri, column)).get(uri(f)), label);
      const used = await client.connection.sendRequest<{ column: string; dataSource: string; locations: Location[] } | null>('tsq/uses', { textDocument: { uri: uri(f) }, position });
      assert.deepEqual(used && { ...used, locations: sorted(used.locations) }, { column, dataSource: 'Retail Sales', locations: sorted(retailUses(uri, column)) }, label);
    }
    // Marketing's [region].north of viz 2: its own use only, and no file declares it
    const north = nth(board, '[region].north', 1, 1);
    const marketing = marketingUses(uri, 'region');
    assert.deepEqual(sorted(marketing), sorted(uses(board, 'region', board.indexOf('Viz_2')).map((range) => ({ uri: uri(BOARD), range }))));
    assert.deepEqual(sorted(await refs(BOARD, north, true)), sorted(marketing));
    assert.deepEqual(await client.connection.sendRequest('textDocument/definition', { textDocument: { uri: uri(BOARD) }, position: north }), [{ uri: virtualUri('Marketing', 'region'), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }]);
    const highlights = await client.connection.sendRequest<DocumentHighlight[]>('textDocument/documentHighlight', { textDocument: { uri: uri(BOARD) }, position: north });
    assert.deepEqual(highlights.map((h) => h.range), marketing.map((l) => l.range));
    // a data source's name in a TML's tables: the model's declaration
    const table = nth(board, 'name: Retail Sales', 1, 'name: '.length + 2);
    assert.deepEqual(await client.connection.sendRequest('textDocument/definition', { textDocument: { uri: uri(BOARD) }, position: table }), [nameAfter(uri, 'models/retail.model.tml', 'model:\n  name: ', 'Retail Sales')]);
    assert.deepEqual(client.failures, []);
  });
});

test('rename from a Liveboard TML string: every use of Retail Sales\' region and its declaration, Marketing\'s untouched; a clash with the catalog refused', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const position = nth(board, '[region].east', 1, 3);
    const prepared = await client.connection.sendRequest('textDocument/prepareRename', { textDocument: { uri: uri(BOARD) }, position });
    assert.deepEqual(prepared, { range: uses(board, 'region')[1], placeholder: 'region' });
    const edit = await client.connection.sendRequest<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: uri(BOARD) }, position, newName: 'area' });
    const expected = byUri([...retailUses(uri, 'region'), declaration(uri, 'region')]);
    const changes = edit.changes ?? {};
    assert.deepEqual(Object.keys(changes).sort(), [...expected.keys()].sort());
    for (const [f, text] of Object.entries(FILES)) {
      const ranges = expected.get(uri(f));
      if (!ranges) continue;
      // a plain name needs no quoting: the text with exactly those ranges replaced
      assert.equal(applyEdits(text, changes[uri(f)]!), applyEdits(text, ranges.map((range) => ({ range, newText: 'area' }))), f);
    }
    assert.match(applyEdits(board, changes[uri(BOARD)]!), /'\[area\] sum \[revenue\] \[area\]\.east'[\s\S]*"\[campaign\] \[revenue\] \[region\]\.north"/);
    // Marketing's revenue onto its catalog column region (no file declares Marketing): refused
    const marketing = nth(board, '[revenue] [region].north', 1, 1);
    await assert.rejects(client.connection.sendRequest('textDocument/rename', { textDocument: { uri: uri(BOARD) }, position: marketing, newName: 'Region' }), /already has a column/);
    const ok = await client.connection.sendRequest<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: uri(BOARD) }, position: marketing, newName: 'cost' });
    assert.deepEqual(sorted(Object.entries(ok.changes ?? {}).flatMap(([u, edits]) => edits.map((e) => ({ uri: u, range: e.range })))), sorted(marketingUses(uri, 'revenue')));
  });
});

test('nonsense positions of TML files (whitespace, a YAML comment, a key, a keyword, a value, past the end) answer empty, never an error', async () => {
  await withWorkspace(async ({ client, uri }) => {
    const positions: [string, Position][] = [
      [ANSWER, nth(answer, '] [region]', 1, 1)], // whitespace inside the search
      [ANSWER, nth(answer, '  search_query', 1, 0)], // indentation
      [ANSWER, nth(answer, '[revenue] by', 1, 3)], // a YAML comment naming a column
      [ANSWER, nth(answer, 'search_query:', 1, 3)], // a key
      [ANSWER, nth(answer, 'TABLE_MODE', 1, 2)], // another member's value
      [ANSWER, nth(answer, '> 5', 1, 0)], // an operator
      [ANSWER, nth(answer, '].west', 1, 3)], // the value of the token form
      [ANSWER, nth(answer, 'Revenue by region', 1, 2)], // the answer's name
      [BOARD, nth(board, ' sum ', 1, 2)], // a keyword
      [BOARD, nth(board, '].east', 1, 2)],
      [BOARD, nth(board, 'Viz_1', 1, 1)],
      [BOARD, { line: board.split('\n').length + 3, character: 0 }], // past the end
      [BOARD, { line: 0, character: 400 }], // past the end of a line
      ['models/retail.model.tml', nth(FILES['models/retail.model.tml']!, 'MEASURE', 1, 1)],
    ];
    for (const [f, position] of positions) {
      const p = { textDocument: { uri: uri(f) }, position };
      const label = `${f}:${position.line}:${position.character}`;
      assert.deepEqual(await client.connection.sendRequest('textDocument/definition', p), [], label);
      assert.deepEqual(await client.connection.sendRequest('textDocument/references', { ...p, context: { includeDeclaration: true } }), [], label);
      assert.deepEqual(await client.connection.sendRequest('textDocument/documentHighlight', p), [], label);
      assert.equal(await client.connection.sendRequest('textDocument/prepareRename', p), null, label);
      assert.equal(await client.connection.sendRequest('textDocument/rename', { ...p, newName: 'x' }), null, label);
      assert.equal(await client.connection.sendRequest('tsq/uses', p), null, label);
    }
    // the same in a .tsq file, for tsq/uses too; and a value of the token form there
    const a = FILES['queries/a.tsq']!;
    for (const position of [positionOf(a, '].west', 3), positionOf(a, 'in a comment', 1), positionOf(a, 'sort by', 2), { line: 99, character: 0 }]) {
      const p = { textDocument: { uri: uri('queries/a.tsq') }, position };
      assert.equal(await client.connection.sendRequest('tsq/uses', p), null, JSON.stringify(position));
      assert.deepEqual(await client.connection.sendRequest('textDocument/references', { ...p, context: { includeDeclaration: false } }), [], JSON.stringify(position));
    }
    assert.deepEqual(client.failures, []);
  });
});
