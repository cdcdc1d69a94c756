/**
 * Bounded parsing in the built language server (dist/server.js over stdio, as `tsq lsp` runs it;
 * SECURITY.md "Bounded parsing"): an Answer TML of 30,000 keys gets one `tml.tooLarge` diagnostic and
 * the next hover on another file answers about as fast as it did before the file was opened (a ratio
 * in the same run); a `.tsq` of 50,000 nested subsearches gets its diagnostics (`tsq.nestingTooDeep`)
 * and the server answers every feature on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';
import { LspClient, positionOf } from './lspClient';

const TSQ = "@datasource 'Flights'\n[origin] [delay] top 10\n";

/** Milliseconds of one hover on `delay` of the `.tsq` file. */
async function hoverTime(client: LspClient, uri: string): Promise<number> {
  const t = performance.now();
  const h = await client.hover(uri, positionOf(TSQ, 'delay', 2));
  assert.ok(h, 'a hover on [delay]');
  return performance.now() - t;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('an Answer TML of 30,000 keys: one tml.tooLarge diagnostic, and the next hover on another file is not held up', async () => {
  const { client } = await LspClient.start({ catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const tsqUri = 'file:///w/delays.tsq';
    await client.didOpen(tsqUri, TSQ);
    await client.publishedDiagnostics(tsqUri);
    const alone: number[] = [];
    for (let k = 0; k < 5; k++) alone.push(await hoverTime(client, tsqUri));
    const big = `answer:\n  name: big\n  tables: [{id: Flights, name: Flights}]\n  search_query: '[origin]'\n${Array.from({ length: 30_000 }, (_, i) => `  k${i}: v${i}\n`).join('')}`;
    const beside: number[] = [];
    const published: Awaited<ReturnType<LspClient['publishedDiagnostics']>>[] = [];
    const uri = 'file:///w/big.answer.tml';
    for (let v = 1; v <= 3; v++) {
      if (v === 1) await client.didOpen(uri, big);
      else await client.didChange(uri, big + `# edit ${v}\n`, v);
      beside.push(await hoverTime(client, tsqUri));
      published.push(await client.publishedDiagnostics(uri, v, 60_000));
    }
    const ratio = median(beside) / Math.max(median(alone), 1);
    // before the bounded reader the hover waited for the quadratic key check: seconds, thousands of times a hover
    assert.ok(ratio < 50, `hover beside the file: ${median(beside).toFixed(1)} ms, alone: ${median(alone).toFixed(1)} ms (ratio ${ratio.toFixed(1)})`);
    for (const diagnostics of published) {
      assert.deepEqual(diagnostics.map((d) => d.code), ['tml.tooLarge'], JSON.stringify(diagnostics));
      assert.match(JSON.stringify(diagnostics[0]!.message), /more than 20,000 keys and list items/);
    }
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});

test('50,000 nested subsearches: diagnostics for the file, and every feature answers on it', async () => {
  const { client } = await LspClient.start({ catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const n = 50_000;
    const text = `@datasource 'Flights'\n${'[origin] in ('.repeat(n)}[origin]${')'.repeat(n)}\n`;
    const uri = 'file:///w/nested.tsq';
    await client.didOpen(uri, text);
    const diagnostics = await client.publishedDiagnostics(uri, 1, 60_000);
    assert.ok(diagnostics.some((d) => d.code === 'tsq.nestingTooDeep'), JSON.stringify(diagnostics.slice(0, 5)));
    assert.ok(await client.hover(uri, positionOf(text, 'origin', 2)));
    assert.ok((await client.semanticTokens(uri))?.data.length);
    assert.ok(Array.isArray(await client.formatting(uri)));
    assert.ok(Array.isArray(await client.documentSymbols(uri)));
    assert.ok(client.alive, client.stderr);
    assert.doesNotMatch(client.stderr, /Maximum call stack/);
  } finally {
    await client.stop();
  }
});
