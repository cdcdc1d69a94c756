// Formulas in Answer TML and Liveboard TML (common/src/tml/answerFormulas.ts): each `formulas[].expr`
// checked against the answer's data sources and other formulas, its diagnostics on the characters of the
// YAML string; a formula column typed from its expression in the search; completion and hover in `expr`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { validateTml, withTml } from '../../common/src/tml/tmlService';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()]) });
const DS = flightsCatalog().name;

function covered(text: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const lines = text.split('\n');
  const off = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return text.slice(off(r.start), off(r.end));
}

/** An Answer TML with formulas given as `[name, expr as written in YAML]` and a search. */
const answer = (formulas: [string, string][], query: string) => `guid: null
answer:
  name: A
  tables:
  - id: ${DS}
    name: ${DS}
  formulas:
${formulas.map(([n, e]) => `  - id: formula_${n}\n    name: ${n}\n    expr: ${e}\n`).join('')}  search_query: ${query}
`;

describe('diagnostics of formulas[].expr', () => {
  for (const [what, expr, code, marked, message] of [
    ['unknown function', '"summ ( [delay] )"', 'formula.unknownFunction', 'summ', /Did you mean sum/],
    ['arity', "'substr ( [origin] , 1 )'", 'formula.arity', 'substr ( [origin] , 1 )', /substr takes 3 arguments, not 2/],
    ['text passed to sum', 'sum ( [origin] )', 'formula.argumentType', '[origin]', /sum takes number .*\[origin\]/],
    ['aggregate inside aggregate', '"sum ( count ( [delay] ) )"', 'formula.aggregation', 'count ( [delay] )', /sum aggregates/],
    ['unknown column', '"[dleay] * 2"', 'formula.unknownColumn', '[dleay]', /Unknown column \[dleay\]\. Did you mean \[delay\]/],
    ['syntax', '"if [delay] > 3 then 1 else"', 'formula.syntax', '', /Expected a value/],
  ] as const) {
    test(`${what}: marked inside the YAML string, naming the function or column`, async () => {
      const text = answer([['F', expr]], '"[origin] [F]"');
      const ds = (await validateTml(ls, 'file:///a.answer.tml', text)).filter((d) => String(d.code).startsWith('formula.'));
      assert.equal(ds.length, 1, JSON.stringify(ds));
      assert.equal(ds[0]!.code, code);
      assert.equal(covered(text, ds[0]!.range), marked);
      assert.match(String(ds[0]!.message), message);
    });
  }
  test('a formula that refers to itself through another: the loop named', async () => {
    const text = answer([['A', '"[B] + 1"'], ['B', '"[formula_A] * 2"']], '"[origin] [A]"');
    const ds = (await validateTml(ls, 'file:///a.answer.tml', text)).filter((d) => d.code === 'formula.cycle');
    assert.equal(ds.length, 1, JSON.stringify(ds));
    assert.match(String(ds[0]!.message), /A → B → A/);
    assert.equal(covered(text, ds[0]!.range), '[formula_A]');
  });
  test('valid formulas, one naming another: no diagnostic; a formula typed from its expression is checked in the search', async () => {
    const ok = answer([['Rate', '"sum ( [delay] ) / sum ( [distance] )"'], ['Haul', "\"if ( [distance] > 1000 ) then 'long' else 'short'\""], ['Twice', '"[Rate] * 2"']], "\"[origin] [formula_Rate] [Twice] [Haul] = 'long'\"");
    assert.deepEqual(await validateTml(ls, 'file:///a.answer.tml', ok), []);
    // each formula column of the search has the type its expression gives (no data_type in properties)
    const wrapped = withTml(ls);
    const d = TextDocument.create('file:///a.answer.tml', 'tsq-answer-tml', 1, ok);
    const q = ok.indexOf('search_query');
    const hover = async (name: string) => ((await wrapped.doHover(d, d.positionAt(ok.indexOf(name, q) + 2)))?.contents as { value: string }).value;
    assert.match(await hover('[Haul]'), /VARCHAR attribute/);
    assert.match(await hover('[Twice]'), /DOUBLE measure/);
  });
  test('a data source the catalog does not know: no unknown column in a formula, an unknown function still', async () => {
    const text = answer([['F', '"summ ( [anything] )"']], '"[F]"').replace(new RegExp(`name: ${DS}`, 'g'), 'name: Nowhere').replace(new RegExp(`id: ${DS}`), 'id: Nowhere');
    const ds = (await validateTml(ls, 'file:///a.answer.tml', text)).filter((d) => String(d.code).startsWith('formula.'));
    assert.deepEqual(ds.map((d) => d.code), ['formula.unknownFunction']);
  });
  test('a Liveboard visualization\'s answer: its formulas checked likewise', async () => {
    const viz = answer([['F', '"sum ( [origin] )"']], '"[origin] [F]"').replace('guid: null\n', '').replace(/^/gm, '      ').replace('      answer:', '    answer:');
    const text = `guid: null\nliveboard:\n  name: L\n  visualizations:\n  - id: Viz_1\n${viz.replace(/^ {4}answer:/m, '    answer:')}`;
    const ds = (await validateTml(ls, 'file:///l.liveboard.tml', text)).filter((d) => String(d.code).startsWith('formula.'));
    assert.deepEqual(ds.map((d) => d.code), ['formula.argumentType'], JSON.stringify(ds));
    assert.equal(covered(text, ds[0]!.range), '[origin]');
  });
});

describe('completion and hover inside expr', () => {
  const wrapped = withTml(ls);
  const doc = (text: string) => TextDocument.create('file:///w/a.answer.tml', 'tsq-answer-tml', 1, text);
  test('after [ the columns and the other formulas; elsewhere the functions too', async () => {
    const text = answer([['Other', '"[delay]"'], ['F', '"sum ( [dis"']], '"[F]"');
    const d = doc(text);
    const list = await wrapped.doComplete(d, d.positionAt(text.indexOf('[dis') + 4));
    const labels = list.items.map((i) => i.label);
    assert.ok(labels.includes('[distance]') && labels.includes('[Other]') && !labels.includes('sum'), JSON.stringify(labels));
    const edit = list.items.find((i) => i.label === '[distance]')!.textEdit as { range: never; newText: string };
    assert.equal(covered(text, edit.range), '[dis');
    const fns = await wrapped.doComplete(d, d.positionAt(text.indexOf('sum') + 2));
    assert.ok(fns.items.some((i) => i.label === 'sum') && fns.items.some((i) => i.label === 'group_aggregate'));
  });
  test('hover on a function gives its reference entry; on a column its type', async () => {
    const text = answer([['F', '"unique count ( [origin] ) + sum ( [delay] )"']], '"[F]"');
    const d = doc(text);
    const h = await wrapped.doHover(d, d.positionAt(text.indexOf('sum (') + 1));
    const value = (h?.contents as { value: string }).value;
    assert.match(value, /\*\*sum\*\* \(aggregate, aggregate function\)/);
    assert.match(value, /formula-reference#sum/);
    const u = await wrapped.doHover(d, d.positionAt(text.indexOf('count') + 1));
    assert.match((u?.contents as { value: string }).value, /unique count/);
    const c = await wrapped.doHover(d, d.positionAt(text.indexOf('[origin]') + 2));
    assert.match((c?.contents as { value: string }).value, /\[origin\].*VARCHAR/);
  });
});
