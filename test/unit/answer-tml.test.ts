// `*.answer.tml` files (common/src/tml/answerTml.ts): the shape checks (syntax, required members,
// unknown members as warnings) and the embedded search_query checked by the language service, each
// diagnostic on the characters of the YAML string that hold the column: plain, double-quoted with
// escapes, single-quoted, literal and folded block scalars; a Liveboard TML's visualizations likewise.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { validateAnswerTml } from '../../common/src/tml/answerTml';
import { validateTml, withTml } from '../../common/src/tml/tmlService';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()]) });
const DS = flightsCatalog().name;

/** The text a diagnostic's range covers. */
function covered(text: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const lines = text.split('\n');
  const off = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return text.slice(off(r.start), off(r.end));
}

const answer = (query: string) => `guid: 6f853b5f-c9be-57d2-8b22-c0c34d1ce706\nanswer:\n  name: A\n  tables:\n  - id: ${DS}\n    name: ${DS}\n  search_query: ${query}\n`;

describe('the embedded search_query', () => {
  for (const [style, query, expect] of [
    ['plain', 'top 5 [origin] [nope]', 'nope'],
    ['double-quoted', '"[origin] [nope]"', 'nope'],
    ['double-quoted after escapes', '"[origin]\\t\\u0020[nope]"', 'nope'],
    ['single-quoted with a doubled quote', "'[origin] = ''SEA'' [nope]'", 'nope'],
    ['literal block', '|\n    [origin]\n    [nope]', 'nope'],
    ['folded block', '>\n    [origin]\n    [nope]', 'nope'],
  ] as const) {
    test(`${style}: the unknown column is marked inside the YAML string`, async () => {
      const text = answer(query);
      const ds = await validateAnswerTml(ls, 'file:///a.answer.tml', text);
      const unknown = ds.filter((d) => d.code === 'tsq.unknownColumn');
      assert.equal(unknown.length, 1, JSON.stringify(ds));
      assert.equal(covered(text, unknown[0]!.range), expect);
    });
  }
  test('a valid query: no diagnostic', async () => {
    assert.deepEqual(await validateAnswerTml(ls, 'file:///a.answer.tml', answer('"[origin] [delay] top 10"')), []);
  });
});

describe('the shape', () => {
  test('not YAML: one syntax error (thoughtspot_tml BAD_DUMMY.answer.tml)', async () => {
    const ds = await validateAnswerTml(ls, 'u', 'guid: d00f3754-15a9-4a7a-a3d5-3248ad19aa9d\n  answer:\n');
    assert.equal(ds[0]?.code, 'tml.syntax');
  });
  test('unknown top-level members are warnings; missing members are errors', async () => {
    const ds = await validateAnswerTml(ls, 'u', 'answer:\n  name: A\n  colour: red\nextra: 1\n');
    const w = ds.filter((d) => d.severity === DiagnosticSeverity.Warning).map((d) => String(d.message));
    assert.deepEqual(w.sort(), ['Unknown member colour of answer.', 'Unknown top-level member extra of an Answer TML (expected guid, obj_id, answer).']);
    const e = ds.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => String(d.message));
    assert.ok(e.some((m) => /answer.tables is missing/.test(m)) && e.some((m) => /search_query is missing/.test(m)), JSON.stringify(e));
  });
});

describe('completion inside search_query, and the wrapped language service', () => {
  const wrapped = withTml(ls);
  const doc = (text: string) => TextDocument.create('file:///w/a.answer.tml', 'tsq-answer-tml', 1, text);
  test('a column at the cursor inside a double-quoted query, its edit on the YAML string with quotes escaped', async () => {
    const text = answer('"[origin] [de"');
    const d = doc(text);
    const at = text.indexOf('[de') + 3;
    const list = await wrapped.doComplete(d, d.positionAt(at));
    const delay = list.items.find((i) => i.label === 'delay');
    assert.ok(delay, JSON.stringify(list.items.map((i) => i.label)));
    const edit = delay.textEdit as { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string };
    assert.equal(covered(text, edit.range), 'de');
    assert.equal(edit.newText, 'delay]');
  });
  test('outside the query: no items; .tsq-only features answer nothing for a TML file (hover goes through the query); a .tsq file is unchanged', async () => {
    const text = answer('"[origin]"');
    const d = doc(text);
    assert.deepEqual((await wrapped.doComplete(d, d.positionAt(text.indexOf('name: A') + 2))).items, []);
    assert.deepEqual(wrapped.getSemanticTokens(d), { data: [] });
    assert.deepEqual(wrapped.findDocumentSymbols(d), []);
    const tsqHover = await ls.doHover(TextDocument.create('file:///w/h.tsq', 'tsq', 1, `@datasource '${DS}'\n[origin]\n`), { line: 1, character: 2 });
    assert.ok(tsqHover, 'the .tsq hover of origin');
    assert.deepEqual((await wrapped.doHover(d, d.positionAt(text.indexOf('[origin]') + 2)))?.contents, tsqHover?.contents);
    assert.equal(await wrapped.doHover(d, d.positionAt(text.indexOf('name: A') + 7)), null);
    const tsq = TextDocument.create('file:///w/q.tsq', 'tsq', 1, `@datasource '${DS}'\n[origin] [nope]\n`);
    assert.deepEqual(await wrapped.doValidation(tsq), await ls.doValidation(tsq));
  });
});

describe('a Liveboard TML (common/src/tml/liveboardTml.ts)', () => {
  const board = (q1: string, q2: string, extra = '') =>
    `guid: 4c6e8502-1695-4dc4-b0b0-215dae7a6d71\nliveboard:\n  name: Ops\n  visualizations:\n  - id: Viz_1\n    answer:\n      name: One\n      tables:\n      - name: ${DS}\n      search_query: ${q1}\n  - id: Viz_2\n    answer:\n      name: Two\n      tables:\n      - name: ${DS}\n      search_query: ${q2}\n${extra}  layout:\n    tiles:\n    - visualization_id: Viz_1\n`;
  test('each visualization\'s search_query is checked against its data source, the column marked inside its YAML string', async () => {
    const text = board('"[origin] [delay]"', '"[origin]\\t\\u0020[nope]"');
    const ds = await validateTml(ls, 'file:///w/ops.liveboard.tml', text);
    const unknown = ds.filter((d) => d.code === 'tsq.unknownColumn');
    assert.equal(unknown.length, 1, JSON.stringify(ds));
    assert.equal(covered(text, unknown[0]!.range), 'nope');
    assert.equal(unknown[0]!.range.start.line, text.split('\n').findIndex((l) => l.includes('[nope]')));
  });
  test('shape: a visualization without id or answer is an error, unknown members are warnings; the pinboard name is read too', async () => {
    const text = board('"[origin]"', '"[delay]"', '  - answer_only: 1\n  colour: red\n');
    const ds = await validateTml(ls, 'file:///w/ops.liveboard.tml', text);
    const errors = ds.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => String(d.message));
    assert.ok(errors.some((m) => /liveboard\.visualizations\[2\]\.id is missing/.test(m)) && errors.some((m) => /visualizations\[2\] has neither answer nor note_tile/.test(m)), JSON.stringify(errors));
    const warnings = ds.filter((d) => d.severity === DiagnosticSeverity.Warning).map((d) => String(d.message));
    assert.ok(warnings.includes('Unknown member colour of liveboard.') && warnings.includes('Unknown member answer_only of liveboard.visualizations[2].'), JSON.stringify(warnings));
    const old = board('"[origin]"', '"[nope]"').replace('liveboard:', 'pinboard:');
    assert.deepEqual((await validateTml(ls, 'file:///w/old.liveboard.tml', old)).map((d) => d.code), ['tsq.unknownColumn']);
  });
});
