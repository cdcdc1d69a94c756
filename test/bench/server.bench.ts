/**
 * Round trips through the built language server over stdio (`node dist/server.js --stdio`), measured from
 * a real LSP client (test/protocol/lspClient.ts) answering `tsq/*` from the vega-datasets fixtures:
 * start-up, completion and pull diagnostics of small and ~1 MB documents, and completion on a data source
 * of 10,000 columns next to a trivial round trip. What each figure measures and its target: `run` and
 * `wideCompletion`.
 * Run: `npm run bench -- server`.
 */
import { performance } from 'node:perf_hooks';
import { datasetValues, flightsCatalog, makeCatalogProvider, moviesCatalog, wideCatalog } from '../fixtures/catalogs';
import { LspClient } from '../protocol/lspClient';

function stats(samples: number[]): { median: number; p95: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2));
  return { median: at(0.5), p95: at(0.95), n: s.length };
}

function percentiles(samples: number[]): { p50: number; p95: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(3));
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), n: s.length };
}

/** Columns of the wide data source. */
const WIDE_COLUMNS = 10_000;

/** Interleaved (completion, trivial request) pairs measured; a p99 of 1,000 samples is the 10th slowest. */
const WIDE_SAMPLES = 1000;
/** Pairs sent first and not measured: the catalog cache, the column templates, JIT on both ends. */
const WIDE_WARM_UP = 100;

/**
 * Completion on a data source of WIDE_COLUMNS columns, interleaved with a hover on a comment (the anchor).
 * `wideCompletionMs`: completion on a data source of `wideColumns` columns (test/fixtures/catalogs.ts
 * `wideCatalog`), catalog cached, in the columns of a 200-query document: right after the first column's
 * `[`, and 0 to 3 characters into the second's name, so that what is typed is filtered (400 positions;
 * p50/p95/p99 ms over WIDE_SAMPLES requests, from the request sent to its answer read and parsed by the
 * client), with the largest list's item count and JSON size. Its anchor, `trivialRoundTripMs`, is
 * a hover on a comment of the same document on the same connection, one of each pair, the first of the
 * pair alternating: what a round trip costs on this machine at that moment, with no work behind it.
 * Target (issue 31, test/bench/report.ts `TARGETS.wideCompletionVsTrivialP99`): the completion's p99
 * ≤ 1.2× the anchor's p99 of the same run.
 */
async function wideCompletion(): Promise<Record<string, unknown>> {
  const wide = wideCatalog(WIDE_COLUMNS);
  const { client } = await LspClient.start({ catalog: makeCatalogProvider([wide], {}), itemDefaults: true });
  try {
    const names = wide.columns.map((c) => c.name);
    const lines = ["@datasource 'Wide'", '-- a comment to hover on'];
    for (let q = 0; q < 200; q++) lines.push(`[${names[(q * 7919) % names.length]}] [${names[(q * 104729) % names.length]}] top 5;`);
    const uri = 'file:///bench-wide.tsq';
    await client.didOpen(uri, lines.join('\n') + '\n');
    const positions: { line: number; character: number }[] = [];
    for (let q = 0; q < 200; q++) {
      const line = lines[q + 2]!;
      // right after the first column's [, and 0 to 3 characters into the second's name (what is typed is filtered)
      positions.push({ line: q + 2, character: 1 }, { line: q + 2, character: line.indexOf('] [') + 3 + (q % 4) });
    }
    const comment = { line: 1, character: 5 };
    let items = 0;
    let bytes = 0;
    for (let i = 0; i < WIDE_WARM_UP; i++) {
      const list = await client.completion(uri, positions[i % positions.length]!);
      items = Math.max(items, list?.items.length ?? 0);
      bytes = Math.max(bytes, Buffer.byteLength(JSON.stringify(list)));
      await client.hover(uri, comment);
    }
    const completion: number[] = [];
    const trivial: number[] = [];
    for (let i = 0; i < WIDE_SAMPLES; i++) {
      const at = positions[i % positions.length]!;
      if (i % 2) {
        trivial.push(await time(() => client.hover(uri, comment)));
        completion.push(await time(() => client.completion(uri, at)));
      } else {
        completion.push(await time(() => client.completion(uri, at)));
        trivial.push(await time(() => client.hover(uri, comment)));
      }
    }
    return { wideColumns: WIDE_COLUMNS, wideCompletionMs: percentiles(completion), trivialRoundTripMs: percentiles(trivial), wideListItems: items, wideListBytes: bytes };
  } finally {
    await client.stop();
  }
}

async function time<T>(f: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/**
 * Runs the benchmark; figures in milliseconds:
 * - start: spawn to `initialize` answered (ms);
 * - completion after `[` and pull diagnostics of a 20-query document, catalog cached (median/p95 ms);
 * - pull diagnostics of a ~1 MB document (ms), and its completion at the end (ms);
 * - the wide completion and its anchor (`wideCompletion`).
 */
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
    await client.stop();
    return {
      startMs: Number(startMs.toFixed(1)),
      completionMs: stats(completion),
      pullDiagnosticsMs: stats(diagnostics),
      bigDocumentBytes: big.length,
      bigPullDiagnosticsMs: Number(bigDiagnosticsMs.toFixed(1)),
      bigCompletionMs: Number(bigCompletionMs.toFixed(1)),
      columnsRequests: client.requestsOf('tsq/columns').length,
      ...(await wideCompletion()),
    };
  } finally {
    await client.stop(); // a no-op when already stopped
  }
}
