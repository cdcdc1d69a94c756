// Quick fixes in TML files (common/src/tml/tmlService.ts `tmlCodeActions`, through `withTml` as the
// language server calls it): the "did you mean" of an unknown column inside a search_query string, as a
// .tsq file offers it, its new name written as the YAML scalar needs it; an answer's and a liveboard's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextEdit } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { withTml } from '../../common/src/tml/tmlService';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const ls = withTml(getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()]) }));
const DS = flightsCatalog().name;

/** The quick fixes of the file's unknown-column diagnostics, and the text after the first (preferred) one. */
async function fix(uri: string, text: string): Promise<{ titles: string[]; fixed: string }> {
  const doc = TextDocument.create(uri, uri.endsWith('.liveboard.tml') ? 'tsq-liveboard-tml' : 'tsq-answer-tml', 1, text);
  const diagnostics = (await ls.doValidation(doc, {})).filter((d) => d.code === 'tsq.unknownColumn');
  assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
  const actions = await ls.getCodeActions(doc, diagnostics[0]!.range, { diagnostics }, {});
  assert.ok(actions.length > 0, 'a quick fix is offered');
  assert.equal(actions[0]!.isPreferred, true);
  assert.deepEqual(actions[0]!.diagnostics, diagnostics);
  return { titles: actions.map((a) => a.title), fixed: TextDocument.applyEdits(doc, actions[0]!.edit!.changes![uri] as TextEdit[]) };
}

const answer = (query: string) => `answer:\n  name: A\n  tables:\n  - id: ${DS}\n    name: ${DS}\n  search_query: ${query}\n`;

for (const [style, query, expect] of [
  ['plain', 'top 3 [origin] [dealy]', 'top 3 [origin] [delay]'],
  ['double-quoted', '"[origin] [dealy] > 10"', '"[origin] [delay] > 10"'],
  ['single-quoted', "'[origin] = ''SEA'' [dealy]'", "'[origin] = ''SEA'' [delay]'"],
] as const) {
  test(`an .answer.tml, ${style}: Replace with [delay] on the column inside the YAML string`, async () => {
    const { titles, fixed } = await fix('file:///a.answer.tml', answer(query));
    assert.equal(titles[0], 'Replace with [delay]');
    assert.equal(fixed, answer(expect));
  });
}

test('a .liveboard.tml: the fix goes to the visualization whose search_query has the column', async () => {
  const board = (q: string) => `liveboard:\n  name: B\n  visualizations:\n  - id: Viz_1\n    answer:\n      name: One\n      tables:\n      - name: ${DS}\n      search_query: "[origin] [delay]"\n  - id: Viz_2\n    answer:\n      name: Two\n      tables:\n      - name: ${DS}\n      search_query: "${q}"\n`;
  const { titles, fixed } = await fix('file:///b.liveboard.tml', board('[origin] [dealy]'));
  assert.equal(titles[0], 'Replace with [delay]');
  assert.equal(fixed, board('[origin] [delay]'));
});
