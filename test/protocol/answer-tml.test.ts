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

test('hover in an Answer TML: a column or keyword of search_query as in a .tsq file, at its place in the YAML; a known member shows its docs', async () => {
  const { client } = await LspClient.start({ catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const query = '[origin] [delay] top 10';
    const tsqUri = 'file:///w/delays.tsq';
    const tsq = `@datasource 'Flights'\n${query}\n`;
    await client.didOpen(tsqUri, tsq);
    // a double-quoted string with an escape before the columns, and a block scalar: positions go through both
    const quoted = `guid: 6f853b5f-c9be-57d2-8b22-c0c34d1ce706\nanswer:\n  name: Delays\n  tables:\n  - id: Flights\n    name: Flights\n  search_query: "[origin] \\u005Bdelay] top 10"\n  display_mode: TABLE_MODE\n  fancy: 1\n`;
    const block = `answer:\n  name: Delays\n  tables:\n  - name: Flights\n  search_query: |\n    [origin]\n    [delay] top 10\n`;
    for (const [name, text, delayAt] of [['quoted', quoted, positionOf(quoted, 'delay]', 2)], ['block', block, positionOf(block, 'delay', 2)]] as const) {
      const uri = `file:///w/${name}.answer.tml`;
      await client.didOpen(uri, text);
      for (const [inTsq, inTml, word] of [[positionOf(tsq, 'delay', 2), delayAt, 'delay'], [positionOf(tsq, 'origin', 1), positionOf(text, 'origin', 1), 'origin'], [positionOf(tsq, 'top', 1), positionOf(text, 'top', 1), 'top']] as const) {
        const expected = await client.hover(tsqUri, inTsq);
        const got = await client.hover(uri, inTml);
        assert.ok(expected && got, `${name}: a hover on ${word}`);
        assert.deepEqual(got.contents, expected.contents, `${name}: the hover of ${word} is that of the .tsq file`);
        if (expected.range && got.range) assert.equal(got.range.start.line, inTml.line, `${name}: the range of ${word} is on its line of the YAML`);
      }
      if (name === 'block') assert.deepEqual((await client.hover(uri, delayAt))?.range, rangeOf(text, '[delay]'), 'the range of the column token, on the YAML text');
    }
    const uri = 'file:///w/quoted.answer.tml';
    for (const [key, page] of [['guid', /docs\.thoughtspot\.com\/cloud\/latest\/tml\)/], ['search_query', /tml-answers/], ['display_mode', /CHART_MODE, TABLE_MODE/], ['tables', /tml-answers/]] as const) {
      const h = await client.hover(uri, positionOf(quoted, key, 1));
      assert.ok(h, `a hover on ${key}`);
      const value = (h.contents as { value: string }).value;
      assert.match(value, new RegExp(`\\*\\*(answer\\.)?${key}\\*\\*`));
      assert.match(value, page);
      assert.deepEqual(h.range, rangeOf(quoted, key));
    }
    assert.equal(await client.hover(uri, positionOf(quoted, 'fancy', 1)), null, 'an unknown member has no hover');
    assert.equal(await client.hover(uri, positionOf(quoted, 'Delays', 1)), null, 'a value outside search_query has none');
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});
