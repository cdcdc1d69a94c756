#!/usr/bin/env node
// Packages the extension as a .vsix with @vscode/vsce.
//   node scripts/package.mjs                      production build (minified, no source maps), then package
//   node scripts/package.mjs --no-build           package the bundles already in dist/ (the end-to-end
//                                                 harness does this: a rebuild would rewrite dist/ under
//                                                 the feet of tests running in parallel)
//   node scripts/package.mjs --out FILE.vsix      where to write it (default tsq-<version>.vsix)
//   node scripts/package.mjs --help               the usage (an unknown flag exits 2)
// The bundles are self-contained, so vsce runs with --no-dependencies; .vscodeignore is an
// allow-list of what goes in. README.md links to files of the repository (docs/*.png, emulator/README.md);
// the manifest names no repository to rewrite them against, so vsce would refuse them: they are kept
// as written (--no-rewrite-relative-links). A build for release (without --no-build) first runs the
// type check and the linter and refuses to package when either fails. Prints the .vsix path on its last line; exits non-zero on failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const USAGE = 'usage: node scripts/package.mjs [--no-build] [--out FILE.vsix]';
/** @type {{ 'no-build'?: boolean, out?: string, help?: boolean }} */
let flags;
try {
  ({ values: flags } = parseArgs({ options: { 'no-build': { type: 'boolean' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
} catch (e) {
  console.error(`package: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  process.exit(2);
}
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
const noBuild = flags['no-build'] === true;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(flags.out ? flags.out : join(root, `${manifest.name}-${manifest.version}.vsix`));

/**
 * Runs a command in the repository root with inherited output; exits with its status on failure.
 * @param {string} what
 * @param {string} cmd
 * @param {string[]} cmdArgs
 */
function run(what, cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    console.error(`package: ${what} failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(r.status || 1);
  }
}

if (!noBuild) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  run('the type check (npm run typecheck)', npm, ['run', '--silent', 'typecheck']);
  run('the linter (npm run lint)', npm, ['run', '--silent', 'lint']);
}
if (!noBuild) run('production build', process.execPath, [join(root, 'esbuild.mjs'), '--production']);
for (const f of ['dist/client.js', 'dist/server.js']) {
  if (!existsSync(join(root, f))) {
    console.error(`package: ${f} is missing; run 'npm run build' first (or drop --no-build)`);
    process.exit(1);
  }
}
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
if (!existsSync(vsce)) {
  console.error("package: @vscode/vsce is not installed; run 'npm install'");
  process.exit(1);
}
mkdirSync(dirname(out), { recursive: true });
run('vsce package', process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out]);
console.log(out);
