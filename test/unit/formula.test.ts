// The formula language (common/src/formula/): the catalogue declared once (every documented example
// reads and names a function of it), the parser (lossless tokens, recovery with ranges) and the checker's
// error classes, each naming the function or column: unknown function with a did-you-mean, arity,
// argument type, aggregate inside an aggregate, unknown column, a formula that refers to itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FORMULA_FUNCTIONS, FORMULA_FUNCTION_BY_NAME } from '../../common/src/formula/functions';
import { formulaNodes, lexFormula, parseFormula } from '../../common/src/formula/parser';
import { checkFormula, checkFormulaSet, columnScope, MAX_FORMULA_CHAIN } from '../../common/src/formula/checker';
import type { Column } from '../../common/src/model';

const COLUMNS: Column[] = [
  { name: 'delay', dataType: 'INT64', kind: 'MEASURE' },
  { name: 'distance', dataType: 'DOUBLE', kind: 'MEASURE' },
  { name: 'origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
  { name: 'date', dataType: 'DATE_TIME', kind: 'ATTRIBUTE' },
];
const scope = columnScope(COLUMNS);
const codes = (expr: string): string[] => checkFormula(expr, scope).diagnostics.map((d) => d.code);

describe('the catalogue', () => {
  test('every section of the reference is there, names unique', () => {
    const names = FORMULA_FUNCTIONS.map((f) => f.name);
    assert.equal(new Set(names).size, names.length);
    const by = (c: string) => FORMULA_FUNCTIONS.filter((f) => f.category === c).length;
    assert.deepEqual([by('operator'), by('aggregate'), by('conversion'), by('date'), by('mixed'), by('number'), by('text'), by('passthrough')], [12, 39, 5, 40, 8, 26, 13, 14]);
    assert.ok(FORMULA_FUNCTIONS.length >= 150, String(FORMULA_FUNCTIONS.length));
  });
  test('each documented example parses with no syntax error, and uses its own function', () => {
    for (const f of FORMULA_FUNCTIONS) {
      const example = f.example;
      const parsed = parseFormula(example);
      assert.deepEqual(parsed.diagnostics, [], `${f.name}: ${example}`);
      if (f.syntax === 'call') assert.ok([...formulaNodes(parsed.ast)].some((n) => n.kind === 'call' && FORMULA_FUNCTION_BY_NAME.get(n.name.toLowerCase()) === FORMULA_FUNCTION_BY_NAME.get(f.name)), `${f.name}: ${example}`);
    }
  });
  test('each documented example type-checks when its columns are unknown (every column any)', () => {
    for (const f of FORMULA_FUNCTIONS) {
      const example = f.example;
      const d = checkFormula(example, columnScope(undefined)).diagnostics.filter((x) => x.code !== 'formula.aggregation');
      assert.deepEqual(d, [], `${f.name}: ${example}`);
    }
  });
});

describe('the parser', () => {
  test('lossless tokens for any text', () => {
    for (const text of ["if ( [a] > 1 ) then 'x' else \"y\"", '[t::c] + 01/30/2015 - {1, 2}', '((( [unclosed', "'open", '#$%', '']) {
      assert.equal(lexFormula(text).map((t) => t.text).join(''), text);
    }
  });
  test('precedence: and over or, comparison over and, * over +, ^ right-associative', () => {
    const ast = parseFormula('1 + 2 * 3 ^ 2 ^ 1 > 4 and not [a] or [b] in {1}').ast;
    assert.equal(ast.kind === 'binary' && ast.op, 'or');
    const sum = [...formulaNodes(ast)].find((n) => n.kind === 'binary' && n.op === '+');
    assert.ok(sum?.kind === 'binary' && sum.right.kind === 'binary' && sum.right.op === '*');
    const pow = [...formulaNodes(ast)].find((n) => n.kind === 'binary' && n.op === '^');
    assert.ok(pow?.kind === 'binary' && pow.right.kind === 'binary' && pow.right.op === '^');
  });
  test('[table::column], bare multi-word columns, `unique count (`, date literals', () => {
    const nodes = [...formulaNodes(parseFormula('unique count ([flights::origin]) + cumulative_sum (revenue, order date) + diff_days (01/15/2014 01:00:00, 01/14/2014)').ast)];
    assert.ok(nodes.some((n) => n.kind === 'call' && n.name === 'unique count'));
    assert.ok(nodes.some((n) => n.kind === 'column' && n.table === 'flights' && n.name === 'origin'));
    assert.ok(nodes.some((n) => n.kind === 'column' && !n.bracketed && n.name === 'order date'));
    assert.ok(nodes.some((n) => n.kind === 'date' && n.value === '2014-01-15 01:00:00'));
  });
  test('recovery: a missing operand, `)` or `else` is reported where it is expected, the rest still read', () => {
    const p = parseFormula('sum ([delay] + ) + count (');
    assert.ok(p.diagnostics.length >= 2 && p.diagnostics.every((d) => d.code === 'formula.syntax'));
    assert.ok([...formulaNodes(p.ast)].some((n) => n.kind === 'call' && n.name === 'count'));
    const e = parseFormula('if [delay] > 3 then 1');
    assert.match(e.diagnostics[0]!.message, /else/);
    assert.equal(e.diagnostics[0]!.start, 'if [delay] > 3 then 1'.length);
  });
  test('nesting beyond the limit is one diagnostic, no stack overflow', () => {
    const p = parseFormula('('.repeat(50_000) + '1');
    assert.ok(p.diagnostics.some((d) => d.code === 'formula.tooDeep'));
    assert.ok(parseFormula('- '.repeat(50_000) + '1').diagnostics.some((d) => d.code === 'formula.tooDeep'));
  });
});

describe('the checker', () => {
  test('types and aggregation from the catalogue', () => {
    assert.deepEqual(checkFormula('sum ( [delay] ) / sum ( [distance] )', scope).value, { type: 'number', aggregate: true });
    assert.deepEqual(checkFormula("if ( [distance] > 1000 ) then 'long' else 'short'", scope).value, { type: 'text', aggregate: false });
    assert.deepEqual(checkFormula('diff_days ([date], 01/01/2015)', scope).value, { type: 'int', aggregate: false });
    assert.deepEqual(checkFormula('group_aggregate (sum ([delay]), query_groups () + {[origin]}, query_filters ())', scope).value, { type: 'number', aggregate: true });
    assert.deepEqual(codes("day ([date], fiscal) + unique count ([origin]) + rank (sum ([delay]), 'desc')"), []);
  });
  test('unknown function, with a did-you-mean, on the name', () => {
    const [d] = checkFormula('summ ([delay])', scope).diagnostics;
    assert.equal(d?.code, 'formula.unknownFunction');
    assert.match(d!.message, /summ.*Did you mean sum/);
    assert.deepEqual([d!.start, d!.end], [0, 4]);
    assert.deepEqual(d!.suggestions?.[0], 'sum');
  });
  test('wrong number of arguments names the function and what it takes', () => {
    assert.match(checkFormula('sum ([delay], 2)', scope).diagnostics[0]!.message, /sum takes 1 argument, not 2/);
    assert.match(checkFormula("concat ('a')", scope).diagnostics[0]!.message, /concat takes 2 or more arguments, not 1/);
    assert.match(checkFormula('substr ([origin])', scope).diagnostics[0]!.message, /substr takes 3 arguments, not 1/);
  });
  test('a text passed to sum, a number to contains, a text compared with a number', () => {
    const [d] = checkFormula('sum ([origin])', scope).diagnostics;
    assert.equal(d?.code, 'formula.argumentType');
    assert.match(d!.message, /sum takes number .*not text \(\[origin\]\)/);
    assert.deepEqual(codes("contains ([delay], 'x')"), ['formula.argumentType']);
    assert.deepEqual(codes('[origin] = 3'), ['formula.argumentType']);
    assert.deepEqual(codes("[origin] = 'SEA' and [delay] > 3.5"), []);
  });
  test('an aggregate inside an aggregate, and a row value where rank wants an aggregate', () => {
    assert.match(checkFormula('sum (count ([delay]))', scope).diagnostics[0]!.message, /sum aggregates .*count/);
    assert.deepEqual(codes("rank ([delay], 'asc')"), ['formula.aggregation']);
    assert.deepEqual(codes("rank (sum ([delay]), 'asc')"), []);
  });
  test('unknown column, with a did-you-mean; none when the columns are unknown', () => {
    const [d] = checkFormula('[dlay] + 1', scope).diagnostics;
    assert.equal(d?.code, 'formula.unknownColumn');
    assert.match(d!.message, /Unknown column \[dlay\]\. Did you mean \[delay\]/);
    assert.deepEqual(checkFormula('[dlay] + 1', columnScope(undefined)).diagnostics, []);
  });
  test('formulas of one answer: each a column of the others; a loop is an error naming its formulas', () => {
    const r = checkFormulaSet([
      { id: 'formula_A', name: 'A', expr: '[B] + 1' },
      { name: 'B', expr: '[A] * 2' },
      { name: 'C', expr: '[C]' },
      { name: 'D', expr: 'sum ([delay])' },
      { name: 'E', expr: 'sum ([D])' },
      { name: 'F', expr: '[formula_A] + [D]' },
    ], COLUMNS);
    assert.deepEqual(r[1]!.diagnostics.map((d) => d.message), ['The formula B refers to itself through [A]: A → B → A.']);
    assert.deepEqual(r[2]!.diagnostics.map((d) => d.code), ['formula.cycle']);
    assert.deepEqual(r[3]!.value, { type: 'number', aggregate: true });
    assert.deepEqual(r[4]!.diagnostics.map((d) => d.code), ['formula.aggregation']);
    assert.deepEqual(r[5]!.value, { type: 'number', aggregate: true });
  });
  test('a chain of formulas longer than the bound: one diagnostic where it is cut, no stack overflow', () => {
    const n = 5000;
    const r = checkFormulaSet(Array.from({ length: n }, (_, i) => ({ name: `F${i}`, expr: i === n - 1 ? '1' : `[F${i + 1}] + 1` })), COLUMNS);
    const cut = r.flatMap((x) => x.diagnostics);
    assert.ok(cut.length > 0 && cut.every((d) => d.code === 'formula.tooDeep'), JSON.stringify(cut.slice(0, 2)));
    assert.match(cut[0]!.message, new RegExp(`through more than ${MAX_FORMULA_CHAIN} formulas`));
    assert.deepEqual(r[n - 2]!.value, { type: 'number', aggregate: false });
  });
});
