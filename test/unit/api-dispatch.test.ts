/**
 * The v1/v2 choice is made once: `apiFor` of common/src/api/index.ts sends every operation both
 * generations implement on the one `generationFor` chooses from the operations table. A hand-written
 * `=== 'v2'` switch elsewhere fails here (the allow-list says why each remaining one is not an
 * operation's dispatch). Paging is written once, `pagesOf` of common/src/api/paging.ts, used by both API
 * classes and the extension's results (test/unit/paging-once.test.ts fails on a paging loop elsewhere).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { pagesOf } from '../../common/src/api/paging';

const root = resolve(__dirname, '../..');
const PARTS = ['common/src', 'server/src', 'client/src', 'cli/src'];

/**
 * Comparisons with a generation allowed, as `file:function`:
 * - index.ts `generationFor` (the choice from the table) and `apiFor` (the one dispatch on it);
 * - index.ts `usesBearer`: how a call authenticates, not which API it goes to;
 * - pipeline.ts `loadPathOf`: which way a load goes (data-load API or input tables), a choice of the pipeline;
 * - connectionConfig.ts `apiVersionOf`: reads the setting's value.
 */
const ALLOWED = new Set(['common/src/api/index.ts:generationFor', 'common/src/api/index.ts:apiFor', 'common/src/api/index.ts:usesBearer', 'common/src/load/pipeline.ts:loadPathOf', 'common/src/connectionConfig.ts:apiVersionOf']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The name of the function around a node. */
function enclosing(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessor(n)) && n.name) return n.name.getText();
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isVariableDeclaration(n.parent)) return n.parent.name.getText();
  }
  return '(top level)';
}

/** The places of a source text comparing with 'v1' or 'v2' (`===`, `!==`, `case`), as function names. */
export function generationSwitches(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const isGeneration = (e: ts.Node) => ts.isStringLiteral(e) && (e.text === 'v1' || e.text === 'v2');
  const visit = (node: ts.Node): void => {
    const compares = ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(node.operatorToken.kind) && (isGeneration(node.left) || isGeneration(node.right));
    if (compares || (ts.isCaseClause(node) && isGeneration(node.expression))) out.push(enclosing(node));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

test('the scan finds a comparison and a case with a generation', () => {
  assert.deepEqual(generationSwitches('a.ts', "function f(g: string) { return g === 'v2' ? 1 : 2; }\nconst h = (g: string) => { switch (g) { case 'v1': return 0; } };"), ['f', 'h']);
});

test('no operation chooses its generation by hand outside apiFor', () => {
  const found: string[] = [];
  for (const part of PARTS) {
    for (const file of files(join(root, part))) {
      const rel = relative(root, file).split('\\').join('/');
      for (const fn of generationSwitches(rel, readFileSync(file, 'utf8'))) if (!ALLOWED.has(`${rel}:${fn}`)) found.push(`${rel}:${fn}`);
    }
  }
  assert.deepEqual(found, [], "send the operation through apiFor (common/src/api/index.ts), which reads the operations table");
});

/** An answer of `total` rows numbered 0…, paged as the service pages by `pagenumber`; records the calls. */
function pagedService(total: number) {
  const calls: [number, number][] = [];
  const fetch = async (pageNumber: number, batchSize: number) => {
    calls.push([pageNumber, batchSize]);
    const from = (pageNumber - 1) * batchSize;
    return { data: Array.from({ length: Math.max(0, Math.min(batchSize, total - from)) }, (_, i) => from + i), totalRowCount: total };
  };
  return { calls, fetch };
}

test('pagesOf: fixed pages until a short one, every row once', async () => {
  const s = pagedService(23);
  const rows: number[] = [];
  for await (const p of pagesOf(s.fetch, { pageSize: 10 })) rows.push(...p.rows);
  assert.deepEqual(rows, Array.from({ length: 23 }, (_, i) => i));
  assert.deepEqual(s.calls, [[1, 10], [2, 10], [3, 10]]);
});

test('pagesOf: a small first page, its rows skipped when page 1 repeats them, and a row limit', async () => {
  const s = pagedService(50);
  const pages: { rows: number[]; done: boolean; limited: boolean }[] = [];
  for await (const p of pagesOf(s.fetch, { pageSize: 10, firstPageSize: 3, maxRows: 25, askAhead: true })) pages.push({ rows: p.rows, done: p.done, limited: p.limited });
  assert.deepEqual(pages.flatMap((p) => p.rows), Array.from({ length: 25 }, (_, i) => i));
  assert.deepEqual(s.calls, [[1, 3], [1, 10], [2, 10], [3, 10]]);
  assert.deepEqual(pages.at(-1), { rows: [20, 21, 22, 23, 24], done: true, limited: true });
});

test('paging is written once: both API classes and the results use pagesOf', () => {
  for (const file of ['common/src/api/publicApi.ts', 'common/src/api/publicApiV2.ts', 'client/src/results/run.ts']) {
    assert.match(readFileSync(join(root, file), 'utf8'), /\bpagesOf\(/, `${file} pages through pagesOf`);
  }
});
