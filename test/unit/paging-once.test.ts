/**
 * Paging is written once: `pagesOfEach` of common/src/api/paging.ts (and `pagesOf`, its single-answer
 * form) is the only code that steps a page position. The scan below finds a paging loop elsewhere in
 * common/, cli/, client/ and server/: a page position (`pageNumber`, `pagenumber`, `record_offset`,
 * `batch_offset`, or `exportTmlBatch`'s offset) asked for inside a loop or from a variable that is
 * reassigned. A request builder passing one page's parameters on, or a page fetcher handed to
 * `pagesOf` computing the position from its own parameters, is not a loop and passes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { pagesOfEach } from '../../common/src/api/paging';

const root = resolve(__dirname, '../..');
const PARTS = ['common/src', 'server/src', 'client/src', 'cli/src'];
/** The one place that steps a page position. */
const PAGER = 'common/src/api/paging.ts';
/** Names of a page position in a request's parameters or body. */
const PAGE_KEYS = new Set(['pageNumber', 'pagenumber', 'record_offset', 'batch_offset']);
/** Methods taking a page position as a positional argument, and its index. */
const POSITIONAL: Record<string, number> = { exportTmlBatch: 1 };

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const isLoop = (n: ts.Node) => ts.isForStatement(n) || ts.isForInStatement(n) || ts.isForOfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
const isFunction = (n: ts.Node) => ts.isFunctionLike(n);

/** True when `node` runs in a loop of its own function (a closure defined in a loop does not count). */
function inLoop(node: ts.Node): boolean {
  for (let n = node.parent; n && !isFunction(n); n = n.parent) if (isLoop(n)) return true;
  return false;
}

/** Names of the variables a source assigns after their declaration (`=`, `+=`, `++`, …). */
function reassigned(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment && ts.isIdentifier(n.left)) out.add(n.left.text);
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(n.operator) && ts.isIdentifier(n.operand)) out.add(n.operand.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The identifiers an expression reads (not the member names of `a.b`). */
function readsOf(e: ts.Node): string[] {
  if (ts.isIdentifier(e)) return [e.text];
  if (ts.isPropertyAccessExpression(e)) return readsOf(e.expression);
  const out: string[] = [];
  ts.forEachChild(e, (c) => void out.push(...readsOf(c)));
  return out;
}

/** The lines of a source text that step a page position outside `pagesOfEach` (see the file comment). */
export function pagingLoops(fileName: string, text: string): number[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const mutable = reassigned(sf);
  const out: number[] = [];
  const check = (at: ts.Node, value: ts.Expression) => {
    if (ts.isNumericLiteral(value) || (ts.isPrefixUnaryExpression(value) && ts.isNumericLiteral(value.operand))) return;
    if (inLoop(at) || readsOf(value).some((name) => mutable.has(name))) out.push(sf.getLineAndCharacterOfPosition(at.getStart()).line + 1);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAssignment(n) && PAGE_KEYS.has(n.name.getText())) check(n, n.initializer);
    if (ts.isShorthandPropertyAssignment(n) && PAGE_KEYS.has(n.name.text)) check(n, n.name);
    if (ts.isCallExpression(n)) {
      const callee = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : ts.isIdentifier(n.expression) ? n.expression.text : '';
      const at = POSITIONAL[callee];
      const arg = at === undefined ? undefined : n.arguments[at];
      if (arg) check(n, arg);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the scan finds the paging loops TSQ had (a for loop, a page counter, a pulled offset)', () => {
  const calendars = "async function f(post) {\n  for (let offset = 0; offset < 1000; offset += 100) {\n    const page = await post({ record_offset: offset, record_size: 100 });\n    if (page.length < 100) break;\n  }\n}";
  assert.deepEqual(pagingLoops('a.ts', calendars), [3]);
  const liveboard = "async function g(client, pending) {\n  for (let page = 1; ; page++) {\n    const answer = await client.pinboardData({ id, vizIds: pending, batchSize: 10, pageNumber: page });\n    if (!answer) break;\n  }\n}";
  assert.deepEqual(pagingLoops('b.ts', liveboard), [3]);
  const pulled = "let offset = 0;\nconst next = async () => {\n  const page = await client.exportTmlBatch(kind, offset, 100);\n  offset += page.length;\n  return page;\n};";
  assert.deepEqual(pagingLoops('c.ts', pulled), [3]);
  const whileLoop = "async function h(c) {\n  let n = 1;\n  while (true) {\n    const body = { batch_offset: n * 10 };\n    n = n + 1;\n  }\n}";
  assert.deepEqual(pagingLoops('d.ts', whileLoop), [4]);
});

test('the scan lets one page pass: a request builder, a fetcher for pagesOf, a fixed first page', () => {
  const builder = "function searchData(params) {\n  const offset = params.pageNumber !== undefined ? (params.pageNumber - 1) * 10 : 0;\n  return post({ record_offset: offset, pagenumber: params.pageNumber ?? -1 });\n}";
  const fetcher = "const fetch = (pageNumber: number, size: number) => client.searchData({ pageNumber, batchSize: size });\nconst tml = (pageNumber: number, size: number) => client.exportTmlBatch(kind, (pageNumber - 1) * size, size);";
  const first = "for (const ds of sources) await client.searchData({ queryString: q, batchSize: 10, pageNumber: 1, record_offset: -1 });";
  assert.deepEqual(pagingLoops('e.ts', builder + '\n' + fetcher + '\n' + first), []);
});

test('no paging loop outside pagesOfEach (common/src/api/paging.ts)', () => {
  const found: string[] = [];
  for (const part of PARTS) {
    for (const file of files(join(root, part))) {
      const rel = relative(root, file).split('\\').join('/');
      if (rel === PAGER) continue;
      for (const line of pagingLoops(rel, readFileSync(file, 'utf8'))) found.push(`${rel}:${line}`);
    }
  }
  assert.deepEqual(found, [], 'page through pagesOf / pagesOfEach of common/src/api/paging.ts');
});

/** A liveboard of visualizations `totals` (rows each, numbered 0…), paged as pinboarddata pages; records the calls. */
function liveboard(totals: Record<string, number>) {
  const calls: [number, number, string[] | undefined][] = [];
  const fetch = async (pageNumber: number, batchSize: number, keys: readonly string[] | undefined) => {
    calls.push([pageNumber, batchSize, keys && [...keys]]);
    const from = (pageNumber - 1) * batchSize;
    return (keys ?? Object.keys(totals)).map((k) => [k, { data: Array.from({ length: Math.max(0, Math.min(batchSize, totals[k]! - from)) }, (_, i) => from + i), totalRowCount: totals[k]! }] as const);
  };
  return { calls, fetch };
}

test('pagesOfEach: one request pages every visualization still short, each to its end or the row limit', async () => {
  const s = liveboard({ a: 5, b: 25, c: 100 });
  const rows: Record<string, number[]> = {};
  const last: Record<string, { done: boolean; limited: boolean }> = {};
  for await (const pages of pagesOfEach(s.fetch, { pageSize: 10, maxRows: 30 })) {
    for (const p of pages) {
      (rows[p.key] ??= []).push(...p.rows);
      last[p.key] = { done: p.done, limited: p.limited };
    }
  }
  assert.deepEqual(s.calls, [[1, 10, undefined], [2, 10, ['b', 'c']], [3, 10, ['b', 'c']]]);
  assert.equal(rows.a!.length, 5);
  assert.deepEqual(rows.b, Array.from({ length: 25 }, (_, i) => i));
  assert.deepEqual(rows.c, Array.from({ length: 30 }, (_, i) => i));
  assert.deepEqual(last, { a: { done: true, limited: false }, b: { done: true, limited: false }, c: { done: true, limited: true } });
});
