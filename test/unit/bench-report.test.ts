// The pure parts of scripts/bench.mjs (test/bench/report.ts): each summary figure beside its anchor
// with the ratio and the verdict, and the alternating order and the comparison of a `--compare` run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareOrder, compareSummaries, compareTable, summarize, table, type SummaryRow } from '../bench/report';

test('summary: parse is read as a ratio to JSON.parse of the same run, target 0.5×', () => {
  const [row] = summarize({ parse: { parseMBps: 30, anchorJsonParseMBps: 100 } });
  assert.deepEqual(row, { figure: 'parse 1 MB .tsq', unit: 'MB/s', value: 30, anchor: 'JSON.parse of 1 MB', anchorValue: 100, ratio: 0.3, target: '≥ 0.5× anchor', met: false });
  assert.equal(summarize({ parse: { parseMBps: 50, anchorJsonParseMBps: 100 } })[0]!.met, true);
  assert.equal(summarize({ parse: { parseMBps: 49, anchorJsonParseMBps: 100 } })[0]!.met, false, 'issue 38: 0.49× is short of the bar');
});

test('summary: an edit reparses in ≤ 1 ms median and the tree of 1 MB holds ≤ 4 MB, each beside the whole parse / the text', () => {
  const rows = summarize({ parse: { parseMBps: 30, anchorJsonParseMBps: 100, parseMsMedian: 40, reparseMsMedian: 0.5, retainedMB: 12, textMB: 2 } });
  const by = (f: string) => rows.find((r) => r.figure.startsWith(f))!;
  assert.deepEqual(by('reparse'), { figure: 'reparse after a 1-char edit in 1 MB .tsq, median', unit: 'ms', value: 0.5, anchor: 'whole parse', anchorValue: 40, ratio: 0.01, target: '≤ 1 ms', met: true });
  assert.equal(by('memory retained').ratio, 6);
  assert.equal(by('memory retained').met, false);
});

test('summary: load ≤ 1.5× read_csv; searchdata median overhead; wide completion p99 ≤ 1.2× a trivial round trip\'s', () => {
  const rows = summarize({
    emulator: { loads: { header: { bytes: 100 * 2 ** 20, loadMs: 1400, duckdbReadCsvMs: 1000 } } },
    searchdata: { queries: [1, 2, 3].map((k) => ({ directMs: k, overheadMs: k })) },
    server: { wideColumns: 10000, wideCompletionMs: { p99: 2.5 }, trivialRoundTripMs: { p99: 0.5 } },
  });
  const by = (f: string) => rows.find((r) => r.figure.startsWith(f))!;
  assert.equal(by('load 100 MB CSV, header').ratio, 1.4);
  assert.equal(by('load 100 MB CSV, header').met, true);
  assert.equal(by('searchdata over HTTP').value, 2);
  assert.equal(by('searchdata over HTTP').met, true);
  assert.equal(by('completion p99').figure, 'completion p99 over stdio, 10,000 columns');
  assert.equal(by('completion p99').ratio, 5);
  assert.equal(by('completion p99').met, false);
  assert.equal(by('completion p99').target, '≤ 1.2× anchor');
  // the target is the ratio to the trivial request's p99 of the same run (issue 31), not a bound in ms
  const loaded = summarize({ server: { wideColumns: 10000, wideCompletionMs: { p99: 4.1 }, trivialRoundTripMs: { p99: 3.7 } } })[0]!;
  assert.deepEqual([loaded.ratio, loaded.met], [1.11, true]);
  const slow = summarize({ server: { wideColumns: 10000, wideCompletionMs: { p99: 1.5 }, trivialRoundTripMs: { p99: 1 } } })[0]!;
  assert.deepEqual([slow.ratio, slow.met], [1.5, false]);
});

test('summary: a missing figure gives a row with no verdict, and the table shows dashes', () => {
  const rows = summarize({ parse: { anchorJsonParseMBps: 100 }, server: { wideCompletionMs: {} } });
  assert.equal(rows[0]!.met, undefined);
  const text = table({ date: 'd', node: 'v', cpus: 2, loadAverageAtStart: [1], loadAverageAtEnd: [2], results: { x: { error: 'exit 1' } }, summary: rows });
  assert.match(text, /parse 1 MB \.tsq +— +JSON\.parse of 1 MB: 100 MB\/s +— +≥ 0\.5× anchor +—/);
  assert.match(text, /x: exit 1$/);
});

test('compare order: both sides of each module one after the other, the first side alternating', () => {
  const order = compareOrder(['a', 'b'], 2).map((s) => `${s.round}${s.module}${s.side === 'base' ? 'B' : 'H'}`);
  assert.deepEqual(order, ['0aB', '0aH', '0bH', '0bB', '1aB', '1aH', '1bH', '1bB']);
  const one = compareOrder(['a'], 3).map((s) => s.side);
  assert.deepEqual(one, ['base', 'head', 'head', 'base', 'base', 'head']);
  assert.equal(compareOrder(['a'], 0).length, 2);
});

test('compare: medians over rounds, today over the commit, better by the unit', () => {
  const row = (value: number, ratio: number, unit = 'MB/s', figure = 'parse'): SummaryRow => ({ figure, unit, value, ratio, target: 't', met: true });
  const rows = compareSummaries(
    [[row(10, 0.1), row(5, 1, 'ms', 'lat')], [row(12, 0.12)], [row(11, 0.11)]],
    [[row(22, 0.2), row(4, 0.8, 'ms', 'lat')], [row(20, 0.21)], [row(30, 0.3)]],
  );
  assert.deepEqual(rows[0], { figure: 'parse', unit: 'MB/s', base: 11, head: 22, change: 2, baseRatio: 0.11, headRatio: 0.21, ratioChange: 1.91, better: true, target: 't', headMet: true });
  assert.equal(rows[1]!.change, 0.8);
  assert.equal(rows[1]!.better, true);
  // the figure doubled but so did the anchor: the machine was quieter at today's turn, not the code faster
  assert.equal(compareSummaries([[row(10, 0.5)]], [[row(20, 0.5)]])[0]!.better, undefined);
  assert.equal(compareSummaries([[{ ...row(10, 1), ratio: undefined }]], [[{ ...row(10.1, 1), ratio: undefined }]])[0]!.better, undefined);
  assert.match(compareTable('HEAD~1', 3, rows), /parse +11 MB\/s \(0\.11× anchor\) +22 MB\/s \(0\.21× anchor\) +2× +1\.91× +better/);
});

test('summary: the results panel at 1M rows, each figure beside the 1k- or 100k-row answer of the same run', () => {
  const rows = summarize({
    results: {
      rows1k: { firstRowsMs: 100, workbenchMaxFrameMs: 40, webviewHeapMB: 10, hostGrowthMB: 5, allRowsLoadedMs: 200 },
      rows100k: { firstRowsMs: 150, allRowsLoadedMs: 1000, workbenchMaxFrameMs: 60, webviewHeapMB: 20, lastRowMs: 50 },
      rows1m: { firstRowsMs: 200, allRowsLoadedMs: 9000, workbenchMaxFrameMs: 80, webviewHeapMB: 160, hostGrowthMB: 120, lastRowMs: 60, sortMs: 900, sortMaxFrameMs: 30, filterMs: 300, filterMaxFrameMs: 120, anchorSortMs: 90 },
    },
  });
  const by = (f: string) => rows.find((r) => r.figure.startsWith(f))!;
  assert.equal(by('1M rows: first rows painted').ratio, 2);
  assert.equal(by('1M rows: first rows painted').met, true);
  const exact = (f: string) => rows.find((r) => r.figure === f)!;
  assert.equal(exact('1M rows: webview heap').met, false, 'the heap read in the renderer the workbench shares');
  assert.equal(by('1M rows: webview heap above').value, 150, 'above the 1k-row answer');
  assert.equal(by('1M rows: webview heap above').met, true);
  assert.equal(exact('100k rows: webview heap').met, true);
  assert.equal(by('1M rows: all rows in grid').ratio, 9);
  assert.equal(by('1M rows: sort by a number').ratio, 10);
  assert.equal(by('1M rows: sort by a number').met, true);
  assert.equal(by('1M rows: filter a text column').met, false);
  assert.equal(by('1M rows: scroll to the last row').met, true);
});

test('summary: export + validate of 1,000 answers beside 1,000 searchdata calls of the same run, target ≤ 1×', () => {
  const [row] = summarize({ tml: { answers: 1000, batchSize: 50, exportAndValidateMs: 2110, searchdataCalls: 1000, searchdataMs: 12167 } });
  assert.equal(row!.figure, 'export + validate 1,000 answers, batches of 50');
  assert.equal(row!.anchor, '1,000 searchdata calls');
  assert.equal(row!.ratio, 0.17);
  assert.equal(row!.met, true);
  const [withBar] = summarize({ tml: { answers: 1000, batchSize: 50, batches: 20, validateBatches: 20, exportAndValidateMs: 2110, searchdataCalls: 1000, searchdataMs: 12167 } });
  assert.equal(withBar!.figure, 'export + validate 1,000 answers, batches of 50 (20 + 20 batches, each a step of the progress bar)');
});

test('summary: searchdata on a model, median overhead of its queries beside the same SQL in DuckDB, target ≤ 2 ms', () => {
  const rows = summarize({ searchdata: { queries: [{ directMs: 1, overheadMs: 1 }], modelQueries: [1, 3, 5].map((k) => ({ directMs: 2 * k, overheadMs: k / 2 })) } });
  const row = rows.find((r) => r.figure.startsWith('searchdata on a model'))!;
  assert.deepEqual([row.figure, row.value, row.anchorValue, row.ratio, row.met], ['searchdata on a model (joins), median overhead of 3 queries', 1.5, 6, 0.25, true]);
  const slow = summarize({ searchdata: { modelQueries: [{ directMs: 2, overheadMs: 2.5 }] } }).find((r) => r.figure.startsWith('searchdata on a model'))!;
  assert.equal(slow.met, false);
});

test('summary: answer data with formulas, its median overhead beside the same SQL in DuckDB, target ≤ 2 ms', () => {
  const rows = summarize({ formula: { answers: [{}, {}, {}], medianOverheadMs: 1.5, medianDirectMs: 10 } });
  const row = rows.find((r) => r.figure.startsWith('answer data with formulas'))!;
  assert.deepEqual([row.value, row.anchorValue, row.met], [1.5, 10, true]);
  assert.equal(summarize({ formula: { answers: [{}], medianOverheadMs: 5, medianDirectMs: 10 } }).find((r) => r.figure.startsWith('answer data'))!.met, false);
});
