#!/usr/bin/env node
// Runs every benchmark module under test/bench (`*.bench.ts`, each exporting
// `run(): Promise<Record<string, unknown>>`) and writes one JSON report.
//   npm run bench                      all benchmarks, report in .bench/report.json
//   npm run bench -- language          only test/bench/language.bench.ts
//   BENCH_OUT=path npm run bench        report elsewhere
// It prints a one-screen table: each target's figure next to its anchor measured in the same run
// (curl, DuckDB read_csv, the same SQL in DuckDB, …), the ratio and the target; the JSON report holds
// it as `summary`, with every module's full figures and the machine's load average.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import os from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);
const dir = join(root, 'test', 'bench');
const modules = existsSync(dir)
  ? readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).filter((f) => !only.length || only.includes(f.replace('.bench.ts', '')))
  : [];
const known = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace('.bench.ts', '')) : [];
const unknown = only.filter((n) => !known.includes(n));
if (unknown.length || !modules.length) {
  console.error(`bench: no benchmark named ${unknown.join(', ') || '(none found)'}; the benchmarks are: ${known.join(', ')}`);
  process.exit(2);
}
const build = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);
const out = process.env.BENCH_OUT ?? join(root, '.bench', 'report.json');
mkdirSync(dirname(out), { recursive: true });
/**
 * @typedef {{ figure: string, unit: string, value?: number, anchor?: string, anchorValue?: number, ratio?: number, target: string, met?: boolean }} SummaryRow
 * @typedef {{ date: string, node: string, cpus: number, loadAverageAtStart: number[], loadAverageAtEnd?: number[], results: Record<string, any>, summary?: SummaryRow[] }} Report
 */
// Each module runs in its own process so that memory figures are its own.
/** @type {Report} */
const report = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100), results: {} };
for (const m of modules.sort()) {
  const name = m.replace('.bench.ts', '');
  const tmp = join(root, '.bench', `${name}.json`);
  console.error(`bench: ${name}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'scripts', 'bench-one.mjs'), join(dir, m), tmp], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) { report.results[name] = { error: `exit ${r.status}` }; continue; }
  report.results[name] = JSON.parse((await import('node:fs')).readFileSync(tmp, 'utf8'));
}
report.loadAverageAtEnd = os.loadavg().map((x) => Math.round(x * 100) / 100);
report.summary = summarize(report.results);
(await import('node:fs')).writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(table(report));
console.error(`bench: report written to ${out}`);

/**
 * The figures the targets are about, each next to its anchor measured in the same run: rows of
 * { figure, value, anchor, anchorValue, ratio, target, met } (value and anchor in `unit`).
 * @param {Record<string, any>} results
 * @returns {SummaryRow[]}
 */
function summarize(results) {
  /** @type {SummaryRow[]} */
  const rows = [];
  const num = (/** @type {unknown} */ x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  /** @type {(figure: string, unit: string, value: unknown, anchor: string | undefined, anchorValue: unknown, ratio: unknown, target: string, met: boolean) => number} */
  const add = (figure, unit, value, anchor, anchorValue, ratio, target, met) =>
    rows.push({ figure, unit, value: num(value), anchor, anchorValue: num(anchorValue), ratio: num(ratio), target, met: num(value) === undefined ? undefined : met });
  const r2 = (/** @type {number | undefined} */ x) => (x === undefined ? undefined : Math.round(x * 100) / 100);
  const div = (/** @type {unknown} */ a, /** @type {unknown} */ b) => (num(a) !== undefined && num(b) ? r2(/** @type {number} */ (a) / /** @type {number} */ (b)) : undefined);
  const p = results.parse;
  if (p) add('parse 1 MB .tsq', 'MB/s', p.parseMBps, 'JSON.parse 1 MB', p.anchorJsonParseMBps, div(p.parseMBps, p.anchorJsonParseMBps), '≥ 50 MB/s', p.parseMBps >= 50);
  const l = results.language;
  if (l) add('validate 2,000 queries after 1-char edit', 'ms', l.validationAfterEditMs, 'whole validation', l.validationMs, l.validationAfterEditRatio, '≤ 10 ms', l.validationAfterEditMs <= 10);
  const e = results.emulator;
  for (const kind of ['headerless', 'header']) {
    const x = e?.loads?.[kind];
    if (x) add(`load ${Math.round(x.bytes / 2 ** 20)} MB CSV, ${kind}`, 'ms', x.loadMs, 'DuckDB read_csv', x.duckdbReadCsvMs, x.ratio, '≤ 2× anchor', x.ratio <= 2);
  }
  const q = e?.searchdata?.queries;
  if (Array.isArray(q) && q.length) {
    // the query furthest over (or least under) its target, so that the row's figures show the verdict's reason
    const over = (/** @type {{ clientMs: number, duckdbMs: number }} */ x) => x.clientMs - (1.5 * x.duckdbMs + 5);
    const worst = q.reduce((a, b) => (over(b) > over(a) ? b : a));
    add('searchdata, furthest from target', 'ms', worst.clientMs, 'same SQL in DuckDB', worst.duckdbMs, worst.ratio, '≤ 1.5× + 5 ms', e.searchdata.allWithinTarget);
  }
  const ld = results.load;
  if (ld?.extensionHost) add('extension-host upload', 'MB/s', ld.extensionHost.uploadMBps, 'curl', ld.curl?.uploadMBps, ld.extensionHost.uploadRateVsCurl, '≥ 0.9× curl', ld.extensionHost.uploadRateVsCurl >= 0.9);
  // The results panel has no outside anchor; the 1,000-row answer of the same run shows the machine's
  // speed at the time (its first rows come the same way, a 1,000-row first page).
  const rs = results.results?.rows100k;
  const rk = results.results?.rows1k ?? {};
  if (rs) {
    add('100k rows: first rows painted', 'ms', rs.firstRowsMs, '1k-row answer', rk.firstRowsMs, div(rs.firstRowsMs, rk.firstRowsMs), '≤ 300 ms', rs.firstRowsMs <= 300);
    add('100k rows: all rows in grid', 'ms', rs.allRowsLoadedMs, '1k-row answer', rk.allRowsLoadedMs, div(rs.allRowsLoadedMs, rk.allRowsLoadedMs), '≤ 1500 ms', rs.allRowsLoadedMs <= 1500);
    add('100k rows: longest workbench frame', 'ms', rs.workbenchMaxFrameMs, '1k-row answer', rk.workbenchMaxFrameMs, div(rs.workbenchMaxFrameMs, rk.workbenchMaxFrameMs), '≤ 100 ms', rs.workbenchMaxFrameMs <= 100);
  }
  return rows;
}

/** The summary as a one-screen text table. @param {Report} rep */
function table(rep) {
  const head = ['figure', 'value', 'anchor', 'ratio', 'target', 'met'];
  const fmt = (/** @type {number | undefined} */ v, /** @type {string} */ unit) => (v === undefined ? '—' : `${v} ${unit}`);
  const lines = (rep.summary ?? []).map((r) => [r.figure, fmt(r.value, r.unit), r.anchor ? `${r.anchor}: ${fmt(r.anchorValue, r.unit)}` : '—', r.ratio === undefined ? '—' : String(r.ratio), r.target, r.met === undefined ? '—' : r.met ? 'yes' : 'NO']);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (/** @type {string[]} */ cells) => cells.map((c, i) => c.padEnd(w[i])).join('  ');
  return [
    `bench ${rep.date}  node ${rep.node}  ${rep.cpus} cores  load average ${rep.loadAverageAtStart.join(' ')} (start) ${(rep.loadAverageAtEnd ?? []).join(' ')} (end)`,
    row(head),
    row(w.map((n) => '-'.repeat(n))),
    ...lines.map(row),
    ...Object.entries(rep.results).filter(([, v]) => v && (v.error || v.skipped)).map(([k, v]) => `${k}: ${v.error ?? `skipped: ${v.skipped}`}`),
  ].join('\n');
}
