#!/usr/bin/env node
// Runs every benchmark module under test/bench (`*.bench.ts`, each exporting
// `run(): Promise<Record<string, unknown>>`) and writes one JSON report.
//   npm run bench                      all benchmarks, report in .bench/report.json
//   npm run bench -- language          only test/bench/language.bench.ts
//   BENCH_OUT=path npm run bench        report elsewhere
//   npm run bench -- --compare REF [--rounds N] [--keep] [--same-bench] [names…]
//                                      the benchmarks of commit REF and of today's tree, alternately
// The summary and the compare order are test/bench/report.ts (pure, unit-tested); what the table and
// the report hold, and how --compare runs: beside the code below.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, existsSync, mkdirSync, readFileSync, writeFileSync, symlinkSync } from 'node:fs';
import { join, dirname } from 'node:path';
import os from 'node:os';
import { tsImport } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const report = await tsImport('../test/bench/report.ts', import.meta.url);
const { summarize, table, compareOrder, compareSummaries, compareTable } = report.summarize ? report : report.default;

// ---- arguments ----
// --compare REF (any commit name git knows), --rounds N, --keep and --same-bench: see the --compare
// branch below. Other arguments name the modules to run.
const argv = process.argv.slice(2);
/** @type {string[]} */
const only = [];
/** @type {string | undefined} */
let compareRef;
let rounds = 1;
let keep = false;
let sameBench = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--compare') compareRef = argv[++i];
  else if (a.startsWith('--compare=')) compareRef = a.slice('--compare='.length);
  else if (a === '--rounds') rounds = Number(argv[++i]);
  else if (a.startsWith('--rounds=')) rounds = Number(a.slice('--rounds='.length));
  else if (a === '--keep') keep = true;
  else if (a === '--same-bench') sameBench = true;
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else only.push(a);
}
if (compareRef === undefined && argv.some((a) => a === '--compare')) usage('--compare needs a commit (a hash, a branch, HEAD~3, …)');
if (!Number.isInteger(rounds) || rounds < 1) usage('--rounds needs a whole number ≥ 1');

/** Prints why the arguments are wrong and the usage, and exits 2. @param {string} why @returns {never} */
function usage(why) {
  console.error(`bench: ${why}\nusage: npm run bench -- [--compare REF [--rounds N] [--keep] [--same-bench]] [name…]`);
  process.exit(2);
}

/** @param {string} tree @returns {string[]} */
const benchNames = (tree) => {
  const d = join(tree, 'test', 'bench');
  return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace('.bench.ts', '')).sort() : [];
};
const known = benchNames(root);
const unknown = only.filter((n) => !known.includes(n));
const modules = known.filter((n) => !only.length || only.includes(n));
if (unknown.length || !modules.length) {
  console.error(`bench: no benchmark named ${unknown.join(', ') || '(none found)'}; the benchmarks are: ${known.join(', ')}`);
  process.exit(2);
}

/** Builds the bundles of a tree (`node esbuild.mjs` there); exits on failure. */
/** @param {string} tree */
function build(tree) {
  const b = spawnSync(process.execPath, [join(tree, 'esbuild.mjs')], { stdio: 'inherit', cwd: tree });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

/**
 * Runs one benchmark module of a tree in its own Node process (so that memory figures are its own),
 * its figures going through `tmp`. Returns its figures, or `{ error }` when it fails.
 */
/** @param {string} tree @param {string} name @param {string} tmp @returns {Record<string, any>} */
function runModule(tree, name, tmp) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(tree, 'scripts', 'bench-one.mjs'), join(tree, 'test', 'bench', `${name}.bench.ts`), tmp], { stdio: 'inherit', cwd: tree });
  if (r.status !== 0) return { error: `exit ${r.status}` };
  return JSON.parse(readFileSync(tmp, 'utf8'));
}

const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
/** @param {...string} args @returns {string} */
const git = (...args) => {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
};

// Each module's figures go through .bench/<name>.json, also when the report goes elsewhere (BENCH_OUT):
// a fresh clone has no .bench/ yet.
const benchDir = join(root, '.bench');
mkdirSync(benchDir, { recursive: true });
const out = process.env.BENCH_OUT ?? join(benchDir, 'report.json');
mkdirSync(dirname(out), { recursive: true });
/** @type {{ date: string, node: string, cpus: number, loadAverageAtStart: number[], loadAverageAtEnd?: number[], results: Record<string, any>, summary?: unknown[], compare?: unknown }} */
const rep = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverageAtStart: loadAverage(), results: {} };

// Without --compare: a one-screen table of each target's figure next to its anchor measured in the same
// run (JSON.parse, DuckDB read_csv, the same SQL in DuckDB, a trivial LSP round trip, …), the ratio and
// the target; the JSON report holds it as `summary`, with every module's full figures and the machine's
// load average.
if (compareRef === undefined) {
  build(root);
  for (const name of modules) {
    console.error(`bench: ${name}`);
    rep.results[name] = runModule(root, name, join(benchDir, `${name}.json`));
  }
  rep.loadAverageAtEnd = loadAverage();
  rep.summary = summarize(rep.results);
  writeFileSync(out, JSON.stringify(rep, null, 2) + '\n');
  console.log(table(rep));
} else {
  // --compare REF: REF is checked out with `git worktree add --detach` into .bench/compare-<sha>
  // (ignored), its node_modules linked to this tree's when the two package-lock.json are the same (else
  // `npm ci` there), and built there (`node esbuild.mjs`). Then each module runs once on each side per
  // round, the side that goes first alternating (report.ts `compareOrder`): on a shared machine, old and
  // new code alternating in one run is the only trustworthy comparison of speed. The table shows, per
  // summary figure, the median over the rounds of each side, each side's ratio to its own anchor, and
  // today / REF; the report holds it as `compare`. A module REF does not have runs on today's side only.
  // The worktree is removed at the end unless --keep (then a later run at the same REF reuses it).
  // --same-bench copies today's test/bench/ over REF's in that worktree, so that both sides run the same
  // measurement against their own code (a figure today's benchmarks added is then measured for REF too;
  // a module that no longer fits REF's code fails on REF's side and says so).
  /** @type {string} */
  let sha = '';
  try {
    sha = git('rev-parse', '--verify', `${compareRef}^{commit}`);
  } catch (e) {
    usage(`--compare ${compareRef}: not a commit here (${e instanceof Error ? e.message : String(e)})`);
  }
  const baseTree = join(benchDir, `compare-${sha.slice(0, 12)}`);
  if (!existsSync(join(baseTree, '.git'))) {
    spawnSync('git', ['worktree', 'prune'], { cwd: root });
    console.error(`bench: checking out ${compareRef} (${sha.slice(0, 12)}) into ${baseTree}`);
    git('worktree', 'add', '--detach', '--force', baseTree, sha);
  }
  try {
    if (!existsSync(join(baseTree, 'node_modules'))) {
      const same = existsSync(join(baseTree, 'package-lock.json')) && readFileSync(join(baseTree, 'package-lock.json'), 'utf8') === readFileSync(join(root, 'package-lock.json'), 'utf8');
      if (same) symlinkSync(join(root, 'node_modules'), join(baseTree, 'node_modules'), 'dir');
      else {
        console.error(`bench: ${compareRef} has other dependencies; npm ci in ${baseTree}`);
        const ci = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: baseTree });
        if (ci.status !== 0) process.exit(ci.status ?? 1);
      }
    }
    // a kept worktree may hold today's benchmarks of an earlier --same-bench run: REF's own first
    spawnSync('git', ['checkout', '--', 'test/bench'], { cwd: baseTree });
    spawnSync('git', ['clean', '-fdq', '--', 'test/bench'], { cwd: baseTree });
    if (sameBench) cpSync(join(root, 'test', 'bench'), join(baseTree, 'test', 'bench'), { recursive: true });
    build(baseTree);
    build(root);
    const baseModules = benchNames(baseTree);
    /** @type {Record<'base' | 'head', string>} */
    const trees = { base: baseTree, head: root };
    /** @type {Record<'base' | 'head', Record<string, any>[]>} */
    const results = { base: [], head: [] };
    /** @type {{ module: string, side: 'base' | 'head', round: number }[]} */
    const order = compareOrder(modules, rounds).filter((/** @type {{ module: string, side: 'base' | 'head' }} */ s) => s.side === 'head' || baseModules.includes(s.module));
    for (const step of order) {
      console.error(`bench: round ${step.round + 1}/${rounds} ${step.module} (${step.side === 'base' ? compareRef : 'today'})`);
      (results[step.side][step.round] ??= {})[step.module] = runModule(trees[step.side], step.module, join(benchDir, `${step.module}.${step.side}.json`));
    }
    rep.loadAverageAtEnd = loadAverage();
    rep.results = results.head[0] ?? {};
    rep.summary = summarize(rep.results);
    const rows = compareSummaries(results.base.map((r) => summarize(r ?? {})), results.head.map((r) => summarize(r ?? {})));
    rep.compare = { ref: compareRef, sha, rounds, sameBench, order, missingInBase: modules.filter((m) => !baseModules.includes(m)), rows, base: results.base, head: results.head };
    writeFileSync(out, JSON.stringify(rep, null, 2) + '\n');
    console.log(table(rep));
    console.log('');
    console.log(compareTable(compareRef, rounds, rows));
  } finally {
    if (!keep) spawnSync('git', ['worktree', 'remove', '--force', baseTree], { cwd: root, stdio: 'inherit' });
  }
}
console.error(`bench: report written to ${out}`);
