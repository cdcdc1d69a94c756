/**
 * `*.answer.tml` documents in the built language server (dist/server.js over IPC, driven by lspClient.ts
 * with the fixture catalog): a bad column of the embedded search_query is a diagnostic on its characters
 * inside the YAML string; completion inside the query offers the data source's columns; the .tsq-only
 * features answer nothing for the YAML document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';
import { LspClient, positionOf, rangeOf } from './lspClient';

const TML = `guid: 6f853b5f-c9be-57d2-8b22-c0c34d1ce706
answer:
  name: Delays
  tables:
  - id: Flights
    name: Flights
  search_query: "[origin] [dela] top 10"
  display_mode: TABLE_MODE
`;

test('an Answer TML: diagnostics and completion inside search_query, nothing from the .tsq-only features', async () => {
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const uri = 'file:///w/delays.answer.tml';
    await client.didOpen(uri, TML);
    const diagnostics = await client.pullDiagnostics(uri);
    const unknown = diagnostics.filter((d) => d.code === 'tsq.unknownColumn');
    assert.equal(unknown.length, 1, JSON.stringify(diagnostics));
    assert.deepEqual(unknown[0]!.range, rangeOf(TML, 'dela'));
    const list = await client.completion(uri, positionOf(TML, '[dela', 5));
    assert.ok(list?.items.some((i) => i.label === 'delay'), JSON.stringify(list?.items.map((i) => i.label)));
    const tokens = await client.semanticTokens(uri);
    assert.deepEqual(tokens?.data ?? [], []);
    assert.deepEqual((await client.documentSymbols(uri)) ?? [], []);
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});
