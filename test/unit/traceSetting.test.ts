/**
 * `tsq.trace.server` works because vscode-languageclient reads `<client id>.trace.server` by itself: the
 * setting must be contributed with the values the library understands, and the LanguageClient of the
 * extension must be created with the id `tsq`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** Every .ts file below a folder. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('tsq.trace.server is contributed with the values vscode-languageclient reads', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const setting = manifest.contributes.configuration.properties['tsq.trace.server'];
  assert.ok(setting, 'package.json contributes tsq.trace.server');
  assert.deepEqual(setting.enum, ['off', 'messages', 'verbose']);
  assert.equal(setting.default, 'off');
});

test("the extension's LanguageClient has the id tsq, so it reads tsq.trace.server", () => {
  const ids = tsFiles(join(root, 'client', 'src')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/new LanguageClient\(\s*'([^']*)'/g)].map((m) => m[1]));
  assert.deepEqual(ids, ['tsq']);
});
