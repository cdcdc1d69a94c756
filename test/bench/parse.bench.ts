/**
 * Parse throughput of the .tsq parser (common/src/language/parser.ts `parseDocument`, lexer included) on
 * a ~1 MB file of realistic queries (`realisticFile`): columns of the vega-datasets flights, cars and
 * movies data, with filters, value lists, date buckets, relative dates, top/bottom, sort, growth,
 * comments and directives. The figures, their units and the target: `measure`; the same figures with
 * the language server's Node options: `run`.
 * Run: `npm run bench -- parse`.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SERVER_EXEC_ARGV } from '../../common/src/serverProcess';
import { tokenize } from '../../common/src/language/lexer';
import { parseDocument } from '../../common/src/language/parser';
import { reparseDocument } from '../../common/src/language/incremental';
import { carsCatalog, flightsCatalog, moviesCatalog, type FixtureSource } from '../fixtures/catalogs';
import { prng } from '../fixtures/prng';


const NUMERIC = new Set(['INT32', 'INT64', 'FLOAT', 'DOUBLE']);
const DATES = new Set(['DATE', 'DATE_TIME']);

/** Builds about `bytes` characters of valid queries, with `@datasource` lines and comments. */
export function realisticFile(bytes: number, seed = 7): { text: string; queries: number } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const sources: FixtureSource[] = [flightsCatalog(), carsCatalog(), moviesCatalog()];
  const parts: string[] = [];
  let size = 0;
  let queries = 0;
  while (size < bytes) {
    const src = pick(sources);
    const measures = src.columns.filter((c) => NUMERIC.has(c.dataType)).map((c) => c.name);
    const attrs = src.columns.filter((c) => c.dataType === 'VARCHAR').map((c) => c.name);
    const dates = src.columns.filter((c) => DATES.has(c.dataType)).map((c) => c.name);
    const block: string[] = [`-- ${src.name} report ${queries}`, `@datasource '${src.name}'`];
    for (let q = 0; q < 5; q++) {
      const clauses: string[] = [];
      clauses.push(`[${pick(attrs)}]`);
      clauses.push(`${pick(['sum', 'average', 'max', 'unique count', 'count'])} [${pick(measures)}]`);
      if (dates.length && rnd() < 0.5) clauses.push(rnd() < 0.5 ? `[${pick(dates)}].${pick(['monthly', 'yearly', 'weekly', 'daily'])}` : `[${pick(dates)}].'day of week'`);
      if (rnd() < 0.6) clauses.push(`[${pick(attrs)}] = 'A${Math.floor(rnd() * 100)}', 'B${Math.floor(rnd() * 100)}'`);
      if (rnd() < 0.4) clauses.push(`[${pick(measures)}] ${pick(['>', '<', '>=', '!='])} ${Math.floor(rnd() * 2000) - 100}`);
      if (rnd() < 0.3) clauses.push(`[${pick(measures)}] between ${Math.floor(rnd() * 10)} and ${10 + Math.floor(rnd() * 1000)}`);
      if (rnd() < 0.3) clauses.push(`[${pick(attrs)}] ${pick(['contains', 'begins with', 'not contains', 'ends with'])} '${pick(['SE', 'A', 'Los', 'The'])}'`);
      if (dates.length && rnd() < 0.3) clauses.push(`[${pick(dates)}] ${pick(['last 7 days', 'this year', 'last 2 quarters for each month', '3 weeks ago', 'year to date'])}`);
      if (rnd() < 0.4) clauses.push(`${pick(['top', 'bottom'])} ${1 + Math.floor(rnd() * 20)}`);
      if (rnd() < 0.4) clauses.push(`sort by [${pick(measures)}] ${pick(['ascending', 'descending'])}`);
      if (dates.length && rnd() < 0.1) clauses.push(`growth of [${pick(measures)}] by [${pick(dates)}] monthly`);
      if (rnd() < 0.2) clauses.push(`by [${pick(attrs)}]`);
      const line = clauses.join(' ');
      block.push(rnd() < 0.5 ? `${line};` : `${line} -- q${q}\n`);
      queries++;
    }
    const s = block.join('\n') + '\n\n';
    parts.push(s);
    size += s.length;
  }
  return { text: parts.join(''), queries };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Runs `measure` in a child process with the language server's Node options; its figures, or `{ error }`. */
function measureWithServerFlags(): Record<string, unknown> {
  const script = `import(${JSON.stringify(pathToFileURL(__filename).href)}).then((m) => (m.measure ?? m.default.measure)()).then((r) => console.log(JSON.stringify(r)))`;
  const r = spawnSync(process.execPath, [...SERVER_EXEC_ARGV, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) return { error: `exit ${r.status}: ${r.stderr.slice(-500)}` };
  const { parseMBps, parseMBpsBest, parseCpuMBps, tokenizeMBps, parseMsMedian, reparseMsMedian } = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  return { execArgv: SERVER_EXEC_ARGV, parseMBps, parseMBpsBest, parseCpuMBps, tokenizeMBps, parseMsMedian, reparseMsMedian };
}

/**
 * Runs the benchmark: the figures of `measure`, and `serverFlags`, which repeats the parse and tokenize
 * figures in a child process started with the Node options the language server runs with
 * (common/src/serverProcess.ts `SERVER_EXEC_ARGV`: a larger young generation), i.e. what the real server
 * achieves; the figures at the top level are the bench process's default heap.
 */
export async function run(): Promise<Record<string, unknown>> {
  const inProcess = await measure();
  return { ...inProcess, serverFlags: measureWithServerFlags() };
}

/**
 * The parse and tokenize figures in this process:
 * `{ parseMBps, parseMBpsBest, parseCpuMBps, tokenizeMBps, fileBytes, queries, runs, diagnostics, loadAverage }`.
 * MB = 10^6 characters (one byte each here, all ASCII); `parseMBps` from the median wall time of `runs`
 * parses after warm-up, `parseMBpsBest` from the fastest run (closer to the parser's own speed when the
 * machine is busier than its cores), `parseCpuMBps` from the median CPU time of a parse (user + system
 * of the whole process, so the collector's helper threads count; it hardly moves with the machine's
 * load, which makes it the figure to compare two versions by on a busy machine). No GC is forced between
 * runs: like the language server re-parsing on every edit, the runs share a warmed-up heap (a forced GC
 * shrinks the young generation and makes every run pay for growing it again).
 * `anchorJsonParseMBps`: JSON.parse of a 1 MB JSON (the queries' clauses), one run after each parse run
 * (interleaved), the machine's speed at the time. Target: parseMBps ≥ a ratio of anchorJsonParseMBps (test/bench/report.ts `TARGETS`,
 * with the reparse and memory bounds; an absolute MB/s held on one machine and not on another; the ratio
 * holds on both). `diagnostics` must be 0 (the file is valid). The load
 * average at the start is reported: on a machine busier than its cores the figure measures waiting for a core.
 * `reparseMsMedian`: the median time of `reparseDocument` after a one-character edit (an insertion, then
 * its removal) at random places of the same file, the previous parse given (target: `TARGETS`).
 * `retainedMB`: the memory the parse of the file holds while it is kept alive (`heapUsed` + `arrayBuffers`,
 * the typed arrays' contents, after a forced GC, with the tree, minus before it; needs `--expose-gc`,
 * which scripts/bench.mjs gives; absent without),
 * beside `textMB`, the text's own size in the heap (2 bytes a character for a string Node keeps as
 * UTF-16, 1 for Latin-1; target: `TARGETS`).
 */
export async function measure(): Promise<Record<string, unknown>> {
  const load = loadavg()[0];
  const { text, queries } = realisticFile(1_000_000);
  const parsed = parseDocument(text);
  for (let i = 0; i < 3; i++) parseDocument(text); // warm-up
  // Anchor: JSON.parse of a 1 MB JSON of the same queries (their clauses as objects), so that the figure
  // can be read against how fast this machine is right now. Each parse run is followed by a JSON.parse
  // run: on a shared machine whose speed drifts, both medians then come from the same moments (phases
  // run one after the other put the parse and its anchor in different weather).
  const items: string[] = [];
  let jsonSize = 0;
  for (let k = 0; jsonSize < 1_000_000; k++) {
    const q = parsed.queries[k % parsed.queries.length]!;
    const item = JSON.stringify({ t: q.text, c: q.clauses.map((c) => ({ k: c.kind, s: c.start, e: c.end })) });
    items.push(item);
    jsonSize += item.length + 1;
  }
  const jsonText = `[${items.join(',')}]`;
  JSON.parse(jsonText); // warm-up
  const runs = 21;
  const parseMs: number[] = [];
  const parseCpuMs: number[] = [];
  const tokenizeMs: number[] = [];
  const jsonMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    parseDocument(text);
    parseMs.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    parseCpuMs.push((used.user + used.system) / 1000);
    const j = performance.now();
    JSON.parse(jsonText);
    jsonMs.push(performance.now() - j);
  }
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    tokenize(text);
    tokenizeMs.push(performance.now() - t);
  }
  // Reparse after a one-character edit: insert a digit at a random place, then remove it (every other
  // edit restores the file, so each one edits a 1 MB text like the first).
  const rnd = prng(11);
  const reparseMs: number[] = [];
  let cur = text;
  let curDoc = parsed;
  for (let i = 0; i < 201; i++) {
    const at = Math.floor(rnd() * text.length);
    const next = cur === text ? text.slice(0, at) + '7' + text.slice(at) : text;
    const t = performance.now();
    const d = reparseDocument(cur, curDoc, next);
    reparseMs.push(performance.now() - t);
    cur = next;
    curDoc = d;
  }
  // Retained heap: the tree of the file, kept alive, after forced collections.
  const gc = (globalThis as { gc?: () => void }).gc;
  let retainedMB: number | undefined;
  if (gc) {
    gc();
    gc();
    // typed arrays keep their contents outside the JavaScript heap (`arrayBuffers`): both count
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = used();
    const kept = parseDocument(text);
    gc();
    gc();
    const after = used();
    // read after the measure, so the tree is alive during it
    if (kept.diagnostics.length === 0) retainedMB = Math.round(((after - before) / 1e6) * 100) / 100;
  }
  const mb = text.length / 1e6;
  return {
    reparseMsMedian: Math.round(median(reparseMs) * 1000) / 1000,
    retainedMB,
    textMB: mb,
    parseMBps: Math.round((mb / (median(parseMs) / 1000)) * 10) / 10,
    parseMBpsBest: Math.round((mb / (Math.min(...parseMs) / 1000)) * 10) / 10,
    parseCpuMBps: Math.round((mb / (median(parseCpuMs) / 1000)) * 10) / 10,
    tokenizeMBps: Math.round((mb / (median(tokenizeMs) / 1000)) * 10) / 10,
    anchorJsonParseMBps: Math.round((jsonText.length / 1e6 / (median(jsonMs) / 1000)) * 10) / 10,
    parseMsMedian: Math.round(median(parseMs) * 10) / 10,
    fileBytes: text.length,
    queries: parsed.queries.length,
    generatedQueries: queries,
    runs,
    diagnostics: parsed.diagnostics.length,
    loadAverage: load,
  };
}
