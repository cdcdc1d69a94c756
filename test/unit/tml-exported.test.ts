// TML in the shapes ThoughtSpot clusters export (issue 38; test/fixtures/exportedTml.ts on the fixture
// catalog) through the one TML check (common/src/tml): a Liveboard with a note tile, `guid: null`,
// `obj_id` and every member an exported Liveboard holds is clean; an answer over two `tables` takes a
// column of the second; an answer's `formulas` are columns of its search by id and by name, of unknown
// type without properties (no type diagnostic on them); what is wrong is still reported at its place.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { validateTml, withTml } from '../../common/src/tml/tmlService';
import { flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';
import { exportedLiveboard, formulaAnswer, twoTablesAnswer } from '../fixtures/exportedTml';

const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog(), moviesCatalog()]) });
const N = { flights: 'Flights', movies: 'Movies' };

/** The text a diagnostic's range covers. */
function covered(text: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const doc = TextDocument.create('u', 'x', 1, text);
  return text.slice(doc.offsetAt(r.start), doc.offsetAt(r.end));
}

const check = (uri: string, text: string) => validateTml(ls, uri, text);

describe('a Liveboard TML as exported', () => {
  test('a note tile, guid: null, obj_id and every exported member: no diagnostic', async () => {
    assert.deepEqual(await check('file:///w/delays.liveboard.tml', exportedLiveboard(N)), []);
  });
  test('a bad column of its answer is still reported at its place', async () => {
    const text = exportedLiveboard(N, 'delai');
    const ds = await check('file:///w/delays.liveboard.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, covered(text, d.range)]), [['tsq.unknownColumn', 'delai']]);
  });
  test('a visualization with neither answer nor note_tile is an error; an unknown member still warns', async () => {
    const text = exportedLiveboard(N).replace('    note_tile:\n      html_parsed_string: "<p>Delays are arrival delays in minutes.</p>"\n', '    colour: red\n');
    const ds = await check('file:///w/delays.liveboard.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, d.message]), [
      ['tml.unknownMember', 'Unknown member colour of liveboard.visualizations[1].'],
      ['tml.schema', 'liveboard.visualizations[1] has neither answer nor note_tile: a visualization is an answer or a note tile.'],
    ]);
  });
  test('guid: a GUID or null; another text is an error', async () => {
    const ds = await check('file:///w/delays.liveboard.tml', exportedLiveboard(N).replace('guid: null', 'guid: not-a-guid'));
    assert.deepEqual(ds.map((d) => d.message), ['guid is not a GUID (null for a new object).']);
  });
  test('every exported member hovers with its docs', async () => {
    const text = exportedLiveboard(N);
    const service = withTml(ls);
    const doc = TextDocument.create('file:///w/delays.liveboard.tml', 'tsq-liveboard-tml', 1, text);
    for (const [key, path] of [
      ['\nobj_id:', 'obj_id'],
      ['ordered_chips:', 'liveboard.ordered_chips'],
      ['note_tile:', 'liveboard.visualizations[1].note_tile'],
      ['dynamic_name:', 'liveboard.visualizations[0].answer.dynamic_name'],
      ['dynamic_description:', 'liveboard.visualizations[0].answer.dynamic_description'],
      ['parameter_values:', 'liveboard.visualizations[0].answer.parameter_values'],
      ['action_object_associations:', 'liveboard.visualizations[0].answer.action_object_associations'],
      ['    client_state_v2:', 'liveboard.visualizations[0].answer.client_state_v2'],
    ] as const) {
      const offset = (key.startsWith('\n') ? text.indexOf(key) : text.lastIndexOf(key)) + key.indexOf(key.trim()) + 1;
      const h = await service.doHover(doc, doc.positionAt(offset));
      const value = (h?.contents as { value?: string } | undefined)?.value ?? '';
      assert.ok(value.startsWith(`**${path}**`) && /\n\n.+\n\n\[https:/.test(value), `${key}: ${value}`);
    }
  });
});

describe('an Answer TML as exported', () => {
  test('two tables: a column of the second is a column of the search', async () => {
    assert.deepEqual(await check('file:///w/two.answer.tml', twoTablesAnswer(N)), []);
    const text = twoTablesAnswer(N, 'Major Genra');
    const ds = await check('file:///w/two.answer.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, covered(text, d.range)]), [['tsq.unknownColumn', 'Major Genra']]);
  });
  test('a second table the catalog does not know is reported on that table', async () => {
    const text = twoTablesAnswer(N).replace(/name: Movies\n/, 'name: Movis\n').replace('- id: Movies', '- id: Movis');
    const ds = await check('file:///w/two.answer.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, covered(text, d.range)]), [['tsq.unknownDataSource', 'Movis']], JSON.stringify(ds));
  });
  test('a table named by obj_id alone is not looked up: the search is checked for syntax only', async () => {
    const only = (q: string) => twoTablesAnswer(N).replace(/ {2}tables:\n[\s\S]*? {2}search_query: .*\n/, `  tables:\n  - obj_id: flights-1a2b3c4d\n  search_query: "${q}"\n`);
    assert.deepEqual(await check('file:///w/o.answer.tml', only('[origin] [nope]')), []);
    assert.deepEqual((await check('file:///w/o.answer.tml', only('[origin] sort by'))).map((d) => d.severity), [1]);
  });
  test('formulas are columns of the search, by id and by name, and one of unknown type gets no type diagnostic', async () => {
    assert.deepEqual(await check('file:///w/f.answer.tml', formulaAnswer(N)), []);
    const text = formulaAnswer(N, 'origen');
    const ds = await check('file:///w/f.answer.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, covered(text, d.range)]), [['tsq.unknownColumn', 'origen']]);
  });
  test('a formula with a numeric data_type is typed: a text operator on it is the usual error', async () => {
    const text = formulaAnswer(N).replace('    was_auto_generated: false\n  search_query', '    properties:\n      data_type: DOUBLE\n    was_auto_generated: false\n  search_query');
    const ds = await check('file:///w/f.answer.tml', text);
    assert.deepEqual(ds.map((d) => [d.code, covered(text, d.range)]), [['tsq.textOperatorOnNumber', 'contains']]);
  });
  test('the formula hovers and completes in the search', async () => {
    const text = formulaAnswer(N);
    const service = withTml(ls);
    const doc = TextDocument.create('file:///w/f.answer.tml', 'tsq-answer-tml', 1, text);
    const h = await service.doHover(doc, doc.positionAt(text.indexOf('[Haul]') + 2));
    assert.match((h?.contents as { value?: string } | undefined)?.value ?? '', /Haul[\s\S]*if \( \[distance\] > 1000 \)/);
    const list = await service.doComplete(doc, doc.positionAt(text.indexOf('[Haul]') + 1));
    const labels = list.items.map((i) => i.label);
    assert.ok(labels.includes('Delay per mile') && labels.includes('Haul') && labels.includes('origin'), JSON.stringify(labels));
  });
});
