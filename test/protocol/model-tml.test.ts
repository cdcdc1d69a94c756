/**
 * `*.worksheet.tml` documents in the built language server (dist/server.js, driven by lspClient.ts with a
 * fixture catalog of the demo's flights and airports): a broken join and an unknown column source are
 * diagnostics on their lines; a wrong formula is one on its characters, with its quick fix; a member key
 * hovers with its docs; the .tsq-only features answer nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import { demoSeed } from '../../emulator/src/demo';
import { makeCatalogProvider } from '../fixtures/catalogs';
import { demoTableSources } from '../fixtures/demoSources';
import { LspClient, positionOf } from './lspClient';

const sources = demoTableSources();

test('a Worksheet TML: its joins and columns checked against the catalog, each diagnostic on its line; hover of a member', async () => {
  const { name, tables, joins, table_paths, formulas, columns } = demoSeed().models![0]!;
  const text = stringify({ worksheet: { name, tables, joins, table_paths, formulas, worksheet_columns: columns } }).replace('[airports::iata]', '[airports::latitude]').replace('flights_1::delay', 'flights_1::lateness');
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider(sources) });
  try {
    const uri = 'file:///w/Flights%20Model.worksheet.tml';
    await client.didOpen(uri, text);
    const diagnostics = await client.pullDiagnostics(uri);
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.range.start.line, d.message]),
      [
        [DiagnosticSeverity.Error, positionOf(text, '[airports::latitude]').line, 'join flights_origin: [flights::origin] is VARCHAR and [airports::latitude] is DOUBLE: joined columns must have compatible types.'],
        [DiagnosticSeverity.Error, positionOf(text, 'flights_1::lateness').line, 'column Delay: table flights has no column lateness.'],
      ],
    );
    const hover = await client.hover(uri, positionOf(text, 'table_paths:', 1));
    assert.match((hover?.contents as { value: string } | undefined)?.value ?? '', /worksheet\.table_paths[\s\S]*join_path[\s\S]*tml-worksheets/);
    assert.deepEqual((await client.semanticTokens(uri))?.data ?? [], []);
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});

test("a Worksheet TML's wrong formula over the protocol: the diagnostic on its characters, and its quick fix", async () => {
  const { name, tables, joins, table_paths, formulas, columns } = demoSeed().models![0]!;
  const text = stringify({ worksheet: { name, tables, joins, table_paths, formulas, worksheet_columns: columns } }).replace('count ( [Delay] )', 'count ( [Dealy] )');
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider(sources) });
  try {
    const uri = 'file:///w/Flights%20Model.worksheet.tml';
    await client.didOpen(uri, text);
    const diagnostics = await client.pullDiagnostics(uri);
    const at = positionOf(text, '[Dealy]');
    assert.deepEqual(diagnostics.map((d) => [d.code, d.range.start, d.range.end.character - d.range.start.character]), [['formula.unknownColumn', at, '[Dealy]'.length]]);
    assert.match(String(diagnostics[0]!.message), /formula Delayed Share .*\[Dealy\]/);
    const actions = await client.codeActions(uri, diagnostics[0]!.range, diagnostics);
    assert.deepEqual(actions?.filter((a) => a.isPreferred).map((a) => a.edit?.changes?.[uri]?.[0]?.newText), ['[Delay]']);
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});
