/**
 * What the packaged extension holds: `vsce ls` (the files `vsce package` would put in the .vsix,
 * through the allow-list .vscodeignore) must include every file the manifest and the extension
 * load at run time — main, the language server, the webview bundles, the grammar, the language
 * configuration, icons, JSON schemas — and nothing else: no sources, tests, source maps, emulator
 * or node_modules. Needs only the built dist/ (npm run build), not the end-to-end tools.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const built = existsSync(join(ROOT, 'dist', 'client.js')) && existsSync(join(ROOT, 'dist', 'server.js'));

/** Every relative path string found in the manifest's contributes (icons, grammars, schemas, …) and main. */
function manifestPaths(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const found = new Set<string>([manifest.main.replace(/^\.\//, '')]);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (/^\.?\/?[\w.-]+\/[\w./-]+\.(json|svg|png|js|css)$/.test(v) || /^\.\/[\w.-]+\.json$/.test(v)) found.add(v.replace(/^\.\//, ''));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(manifest.contributes);
  if (typeof manifest.icon === 'string') found.add(manifest.icon.replace(/^\.\//, ''));
  return [...found].filter((p) => !p.startsWith('http'));
}

test('the .vsix holds exactly what the extension loads', { skip: built ? false : 'dist/ is not built (npm run build)' }, () => {
  const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `vsce ls failed: ${r.stderr}`);
  const files = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);

  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/client.js', 'dist/server.js']) {
    assert.ok(files.includes(f), `${f} is packaged: ${JSON.stringify(files)}`);
  }
  for (const p of manifestPaths()) {
    if (existsSync(join(ROOT, p))) assert.ok(files.includes(p), `${p} (named in package.json) is packaged`);
  }
  // Every bundle the extension loads at run time (all of dist/ but the emulator and source maps).
  for (const f of readdirSync(join(ROOT, 'dist')).filter((n) => !n.endsWith('.map') && !n.startsWith('emulator.'))) {
    assert.ok(files.includes(`dist/${f}`), `dist/${f} is packaged`);
  }
  const unwanted = files.filter((f) => /(^|\/)(src|test|node_modules|emulator|scripts|\.tools|\.test-results)\//.test(f) || f.endsWith('.map') || f.endsWith('.ts') || f === 'dist/emulator.js');
  assert.deepEqual(unwanted, [], 'nothing but the allow-list is packaged');
});
