/**
 * `*.liveboard.tml` documents in the built language server (dist/server.js over IPC, driven by
 * lspClient.ts with the fixture catalog), routed as `*.answer.tml` ones: each visualization's
 * search_query is checked, completed and hovered against the data source of its own `tables`, at its
 * place inside the YAML; every member key of the Liveboard, of a visualization and of its answer hovers with its docs; an unknown top-level
 * member is a warning; the .tsq-only features answer nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import { flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';
import { liveboardTml } from '../fixtures/liveboard';
import { LspClient, positionOf, rangeOf } from './lspClient';

/** The fixture catalog's Liveboard TML (test/fixtures/liveboard.ts): the second query over two lines, `[dela]` unknown. */
const TML = liveboardTml({ movies: 'Movies', flights: 'Flights', flightsId: true, column: 'dela', block: true, extra: 'fancy: 1\n' });

test('a Liveboard TML: diagnostics, completion and hover inside each visualization\'s search_query, against its own data source', async () => {
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider([flightsCatalog(), moviesCatalog()]) });
  try {
    const uri = 'file:///w/board.liveboard.tml';
    await client.didOpen(uri, TML);
    const diagnostics = await client.pullDiagnostics(uri);
    const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
    assert.deepEqual(errors.map((d) => [d.code, d.range]), [['tsq.unknownColumn', rangeOf(TML, 'dela')]], JSON.stringify(diagnostics));
    const warnings = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Warning);
    assert.deepEqual(warnings.map((d) => [d.code, d.range]), [['tml.unknownMember', rangeOf(TML, 'fancy')]], JSON.stringify(diagnostics));

    const second = await client.completion(uri, positionOf(TML, '[dela', 5));
    const labels2 = second?.items.map((i) => i.label) ?? [];
    assert.ok(labels2.includes('delay') && !labels2.includes('Major Genre'), `the second visualization's columns: ${JSON.stringify(labels2)}`);
    const first = await client.completion(uri, positionOf(TML, '[Major', 1));
    const labels1 = first?.items.map((i) => i.label) ?? [];
    assert.ok(labels1.includes('Major Genre') && !labels1.includes('delay'), `the first visualization's columns: ${JSON.stringify(labels1)}`);
    assert.deepEqual((await client.completion(uri, positionOf(TML, 'Board', 2)))?.items ?? [], [], 'no completion outside a search_query');

    const tsqUri = 'file:///w/delays.tsq';
    const tsq = "@datasource 'Flights'\n[origin] [delay] top 10\n";
    await client.didOpen(tsqUri, tsq);
    const expected = await client.hover(tsqUri, positionOf(tsq, 'origin', 1));
    const got = await client.hover(uri, positionOf(TML, 'origin', 1));
    assert.ok(expected && got, 'a hover on origin');
    assert.deepEqual(got.contents, expected.contents, 'the hover of a column is that of the .tsq file');
    assert.deepEqual(got.range, rangeOf(TML, '[origin]'), 'its range is the token on the YAML text');
    const gross = await client.hover(uri, positionOf(TML, 'Worldwide', 1));
    assert.ok(gross, 'a hover on a column of the first visualization (Movies)');
    assert.equal(gross.range?.start.line, positionOf(TML, 'Worldwide').line);
    assert.equal(await client.hover(uri, positionOf(TML, 'Board', 1)), null, 'a value outside search_query has none');
    const key = await client.hover(uri, positionOf(TML, 'search_query: |', 1));
    assert.match((key?.contents as { value: string } | undefined)?.value ?? '', /\*\*liveboard\.visualizations\[1\]\.answer\.search_query\*\*[\s\S]*tml-answers/, 'a member of a visualization\'s answer shows its docs');
    assert.equal(await client.hover(uri, positionOf(TML, 'fancy', 1)), null, 'an unknown member has no hover');
    const hoverText = async (needle: string): Promise<string> => ((await client.hover(uri, positionOf(TML, needle, 1)))?.contents as { value: string } | undefined)?.value ?? '';
    assert.match(await hoverText('liveboard:'), /\*\*liveboard\*\*[\s\S]*visualizations[\s\S]*tml-liveboards/, 'the top-level liveboard shows its docs and page');
    assert.match(await hoverText('visualizations:'), /\*\*liveboard\.visualizations\*\*[\s\S]*headlines[\s\S]*tml-liveboards/, 'a member of liveboard shows its docs');
    assert.match(await hoverText('id: Viz_2'), /\*\*liveboard\.visualizations\[1\]\.id\*\*[\s\S]*visualization_id[\s\S]*tml-liveboards/, 'a member of a visualization shows its docs');
    assert.match(await hoverText('guid:'), /\*\*guid\*\*[\s\S]*Liveboard[\s\S]*tml-liveboards/, 'guid is the Liveboard\'s');

    assert.deepEqual((await client.semanticTokens(uri))?.data ?? [], []);
    assert.deepEqual((await client.documentSymbols(uri)) ?? [], []);
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});
