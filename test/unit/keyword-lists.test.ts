/**
 * The typed lists of the keyword catalogue (units, buckets, aggregations, text operators) are declared
 * once: each is the names of a record of catalogue entries in common/src/language/keywords.ts, so a unit,
 * bucket, aggregation or text operator is written once, beside its meaning and example. This test checks
 * that each list is its category of `KEYWORDS` in order, and fails on an array literal in keywords.ts
 * that writes every name of one list again (a second declaration beside the record; a subset, such as
 * the aggregations that need a number, is a fact of its own).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { AGGREGATIONS, DATE_BUCKETS, DATE_UNITS, KEYWORDS, TEXT_OPERATORS, type KeywordCategory } from '../../common/src/language/keywords';

const names = (category: KeywordCategory) => KEYWORDS.filter((k) => k.category === category).map((k) => k.name);

test('each typed list is its category of the catalogue, in order', () => {
  assert.deepEqual(AGGREGATIONS, names('aggregation'));
  assert.deepEqual(TEXT_OPERATORS, names('text'));
  assert.deepEqual(DATE_UNITS, names('dateUnit'));
  // the buckets, then the period parts that are also written after the dot (`[date].'day of quarter'`)
  assert.deepEqual(DATE_BUCKETS, [...names('bucket'), ...names('period').filter((n) => (DATE_BUCKETS as readonly string[]).includes(n))]);
  assert.equal(DATE_BUCKETS.length, names('bucket').length + 4);
});

test('keywords.ts writes no list of units, buckets, aggregations or text operators beside the records', () => {
  const text = readFileSync(join(__dirname, '../../common/src/language/keywords.ts'), 'utf8');
  const sf = ts.createSourceFile('keywords.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lists: readonly (readonly string[])[] = [AGGREGATIONS, TEXT_OPERATORS, DATE_UNITS, DATE_BUCKETS];
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) {
      const strings = node.elements.filter(ts.isStringLiteral).map((e) => e.text);
      for (const list of lists) if (list.every((n) => strings.includes(n))) found.push(`line ${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${strings.join(', ')}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  assert.deepEqual(found, []);
});
