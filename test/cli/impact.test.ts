/**
 * `tsq impact COLUMN --data-source NAME` (dist/cli.js) on a folder of `.tsq` and TML files: one line per
 * use (file:line:col), never a same-named column of another data source nor a commented one; exit 1 when
 * anything uses the column, 0 when nothing does; `--format json` and `--format github`; a symbolic link
 * out of the folder is not followed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsq } from './cli-support';

const TSQ = "@datasource 'Sales'\n-- [revenue] in a comment\n[revenue] [region]\n\nsum [revenue] by [region]\n\n@datasource 'Other'\n[revenue]\n";
const ANSWER = 'answer:\n  name: A\n  tables:\n  - id: Sales\n    name: Sales\n  search_query: "[region] [Sales::revenue] top 3"\n';
const OUTSIDE = "@datasource 'Sales'\n[revenue]\n";

/** 1-based line and column of each `needle` at the given occurrences of `text`. */
function at(text: string, needle: string, skip = 0): string {
  let i = -1;
  for (let k = 0; k <= skip; k++) i = text.indexOf(needle, i + 1);
  const before = text.slice(0, i);
  return `${before.split('\n').length}:${i - before.lastIndexOf('\n')}`;
}

test('tsq impact: every use of the column of that data source, exit 1; nothing, exit 0; json and github', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tsq-impact-'));
  const outside = mkdtempSync(join(tmpdir(), 'tsq-impact-out-'));
  try {
    mkdirSync(join(root, 'q'));
    writeFileSync(join(root, 'q', 'a.tsq'), TSQ);
    writeFileSync(join(root, 'r.answer.tml'), ANSWER);
    writeFileSync(join(outside, 'x.tsq'), OUTSIDE);
    symlinkSync(outside, join(root, 'linked'));
    const run = await tsq(['impact', 'revenue', '--data-source', 'Sales'], { cwd: root });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [
      `q/a.tsq:${at(TSQ, 'revenue]', 1)}: uses [revenue] of Sales (tsq)`,
      `q/a.tsq:${at(TSQ, 'revenue]', 2)}: uses [revenue] of Sales (tsq)`,
      `r.answer.tml:${at(ANSWER, 'revenue]')}: uses [revenue] of Sales (answer)`,
    ]);
    assert.match(run.stderr, /3 uses of \[revenue\] of Sales in 2 files/);
    const none = await tsq(['impact', 'cost', '--data-source', 'Sales', '--format', 'json'], { cwd: root });
    assert.equal(none.code, 0, none.stderr);
    assert.deepEqual(JSON.parse(none.stdout), { column: 'cost', dataSource: 'Sales', uses: [] });
    const json = await tsq(['impact', 'revenue', '--data-source', 'Other', '--format', 'json'], { cwd: root });
    assert.equal(json.code, 1);
    const [line, column] = at(TSQ, 'revenue]', 3).split(':').map(Number);
    assert.deepEqual(JSON.parse(json.stdout).uses, [{ file: join('q', 'a.tsq'), line, column, kind: 'tsq' }]);
    const github = await tsq(['impact', 'region', '--data-source', 'Sales', '--format', 'github', '--dir', 'q'], { cwd: root });
    assert.equal(github.code, 1);
    assert.deepEqual(github.stdout.trim().split('\n'), [0, 1].map((k) => {
      const [l, c] = at(TSQ, 'region]', k).split(':');
      return `::warning file=q/a.tsq,line=${l},col=${c},title=tsq impact::uses [region] of Sales`;
    }));
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
