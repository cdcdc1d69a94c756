/**
 * File prefaces stay short: the leading comment block of every source file (after a `#!` line) is at
 * most 12 lines. A preface says what the file is for and where to read more; details belong beside the
 * code they describe, and benchmark figures in the bench report (npm run bench), where they do not go stale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const MAX_LINES = 12;
const parts = ['common', 'server', 'client', 'cli', 'emulator', 'scripts', 'test'];

/** Every .ts, .js and .mjs file below `dir` (fixtures and dependencies aside). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(join(dir, e.name));
    return /\.(ts|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : [];
  });
}

/** The number of lines of a text's leading comment block: one block comment, or a run of `//` lines. */
export function prefaceLines(text: string): number {
  const lines = text.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  const start = i;
  if (lines[i]?.trimStart().startsWith('/*')) {
    while (i < lines.length && !lines[i].includes('*/')) i++;
    return i + 1 - start;
  }
  while (i < lines.length && lines[i].startsWith('//')) i++;
  return i - start;
}

test('the preface measure counts a block comment and a run of line comments', () => {
  assert.equal(prefaceLines('/**\n * a\n */\nimport x;'), 3);
  assert.equal(prefaceLines('#!/usr/bin/env node\n// a\n// b\nimport x;'), 2);
  assert.equal(prefaceLines('import x;\n// late'), 0);
});

test(`every source file's preface is at most ${MAX_LINES} lines`, () => {
  const files = parts.flatMap((p) => sources(join(root, p))).concat(['esbuild.mjs', 'eslint.config.mjs'].map((f) => join(root, f)));
  assert.ok(files.length > 100);
  const long = files.map((f) => ({ f: relative(root, f), n: prefaceLines(readFileSync(f, 'utf8')) })).filter(({ n }) => n > MAX_LINES);
  assert.deepEqual(long.map(({ f, n }) => `${f}: ${n} lines`), []);
});
