/**
 * Column types are declared once, in the table `COLUMN_TYPES` of common/src/model.ts (name, family,
 * display hint): the type, the list and every family's members are derived from it. This test reads the
 * shipped sources with the TypeScript compiler API and fails on a second list of column type names written
 * elsewhere: an array literal, a union type or an `||` chain of comparisons naming two or more of them.
 * A mapping keyed by type (a switch, a record) is not a list and passes: the compiler checks it whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { COLUMN_DATA_TYPES, COLUMN_TYPES, isFamily, typesOf } from '../../common/src/model';

const root = resolve(__dirname, '../..');
const PARTS = ['common/src', 'server/src', 'client/src', 'client/webview', 'emulator/src', 'cli/src'];
const NAMES: ReadonlySet<string> = new Set(COLUMN_DATA_TYPES);

/**
 * Lists allowed outside model.ts, as `file: names joined by ','`, each with its reason:
 * - inputTable.ts: the order in which a new input table's column type is inferred, narrowest first
 *   (a policy of the load, not the vocabulary).
 */
const ALLOWED = new Set(['common/src/load/inputTable.ts: INT64,DOUBLE,DATE,DATE_TIME,BOOL']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The column type names an `||` chain compares with (`t === 'DATE' || t === 'DATE_TIME'`). */
function chainNames(node: ts.Expression, out: string[]): void {
  if (ts.isParenthesizedExpression(node)) return chainNames(node.expression, out);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.BarBarToken) {
    chainNames(node.left, out);
    chainNames(node.right, out);
  } else if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) {
    for (const side of [node.left, node.right]) if (ts.isStringLiteral(side) && NAMES.has(side.text)) out.push(side.text);
  }
}

/** The lists of column type names a source text writes, as `names joined by ','`. */
export function typeLists(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lists: string[] = [];
  const keep = (names: string[]) => { if (new Set(names).size >= 2) lists.push(names.join(',')); };
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) keep(node.elements.filter(ts.isStringLiteral).map((e) => e.text).filter((t) => NAMES.has(t)));
    else if (ts.isUnionTypeNode(node)) keep(node.types.flatMap((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) && NAMES.has(t.literal.text) ? [t.literal.text] : [])));
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.BarBarToken && !(ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
      const names: string[] = [];
      chainNames(node, names);
      keep(names);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return lists;
}

test('the scan finds a list in an array, a union and an || chain, not in a switch', () => {
  assert.deepEqual(typeLists('a.ts', "const a = ['INT32', 'INT64'];"), ['INT32,INT64']);
  assert.deepEqual(typeLists('a.ts', "type T = 'DATE' | 'DATE_TIME';"), ['DATE,DATE_TIME']);
  assert.deepEqual(typeLists('a.ts', "const d = t === 'DATE' || (t === 'DATE_TIME' || x);"), ['DATE,DATE_TIME']);
  assert.deepEqual(typeLists('a.ts', "switch (t) { case 'DATE': case 'TIME': break; }\nconst one = t === 'BOOL' || u;"), []);
});

test('the families are derived from the one table', () => {
  assert.deepEqual(typesOf('number'), ['INT32', 'INT64', 'FLOAT', 'DOUBLE']);
  assert.deepEqual(typesOf('date'), ['DATE', 'DATE_TIME']);
  assert.deepEqual(COLUMN_DATA_TYPES, Object.keys(COLUMN_TYPES));
  assert.equal(isFamily('UNKNOWN', 'text'), false);
});

test('no source outside model.ts writes a list of column types', () => {
  const found: string[] = [];
  for (const part of PARTS) {
    for (const file of files(join(root, part))) {
      const rel = relative(root, file).split('\\').join('/');
      if (rel === 'common/src/model.ts') continue;
      for (const list of typeLists(rel, readFileSync(file, 'utf8'))) if (!ALLOWED.has(`${rel}: ${list}`)) found.push(`${rel}: ${list}`);
    }
  }
  assert.deepEqual(found, [], 'derive these from COLUMN_TYPES of common/src/model.ts (typesOf, isFamily, displayOf)');
});
