#!/usr/bin/env node
// Runs every benchmark module under test/bench (`*.bench.ts`, each exporting
// `run(): Promise<Record<string, unknown>>`) and writes one JSON report.
//   npm run bench                      all benchmarks, report in .bench/report.json
//   npm run bench -- language          only test/bench/language.bench.ts
//   BENCH_OUT=path npm run bench        report elsewhere
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';

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
// Each module runs in its own process so that memory figures are its own.
const report = { date: new Date().toISOString(), node: process.version, results: {} };
for (const m of modules.sort()) {
  const name = m.replace('.bench.ts', '');
  const tmp = join(root, '.bench', `${name}.json`);
  console.error(`bench: ${name}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'scripts', 'bench-one.mjs'), join(dir, m), tmp], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) { report.results[name] = { error: `exit ${r.status}` }; continue; }
  report.results[name] = JSON.parse((await import('node:fs')).readFileSync(tmp, 'utf8'));
}
(await import('node:fs')).writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report, null, 2));
console.error(`bench: report written to ${out}`);
