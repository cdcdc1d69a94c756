/**
 * Dependencies are declared where they are used: a package the shipped code (common/, server/, client/,
 * cli/, emulator/) imports or resolves at run time is in `dependencies`; every entry of `dependencies`
 * is used by that code; a package only the tests, scripts and build use is a devDependency.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const shipped = ['common/src', 'server/src', 'client/src', 'client/webview', 'cli/src', 'emulator/src'];

/** Every .ts file below a folder. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The packages a source text imports, `import()`s, `require()`s or `require.resolve()`s (type-only imports aside). */
function packagesOf(text: string): string[] {
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'";]*?from\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\b(?:import|require|require\.resolve)\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
  ];
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]));
}

const used = new Map<string, string>();
for (const dir of shipped) for (const f of tsFiles(join(root, dir))) for (const p of packagesOf(readFileSync(f, 'utf8'))) if (!used.has(p)) used.set(p, f.slice(root.length + 1));

test('every package the shipped code uses at run time is a dependency', () => {
  assert.ok(used.has('undici') && used.has('vega-datasets'), 'the scan finds imports and require.resolve');
  const misplaced = [...used].filter(([p]) => p !== 'vscode' && !(p in manifest.dependencies)).map(([p, f]) => `${p} (${f})`);
  assert.deepEqual(misplaced, []);
});

test('every dependency is used by the shipped code; the rest are devDependencies', () => {
  const unused = Object.keys(manifest.dependencies).filter((p) => !used.has(p));
  assert.deepEqual(unused, [], 'dependencies no shipped code imports (move them to devDependencies, or remove them)');
  const both = Object.keys(manifest.dependencies).filter((p) => p in manifest.devDependencies);
  assert.deepEqual(both, []);
});
