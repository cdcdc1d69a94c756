/**
 * Pure functions of scripts/bench.mjs (no I/O): the summary of a run, each figure beside its anchor
 * measured in the same run; the one-screen table; the order of a `--compare` run, and the comparison of
 * two code versions measured in it. Not a benchmark itself (bench.mjs runs `*.bench.ts` only).
 *
 * Every figure is read against something measured in the same run on the same machine, because the
 * machines the benchmarks run on are shared and differ: an absolute figure from one says little about
 * another, a ratio holds on both.
 */

/** One row of the summary: a figure, its anchor measured in the same run, their ratio and the target. */
export interface SummaryRow {
  /** What is measured, e.g. `parse 1 MB .tsq`. */
  figure: string;
  /** Unit of `value` and `anchorValue`: `ms` (lower is better) or `MB/s` (higher is better). */
  unit: string;
  /** The figure, or undefined when the module did not report it. */
  value?: number;
  /** What the figure is read against, e.g. `JSON.parse 1 MB`. */
  anchor?: string;
  /** The anchor's figure in the same run, same unit. */
  anchorValue?: number;
  /** value / anchorValue, two decimals. */
  ratio?: number;
  /** The target in words, e.g. `≥ 0.5× anchor`. */
  target: string;
  /** Whether the target is met; undefined when the figure is missing. */
  met?: boolean;
}

/** A bench run's report as scripts/bench.mjs writes it (the parts the table shows). */
export interface BenchReport {
  date: string;
  node: string;
  cpus: number;
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
  /** Each module's figures by name, or `{ error }` / `{ skipped }`. */
  results: Record<string, unknown>;
  summary: SummaryRow[];
}

type Dict = Record<string, unknown>;
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const obj = (x: unknown): Dict | undefined => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Dict) : undefined);
/** Rounds to two decimals; undefined stays undefined. */
export const r2 = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x * 100) / 100);
/** a / b to two decimals, or undefined when either is missing or b is 0. */
export const ratioOf = (a: unknown, b: unknown): number | undefined => {
  const x = num(a);
  const y = num(b);
  return x !== undefined && y ? r2(x / y) : undefined;
};
/** The median of numbers (the upper one of an even count); undefined for none. */
export function median(xs: readonly number[]): number | undefined {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Targets of the summary: each a ratio to an anchor of the same run, or a bound where the anchor is tiny. */
export const TARGETS = {
  /** parse MB/s ≥ this × JSON.parse MB/s of the same bytes (issue 38's bar, with reparseMs and parseRetainedMB). */
  parseVsJsonParse: 0.5,
  /** median reparse of a 1-character edit in a 1 MB .tsq, ms (against the whole parse of the same run). */
  reparseMs: 1,
  /** memory retained by the parse of a 1 MB .tsq (the tree kept alive; heap and typed arrays), MB (against the text's own size). */
  parseRetainedMB: 4,
  /** load time ≤ this × DuckDB read_csv into a database file, checkpointed. */
  loadVsReadCsv: 1.5,
  /** searchdata: median over the demo queries of (HTTP − the same SQL in DuckDB), ms. */
  searchdataOverheadMs: 2,
  /** completion p99 over stdio on a 10,000-column data source ≤ this × a trivial request's p99 on the same connection, same run (issue 31). */
  wideCompletionVsTrivialP99: 1.2,
  /** references and rename over stdio on a workspace of 2,000 files, p95, ms (issue 40; anchor: a references request on whitespace). */
  navigationP95Ms: 50,
  /** indexing a workspace of 2,000 files, ms (issue 40; anchor: the parse and TML read alone of the same texts). */
  navigationIndexMs: 2000,
  /** export + VALIDATE_ONLY of 1,000 answers in batches of 50 ≤ this × 1,000 searchdata calls of the same run. */
  tmlVsSearchdata: 1,
} as const;

/**
 * The figures the targets are about, from each module's figures (`results[name]`, as its `run()`
 * returned them), each beside its anchor of the same run. A module missing from `results` gives no row;
 * a figure missing from a module gives a row without a value (and `met` undefined).
 * @returns rows in a fixed order: parse, validation, completion, loads, searchdata, answers with formulas, the model with formula columns, TML, upload, results panel.
 */
export function summarize(results: Record<string, unknown>): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const add = (row: SummaryRow): void => {
    rows.push({ ...row, value: num(row.value), anchorValue: num(row.anchorValue), ratio: num(row.ratio), met: num(row.value) === undefined ? undefined : row.met });
  };
  const p = obj(results.parse);
  if (p) {
    const ratio = ratioOf(p.parseMBps, p.anchorJsonParseMBps);
    add({ figure: 'parse 1 MB .tsq', unit: 'MB/s', value: num(p.parseMBps), anchor: 'JSON.parse of 1 MB', anchorValue: num(p.anchorJsonParseMBps), ratio, target: `≥ ${TARGETS.parseVsJsonParse}× anchor`, met: ratio !== undefined && ratio >= TARGETS.parseVsJsonParse });
    add({ figure: 'reparse after a 1-char edit in 1 MB .tsq, median', unit: 'ms', value: num(p.reparseMsMedian), anchor: 'whole parse', anchorValue: num(p.parseMsMedian), ratio: ratioOf(p.reparseMsMedian, p.parseMsMedian), target: `≤ ${TARGETS.reparseMs} ms`, met: (num(p.reparseMsMedian) ?? Infinity) <= TARGETS.reparseMs });
    add({ figure: 'memory retained by the parse of 1 MB .tsq (heap + typed arrays)', unit: 'MB', value: num(p.retainedMB), anchor: 'the text', anchorValue: num(p.textMB), ratio: ratioOf(p.retainedMB, p.textMB), target: `≤ ${TARGETS.parseRetainedMB} MB`, met: (num(p.retainedMB) ?? Infinity) <= TARGETS.parseRetainedMB });
  }
  const l = obj(results.language);
  if (l) {
    add({ figure: 'validate 2,000 queries after 1-char edit', unit: 'ms', value: num(l.validationAfterEditMs), anchor: 'whole validation', anchorValue: num(l.validationMs), ratio: num(l.validationAfterEditRatio), target: '≤ 10 ms', met: (num(l.validationAfterEditMs) ?? Infinity) <= 10 });
  }
  const s = obj(results.server);
  const wide = obj(s?.wideCompletionMs);
  if (s && wide) {
    const trivial = obj(s.trivialRoundTripMs);
    const ratio = ratioOf(wide.p99, trivial?.p99);
    add({ figure: `completion p99 over stdio, ${num(s.wideColumns)?.toLocaleString('en') ?? '?'} columns`, unit: 'ms', value: num(wide.p99), anchor: 'trivial request round trip p99', anchorValue: num(trivial?.p99), ratio, target: `≤ ${TARGETS.wideCompletionVsTrivialP99}× anchor`, met: ratio !== undefined && ratio <= TARGETS.wideCompletionVsTrivialP99 });
  }
  const e = obj(results.emulator);
  for (const kind of ['headerless', 'header', 'headerless-iso', 'header-iso']) {
    const x = obj(obj(e?.loads)?.[kind]);
    if (!x) continue;
    // the module's own ratio is the median of adjacent (load, read_csv) pairs, steadier than the medians' ratio
    const ratio = num(x.ratio) ?? ratioOf(x.loadMs, x.duckdbReadCsvMs);
    const mb = Math.round((num(x.bytes) ?? 0) / 2 ** 20);
    add({ figure: `load ${mb} MB CSV, ${kind}`, unit: 'ms', value: num(x.loadMs), anchor: 'DuckDB read_csv into a file, checkpointed', anchorValue: num(x.duckdbReadCsvMs), ratio, target: `≤ ${TARGETS.loadVsReadCsv}× anchor`, met: ratio !== undefined && ratio <= TARGETS.loadVsReadCsv });
  }
  const sd = obj(results.searchdata);
  const sq = Array.isArray(sd?.queries) ? (sd.queries as Dict[]) : [];
  if (sq.length) {
    const overhead = median(sq.map((q) => num(q.overheadMs)).filter((x): x is number => x !== undefined));
    const direct = median(sq.map((q) => num(q.directMs)).filter((x): x is number => x !== undefined));
    add({ figure: `searchdata over HTTP, median overhead of ${sq.length} queries`, unit: 'ms', value: overhead, anchor: 'median of the same SQL in DuckDB', anchorValue: direct, ratio: ratioOf(overhead, direct), target: `≤ ${TARGETS.searchdataOverheadMs} ms`, met: (overhead ?? Infinity) <= TARGETS.searchdataOverheadMs });
  }
  const mq = Array.isArray(sd?.modelQueries) ? (sd.modelQueries as Dict[]) : [];
  if (mq.length) {
    const overhead = median(mq.map((q) => num(q.overheadMs)).filter((x): x is number => x !== undefined));
    const direct = median(mq.map((q) => num(q.directMs)).filter((x): x is number => x !== undefined));
    add({ figure: `searchdata on a model (joins), median overhead of ${mq.length} queries`, unit: 'ms', value: overhead, anchor: 'median of the same SQL in DuckDB', anchorValue: direct, ratio: ratioOf(overhead, direct), target: `≤ ${TARGETS.searchdataOverheadMs} ms`, met: (overhead ?? Infinity) <= TARGETS.searchdataOverheadMs });
  }
  const eq = Array.isArray(obj(e?.searchdata)?.queries) ? (obj(e?.searchdata)!.queries as Dict[]) : [];
  if (eq.length) {
    const overhead = median(eq.map((q) => (num(q.clientMs) ?? NaN) - (num(q.duckdbMs) ?? NaN)).filter((x) => Number.isFinite(x)));
    const direct = median(eq.map((q) => num(q.duckdbMs)).filter((x): x is number => x !== undefined));
    add({ figure: `searchdata through the client, median overhead of ${eq.length} queries`, unit: 'ms', value: r2(overhead), anchor: 'median of the same SQL in DuckDB', anchorValue: direct, ratio: ratioOf(overhead, direct), target: `≤ ${TARGETS.searchdataOverheadMs} ms`, met: (overhead ?? Infinity) <= TARGETS.searchdataOverheadMs });
  }
  const fm = obj(results.formula);
  const fa = Array.isArray(fm?.answers) ? (fm!.answers as Dict[]) : [];
  if (fa.length) {
    add({ figure: `answer data with formulas over HTTP, median overhead of ${fa.length} answers`, unit: 'ms', value: num(fm!.medianOverheadMs), anchor: 'median of the same SQL in DuckDB', anchorValue: num(fm!.medianDirectMs), ratio: ratioOf(fm!.medianOverheadMs, fm!.medianDirectMs), target: `≤ ${TARGETS.searchdataOverheadMs} ms`, met: (num(fm!.medianOverheadMs) ?? Infinity) <= TARGETS.searchdataOverheadMs });
  }
  const fmq = Array.isArray(fm?.model) ? (fm!.model as Dict[]) : [];
  if (fmq.length) {
    add({ figure: `searchdata overhead on the model with formula columns over the same SQL run directly in DuckDB, median of ${fmq.length} queries`, unit: 'ms', value: num(fm!.modelMedianOverheadMs), anchor: 'median of the same SQL in DuckDB', anchorValue: num(fm!.modelMedianDirectMs), ratio: ratioOf(fm!.modelMedianOverheadMs, fm!.modelMedianDirectMs), target: `≤ ${TARGETS.searchdataOverheadMs} ms`, met: (num(fm!.modelMedianOverheadMs) ?? Infinity) <= TARGETS.searchdataOverheadMs });
  }
  const tm = obj(results.tml);
  if (tm) {
    const ratio = ratioOf(tm.exportAndValidateMs, tm.searchdataMs);
    const steps = num(tm.batches) !== undefined && num(tm.validateBatches) !== undefined ? ` (${num(tm.batches)} + ${num(tm.validateBatches)} batches, each a step of the progress bar)` : '';
    add({ figure: `export + validate ${num(tm.answers)?.toLocaleString('en') ?? '?'} answers, batches of ${num(tm.batchSize) ?? '?'}${steps}`, unit: 'ms', value: num(tm.exportAndValidateMs), anchor: `${num(tm.searchdataCalls)?.toLocaleString('en') ?? '?'} searchdata calls`, anchorValue: num(tm.searchdataMs), ratio, target: `≤ ${TARGETS.tmlVsSearchdata}× anchor`, met: ratio !== undefined && ratio <= TARGETS.tmlVsSearchdata });
  }
  navigationRows(obj(results.navigation), add);
  const ld = obj(results.load);
  const host = obj(ld?.extensionHost);
  if (host) {
    add({ figure: 'extension-host upload', unit: 'MB/s', value: num(host.uploadMBps), anchor: 'curl', anchorValue: num(obj(ld?.curl)?.uploadMBps), ratio: num(host.uploadRateVsCurl), target: '≥ 0.9× curl', met: (num(host.uploadRateVsCurl) ?? 0) >= 0.9 });
  }
  // The results panel has no outside anchor; the 1,000-row answer of the same run shows the machine's
  // speed at the time (its first rows come the same way, a 1,000-row first page).
  const rr = obj(results.results);
  const rs = obj(rr?.rows100k);
  const rk = obj(rr?.rows1k) ?? {};
  const rm = obj(rr?.rows1m);
  const panel = (x: Dict, n: string, figure: string, key: string, unit: string, limit: number): void =>
    add({ figure: `${n}: ${figure}`, unit, value: num(x[key]), anchor: '1k-row answer', anchorValue: num(rk[key]), ratio: ratioOf(x[key], rk[key]), target: `≤ ${limit} ${unit}`, met: num(x[key]) === undefined ? undefined : num(x[key])! <= limit });
  // the webview's heap is read in a renderer it shares with the workbench: the 1k-row answer's heap is
  // that baseline, and the answer's own heap is the figure above it
  const above = (x: Dict, n: string, limit: number): void => {
    const v = num(x.webviewHeapMB) !== undefined && num(rk.webviewHeapMB) !== undefined ? r2(num(x.webviewHeapMB)! - num(rk.webviewHeapMB)!) : undefined;
    add({ figure: `${n}: webview heap above the 1k-row answer`, unit: 'MB', value: v, anchor: '1k-row answer', anchorValue: num(rk.webviewHeapMB), ratio: ratioOf(x.webviewHeapMB, rk.webviewHeapMB), target: `≤ ${limit} MB`, met: v === undefined ? undefined : v <= limit });
  };
  if (rs) {
    panel(rs, '100k rows', 'first rows painted', 'firstRowsMs', 'ms', 300);
    panel(rs, '100k rows', 'first rows painted after the host has the first page', 'panelFirstRowsMs', 'ms', 300);
    above(rs, '100k rows', 60);
    panel(rs, '100k rows', 'all rows in grid', 'allRowsLoadedMs', 'ms', 1500);
    panel(rs, '100k rows', 'longest workbench frame', 'workbenchMaxFrameMs', 'ms', 100);
    panel(rs, '100k rows', 'webview heap', 'webviewHeapMB', 'MB', 60);
  }
  if (rm) {
    panel(rm, '1M rows', 'first rows painted', 'firstRowsMs', 'ms', 300);
    panel(rm, '1M rows', 'first rows painted after the host has the first page', 'panelFirstRowsMs', 'ms', 300);
    above(rm, '1M rows', 150);
    panel(rm, '1M rows', 'longest workbench frame', 'workbenchMaxFrameMs', 'ms', 100);
    panel(rm, '1M rows', 'webview heap', 'webviewHeapMB', 'MB', 150);
    panel(rm, '1M rows', 'extension host growth', 'hostGrowthMB', 'MB', 200);
    add({ figure: '1M rows: all rows in grid', unit: 'ms', value: num(rm.allRowsLoadedMs), anchor: '100k-row answer', anchorValue: num(rs?.allRowsLoadedMs), ratio: ratioOf(rm.allRowsLoadedMs, rs?.allRowsLoadedMs), target: '≤ 10× anchor (linear)', met: (ratioOf(rm.allRowsLoadedMs, rs?.allRowsLoadedMs) ?? Infinity) <= 10 });
    add({ figure: '1M rows: scroll to the last row', unit: 'ms', value: num(rm.lastRowMs), anchor: '100k-row answer', anchorValue: num(rs?.lastRowMs), ratio: ratioOf(rm.lastRowMs, rs?.lastRowMs), target: 'reached', met: num(rm.lastRowMs) !== undefined });
    for (const [what, key] of [['sort by a number', 'sort'], ['filter a text column', 'filter']] as const) {
      const frame = num(rm[`${key}MaxFrameMs`]);
      add({ figure: `1M rows: ${what} (longest frame ${frame ?? '?'} ms)`, unit: 'ms', value: num(rm[`${key}Ms`]), anchor: 'Float64Array sort of 1M in the page', anchorValue: num(rm.anchorSortMs), ratio: ratioOf(rm[`${key}Ms`], rm.anchorSortMs), target: 'frames ≤ 100 ms', met: frame === undefined ? undefined : frame <= 100 });
    }
  }
  return rows;
}

/** The rows of test/bench/navigation.bench.ts: indexing 2,000 files (in process and through the server), references and rename p95 over stdio. */
function navigationRows(n: Dict | undefined, add: (row: SummaryRow) => void): void {
  if (!n) return;
  const files = num(n.files)?.toLocaleString('en') ?? '?';
  add({ figure: `index ${files} files in process (retained ${num(n.indexRetainedMB) ?? '?'} MB)`, unit: 'ms', value: num(n.indexMs), anchor: 'parse + TML read alone', anchorValue: num(n.parseMs), ratio: ratioOf(n.indexMs, n.parseMs), target: `≤ ${TARGETS.navigationIndexMs} ms`, met: (num(n.indexMs) ?? Infinity) <= TARGETS.navigationIndexMs });
  add({ figure: `index ${files} files through the server, from initialize (disk read included)`, unit: 'ms', value: num(n.serverIndexMs), anchor: 'in process', anchorValue: num(n.indexMs), ratio: ratioOf(n.serverIndexMs, n.indexMs), target: `≤ ${TARGETS.navigationIndexMs} ms`, met: (num(n.serverIndexMs) ?? Infinity) <= TARGETS.navigationIndexMs });
  const trivial = obj(n.trivialMs);
  for (const [what, k] of [['references', 'referencesMs'], ['rename', 'renameMs']] as const) {
    const x = obj(n[k]);
    add({ figure: `${what} p95 over stdio, ${num(n.locations)?.toLocaleString('en') ?? '?'} locations`, unit: 'ms', value: num(x?.p95), anchor: 'references on whitespace p95', anchorValue: num(trivial?.p95), ratio: ratioOf(x?.p95, trivial?.p95), target: `≤ ${TARGETS.navigationP95Ms} ms`, met: (num(x?.p95) ?? Infinity) <= TARGETS.navigationP95Ms });
  }
}

/** Lays out rows of cells as aligned columns under a header and a rule. */
function columns(head: string[], lines: string[][]): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]): string => cells.map((c, i) => c.padEnd(w[i]!)).join('  ').trimEnd();
  return [row(head), row(w.map((n) => '-'.repeat(n))), ...lines.map(row)];
}

const fmt = (v: number | undefined, unit: string): string => (v === undefined ? '—' : `${v} ${unit}`);

/** The summary of one run as a one-screen text table: figure, value, anchor (with its value), ratio, target, met (yes/NO/—). */
export function table(rep: BenchReport): string {
  const lines = rep.summary.map((r) => [r.figure, fmt(r.value, r.unit), r.anchor ? `${r.anchor}: ${fmt(r.anchorValue, r.unit)}` : '—', r.ratio === undefined ? '—' : `${r.ratio}×`, r.target, r.met === undefined ? '—' : r.met ? 'yes' : 'NO']);
  return [
    `bench ${rep.date}  node ${rep.node}  ${rep.cpus} cores  load average ${rep.loadAverageAtStart.join(' ')} (start) ${rep.loadAverageAtEnd?.join(' ') ?? '?'} (end)`,
    ...columns(['figure', 'value', 'anchor', 'ratio', 'target', 'met'], lines),
    ...Object.entries(rep.results)
      .map(([k, v]) => [k, obj(v)] as const)
      .filter(([, v]) => v && (v.error || v.skipped))
      .map(([k, v]) => `${k}: ${String(v!.error ?? `skipped: ${String(v!.skipped)}`)}`),
  ].join('\n');
}

/** Which code a step of a `--compare` run measures: the named commit (`base`) or today's tree (`head`). */
export type Side = 'base' | 'head';

/** One step of a `--compare` run: one module of one side, in round `round` (0-based). */
export interface CompareStep {
  round: number;
  module: string;
  side: Side;
}

/**
 * The order of a `--compare` run: for each round, for each module, both sides one right after the other,
 * the side that goes first alternating from module to module and from round to round (base, head | head,
 * base | …), so that neither side always runs first (warmer caches, a quieter machine) and a change of
 * the machine's load during the run falls on both sides alike.
 * @param modules module names, in the order to run them.
 * @param rounds how many times each module runs on each side (≥ 1; a lower value counts as 1).
 * @returns `2 × modules.length × rounds` steps.
 */
export function compareOrder(modules: readonly string[], rounds: number): CompareStep[] {
  const steps: CompareStep[] = [];
  const n = Math.max(1, Math.floor(rounds));
  let k = 0;
  for (let round = 0; round < n; round++) {
    for (const module of modules) {
      const first: Side = k++ % 2 === 0 ? 'base' : 'head';
      steps.push({ round, module, side: first }, { round, module, side: first === 'base' ? 'head' : 'base' });
    }
  }
  return steps;
}

/** One summary figure of both sides of a `--compare` run. */
export interface CompareRow {
  figure: string;
  unit: string;
  /** Median over the rounds of the named commit's figure. */
  base?: number;
  /** Median over the rounds of today's figure. */
  head?: number;
  /** head / base, two decimals. */
  change?: number;
  /** Median over the rounds of each side's figure / its anchor (a ratio that also holds across machines). */
  baseRatio?: number;
  headRatio?: number;
  /** headRatio / baseRatio, two decimals: the change with the machine's speed at each side's turn taken out. */
  ratioChange?: number;
  /**
   * Whether today's code does better (higher MB/s, lower ms) by more than 2%: judged on `ratioChange` when
   * both sides have an anchor (the alternation evens out the machine's load only on average; the anchor
   * takes it out of each pair), else on `change`. Undefined when unknown or within 2%.
   */
  better?: boolean;
  target: string;
  /** Today's verdict on the target, from the medians. */
  headMet?: boolean;
}

/**
 * Puts the summaries of each round of both sides together: per figure (matched by name), the median of
 * each side over its rounds, and today's over the named commit's.
 * @param base the named commit's summary rows, one array per round.
 * @param head today's summary rows, one array per round.
 * @returns one row per figure that either side reported, in today's order then the commit's leftovers.
 */
export function compareSummaries(base: readonly SummaryRow[][], head: readonly SummaryRow[][]): CompareRow[] {
  const figures: SummaryRow[] = [];
  for (const r of [...head.flat(), ...base.flat()]) if (!figures.some((f) => f.figure === r.figure)) figures.push(r);
  const pick = (rounds: readonly SummaryRow[][], figure: string, key: 'value' | 'ratio'): number | undefined =>
    median(rounds.map((rows) => rows.find((r) => r.figure === figure)?.[key]).filter((x): x is number => x !== undefined));
  return figures.map((f): CompareRow => {
    const b = pick(base, f.figure, 'value');
    const h = pick(head, f.figure, 'value');
    const change = ratioOf(h, b);
    const baseRatio = pick(base, f.figure, 'ratio');
    const headRatio = pick(head, f.figure, 'ratio');
    const ratioChange = ratioOf(headRatio, baseRatio);
    const judged = ratioChange ?? change;
    const higherIsBetter = f.unit === 'MB/s';
    const better = judged === undefined || Math.abs(judged - 1) <= 0.02 ? undefined : higherIsBetter ? judged > 1 : judged < 1;
    // met when most rounds met it: for a target that is a bound on one figure, the median round's verdict
    const headRows = head.map((rows) => rows.find((r) => r.figure === f.figure)).filter((r): r is SummaryRow => r !== undefined);
    const mets = headRows.map((r) => r.met).filter((m): m is boolean => m !== undefined);
    return { figure: f.figure, unit: f.unit, base: b, head: h, change, baseRatio, headRatio, ratioChange, better, target: f.target, headMet: mets.length ? mets.filter(Boolean).length * 2 > mets.length : undefined };
  });
}

/**
 * A `--compare` run's rows as a text table: figure, the commit's and today's figure (each one's ratio to
 * its anchor in brackets), today / commit of the figures and of the anchor ratios, the verdict, the target.
 */
export function compareTable(ref: string, rounds: number, rows: readonly CompareRow[]): string {
  const side = (v: number | undefined, ratio: number | undefined, unit: string): string => `${fmt(v, unit)}${ratio === undefined ? '' : ` (${ratio}× anchor)`}`;
  const x = (v: number | undefined): string => (v === undefined ? '—' : `${v}×`);
  const lines = rows.map((r) => [r.figure, side(r.base, r.baseRatio, r.unit), side(r.head, r.headRatio, r.unit), x(r.change), x(r.ratioChange), r.better === undefined ? 'same' : r.better ? 'better' : 'worse', r.target, r.headMet === undefined ? '—' : r.headMet ? 'yes' : 'NO']);
  return [`compare: ${ref} (base) against today's tree (head), alternating, ${rounds} round(s); medians over rounds`, ...columns(['figure', `base ${ref}`, 'head', 'head/base', 'anchored', 'verdict', 'target', 'met'], lines)].join('\n');
}
