/**
 * Round trips through the built language server over stdio (`node dist/server.js --stdio`), measured from
 * a real LSP client (test/protocol/lspClient.ts) answering `tsq/*` from the vega-datasets fixtures:
 * - start: spawn to `initialize` answered (ms);
 * - completion after `[` and pull diagnostics of a 20-query document, catalog cached (median/p95 ms);
 * - pull diagnostics of a ~1 MB document (ms), and its completion at the end (ms).
 * Run: `npm run bench -- server`.
 */
import { performance } from 'node:perf_hooks';
import { datasetValues, flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';
import { LspClient } from '../protocol/lspClient';

function stats(samples: number[]): { median: number; p95: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2));
  return { median: at(0.5), p95: at(0.95), n: s.length };
}

async function time<T>(f: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/** Runs the benchmark; figures in milliseconds. */
export async function run(): Promise<Record<string, unknown>> {
  const catalog = makeCatalogProvider([flightsCatalog(), moviesCatalog()], datasetValues());
  const t0 = performance.now();
  const { client } = await LspClient.start({ catalog, pullDiagnostics: true });
  const startMs = performance.now() - t0;
  try {
    const query = "[origin] [delay] top 10 sort by [delay] descending [origin] = 'SEA', 'PDX';\n";
    const small = "@datasource 'Flights'\n" + query.repeat(20) + '[';
    const uri = 'file:///bench-small.tsq';
    await client.didOpen(uri, small);
    const end = { line: 21, character: 1 };
    await client.completion(uri, end); // warm the catalog cache
    const completion: number[] = [];
    const diagnostics: number[] = [];
    for (let i = 0; i < 200; i++) {
      await client.didChange(uri, small + (i % 2 ? '' : ' '), i + 2);
      completion.push(await time(() => client.completion(uri, end)));
      diagnostics.push(await time(() => client.pullDiagnostics(uri)));
    }
    const bigUri = 'file:///bench-big.tsq';
    const big = "@datasource 'Flights'\n" + query.repeat(Math.ceil(1_000_000 / query.length)) + '[';
    await client.didOpen(bigUri, big);
    const bigLines = big.split('\n');
    const bigDiagnosticsMs = await time(() => client.pullDiagnostics(bigUri));
    const bigCompletionMs = await time(() => client.completion(bigUri, { line: bigLines.length - 1, character: 1 }));
    return {
      startMs: Number(startMs.toFixed(1)),
      completionMs: stats(completion),
      pullDiagnosticsMs: stats(diagnostics),
      bigDocumentBytes: big.length,
      bigPullDiagnosticsMs: Number(bigDiagnosticsMs.toFixed(1)),
      bigCompletionMs: Number(bigCompletionMs.toFixed(1)),
      columnsRequests: client.requestsOf('tsq/columns').length,
    };
  } finally {
    await client.stop();
  }
}
