#!/usr/bin/env node
// Runs the test suite with Node's own test runner (node:test), TypeScript through tsx: it builds the
// bundles, then runs every `*.test.ts` under test/ (or under the tier folders named).
//   node scripts/run-tests.mjs                 all tiers
//   node scripts/run-tests.mjs unit protocol   only test/unit and test/protocol
//   node scripts/run-tests.mjs unit --list     the test files it would run, and nothing else
// A name that is not a tier folder under test/ exits 2. A run of every tier first runs the gates: the
// type check (`npm run typecheck`: the Node.js, webview and test projects, JavaScript included) and the
// linter (every .ts, .js and .mjs file, the import boundaries included); either failing fails the run.
// The end-to-end tier needs scripts/install-e2e-tools.sh; CI sets TSQ_E2E_REQUIRED=1 so that missing
// tools fail the run instead of skipping it.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tiers = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const list = process.argv.includes('--list');
const unknownTiers = tiers.filter((t) => !existsSync(join(root, 'test', t)) || !statSync(join(root, 'test', t)).isDirectory());
if (unknownTiers.length) {
  console.error(`run-tests: no tier named ${unknownTiers.join(', ')}; the tiers are the folders of test/ (unit, protocol, …)`);
  process.exit(2);
}
const folders = (tiers.length ? tiers : ['unit', 'grammar', 'protocol', 'emulator', 'conformance', 'cli', 'faults', 'e2e']).map((t) => join(root, 'test', t));

/**
 * Lists `*.test.ts` files below a folder, sorted, skipping fixtures.
 * @param {string} dir
 * @returns {string[]}
 */
function findTests(dir) {
  if (!existsSync(dir)) return [];
  /** @type {string[]} */
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'fixtures' && name !== 'node_modules') out.push(...findTests(p));
    } else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Runs one gate (an npm script) and exits with its status when it fails. @param {string} script */
function gate(script) {
  console.log(`> npm run ${script}`);
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error(`npm test: ${script} failed; no test was run.`);
    process.exit(r.status ?? 1);
  }
}
if (list) {
  const listed = folders.flatMap(findTests);
  for (const f of listed) console.log(f.slice(root.length));
  process.exit(listed.length ? 0 : 1);
}
if (tiers.length === 0) {
  gate('typecheck');
  gate('lint');
}

const build = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const files = folders.flatMap(findTests);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// A test that hangs (an npm fetch retried for an hour, a child that never exits) fails after 25 minutes
// instead of running the whole run past CI's limit; a file whose tests are done exits even if a handle is
// left open.
const args = ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-timeout=1500000', '--test-force-exit', ...process.argv.slice(2).filter((a) => a.startsWith('-')), ...files];
const run = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: process.env });
process.exit(run.status ?? 1);
