/**
 * Type assertions (`x as T`, `<T>x`; `as const` asserts nothing) are where the compiler stops checking: the
 * shipped sources keep at most CAST_BUDGET of them, counted by scripts/count-casts.mjs
 * (`node scripts/count-casts.mjs` prints the total and per folder). A new cast fails this test: express the
 * type instead (a schema's z.infer, a guard, a typed table), or lower another and say why in review.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { countCasts, countCastsInText } from '../../scripts/count-casts.mjs';

/** The most casts the shipped sources may hold; lower it when a cast goes, never raise it to fit a new one. */
const CAST_BUDGET = 185;

test('the counter counts `as T` and `<T>x`, not `as const`', () => {
  const text = "const a = x as string;\nconst b = <number>y;\nconst c = [1] as const;\nconst d = z as unknown as Date;\n";
  assert.equal(countCastsInText('t.ts', text), 4);
  assert.equal(countCastsInText('t.ts', 'const e = { a: 1 } as const;'), 0);
});

test(`the shipped sources hold at most ${CAST_BUDGET} casts`, () => {
  const report = countCasts(resolve(__dirname, '../..'));
  assert.ok(report.total <= CAST_BUDGET, `${report.total} casts, over the budget of ${CAST_BUDGET}: ${JSON.stringify(report.folders)}`);
});

test('the counter exits quietly when its reader stops early (`| head -1`: EPIPE)', () => {
  const script = resolve(__dirname, '../../scripts/count-casts.mjs');
  const r = spawnSync('sh', ['-c', `"${process.execPath}" "${script}" | head -c 1 >/dev/null; sleep 0.5; exit 0`], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.doesNotMatch(r.stderr, /EPIPE|Error/);
});
