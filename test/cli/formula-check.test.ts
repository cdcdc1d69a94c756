// Formula errors in `tsq check` and `tsq tml validate` (the built `tsq`, a child process; node esbuild.mjs
// first) against a real emulator: an Answer TML whose `formulas[].expr` has each class of error is
// refused (exit 1) with one line at the place inside the YAML string, naming the function or column (and
// a loop through another formula, naming both); `tsq check --offline` still reports what needs no data source (syntax, unknown function, arity).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

/** An Answer TML over the demo's flights with the formulas `[name, expr]` (each expr double-quoted) and a search. */
const answerOf = (formulas: readonly (readonly [string, string])[], query: string) => `guid: null
answer:
  name: Formula check
  tables:
  - id: flights
    name: flights
  formulas:
${formulas.map(([name, expr]) => `  - id: formula_${name}\n    name: ${name}\n    expr: "${expr}"\n`).join('')}  search_query: "${query}"
`;

/** An Answer TML over the demo's flights with one formula `F` of expression `expr`. */
const answer = (expr: string) => answerOf([['F', expr]], '[origin] [formula_F]');

/** Two formulas that reach themselves through each other: A names B, B names A by its id. */
const LOOP = answerOf([['A', '[B] + 1'], ['B', '[formula_A] * 2']], '[origin] [formula_A]');

/** `file:line:col` (1-based) of `marked` inside the `expr:` line holding `expr` (its end when `marked` is empty). */
function placeOf(text: string, expr: string, marked: string): { line: number; col: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(`expr: "${expr}"`)) + 1;
  const exprAt = lines[line - 1]!.indexOf('"') + 1;
  return { line, col: (marked ? exprAt + expr.indexOf(marked) : exprAt + expr.length) + 1 };
}

/** Each class: the expression, the text marked, its code, what the message names, and whether --offline sees it. */
const CASES = [
  { name: 'unknown-function', expr: 'summ ( [delay] )', marked: 'summ', code: 'formula.unknownFunction', names: /summ.*sum/, offline: true },
  { name: 'arity', expr: 'sum ( [delay] , 2 )', marked: 'sum', code: 'formula.arity', names: /sum takes 1 argument/, offline: true },
  { name: 'argument-type', expr: 'sum ( [origin] )', marked: '[origin]', code: 'formula.argumentType', names: /sum .*\[origin\]/, offline: false },
  { name: 'nested-aggregate', expr: 'sum ( count ( [delay] ) )', marked: 'count', code: 'formula.aggregation', names: /sum aggregates/, offline: true },
  { name: 'unknown-column', expr: '[delai] * 2', marked: '[delai]', code: 'formula.unknownColumn', names: /\[delai\].*\[delay\]/, offline: false },
  { name: 'self-reference', expr: '[F] + 1', marked: '[F]', code: 'formula.cycle', names: /F → F/, offline: true },
  { name: 'syntax', expr: 'if [delay] > 3 then', marked: '', code: 'formula.syntax', names: /Expected a value/, offline: true },
];

describe('formula errors in tsq check and tsq tml validate', () => {
  const fx = liveFixture('tsq-formula-', {}, async () => {
    writeFileSync(join(fx.dir, 'good.answer.tml'), answer('sum ( [delay] ) / sum ( [distance] )'));
    for (const c of CASES) writeFileSync(join(fx.dir, `${c.name}.answer.tml`), answer(c.expr));
    writeFileSync(join(fx.dir, 'loop.answer.tml'), LOOP);
  });

  test('a valid formula: no diagnostic, exit 0, in both', async () => {
    for (const args of [['check', 'good.answer.tml'], ['tml', 'validate', 'good.answer.tml']]) {
      const r = await tsq([...args, ...fx.conn], { env: ENV, cwd: fx.dir });
      assert.equal(r.stdout, '', r.stdout + r.stderr);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  test('tsq tml import: an answer with a valid formula is imported (OK and its GUID); one with a wrong formula is not sent', async () => {
    const ok = await tsq(['tml', 'import', 'good.answer.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /: OK [0-9a-f-]{36}/);
    const bad = await tsq(['tml', 'import', 'unknown-column.answer.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /formula\.unknownColumn/);
  });
  for (const c of CASES) {
    test(`${c.name}: one error at its place inside expr, naming it; exit 1`, async () => {
      const file = `${c.name}.answer.tml`;
      const { line, col } = placeOf(answer(c.expr), c.expr, c.marked);
      for (const args of [['check', file, ...fx.conn], ['tml', 'validate', file, ...fx.conn]]) {
        const r = await tsq(args, { env: ENV, cwd: fx.dir });
        const lines = r.stdout.trim().split('\n');
        assert.equal(lines.length, 1, r.stdout + r.stderr);
        assert.ok(lines[0]!.startsWith(`${file}:${line}:${col}: error: `), `${lines[0]} (${line}:${col})`);
        assert.ok(lines[0]!.endsWith(`[${c.code}]`), lines[0]);
        assert.match(lines[0]!, c.names);
        assert.equal(r.code, 1);
      }
      const offline = await tsq(['check', '--offline', file], { env: ENV, cwd: fx.dir });
      assert.equal(offline.stdout.includes(`[${c.code}]`), c.offline, offline.stdout + offline.stderr);
    });
  }
  test('a formula that reaches itself through another: one error on the reference closing the loop, naming both; exit 1', async () => {
    const { line, col } = placeOf(LOOP, '[formula_A] * 2', '[formula_A]');
    for (const args of [['check', 'loop.answer.tml', ...fx.conn], ['tml', 'validate', 'loop.answer.tml', ...fx.conn], ['check', '--offline', 'loop.answer.tml']]) {
      const r = await tsq(args, { env: ENV, cwd: fx.dir });
      const lines = r.stdout.trim().split('\n');
      assert.equal(lines.length, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.ok(lines[0]!.startsWith(`loop.answer.tml:${line}:${col}: error: `), `${lines[0]} (${line}:${col})`);
      assert.match(lines[0]!, /B refers to itself through \[formula_A\]: A → B → A\. \[formula\.cycle\]$/);
      assert.equal(r.code, 1, args.join(' '));
    }
  });
});
