// Completion on a data source wider than one list holds (completion.ts COLUMN_LIST_LIMIT): the list
// holds the columns matching what is typed, best matches first, and is marked incomplete so that the
// client asks again as the person types; a narrower data source still gets every column in a complete list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { COLUMN_LIST_LIMIT, columnMatch, pickColumns } from '../../common/src/languageService/completion';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { makeCatalogProvider, wideCatalog } from '../fixtures/catalogs';

test('columnMatch: prefix, later word, inside a word, characters in order, none', () => {
  assert.equal(columnMatch('delay 12', ''), 0);
  assert.equal(columnMatch('delay 12', 'del'), 0);
  assert.equal(columnMatch('arrival delay', 'del'), 1);
  assert.equal(columnMatch('model', 'del'), 2);
  assert.equal(columnMatch('distance', 'dtc'), 3);
  assert.equal(columnMatch('origin', 'del'), -1);
});

test('pickColumns: everything up to the limit; past it the best matches first, in catalog order', () => {
  assert.deepEqual(pickColumns(['a', 'b'], 'zzz', 2), [0, 1]);
  const names = ['model', 'delay', 'origin', 'arrival delay', 'delta', 'dx_el'];
  assert.deepEqual(pickColumns(names, 'DEL', 5), [1, 4, 3, 0, 5]);
  assert.deepEqual(pickColumns(names, 'del', 2), [1, 4]);
  assert.deepEqual(pickColumns(names, '', 3), [0, 1, 2]);
});

test('a 10,000-column data source: at most the limit, the typed prefix first, the list incomplete', async () => {
  const wide = wideCatalog(10_000);
  const ls = getLanguageService({ catalog: makeCatalogProvider([wide], {}) });
  const doc = (text: string) => TextDocument.create('file:///w.tsq', 'tsq', 1, text);
  const d = doc("@datasource 'Wide'\n[");
  const all = await ls.doComplete(d, { line: 1, character: 1 }, {});
  assert.equal(all.isIncomplete, true);
  assert.equal(all.items.length, COLUMN_LIST_LIMIT);
  const typed = doc("@datasource 'Wide'\n[Delay 12");
  const some = await ls.doComplete(typed, { line: 1, character: 9 }, {});
  assert.equal(some.isIncomplete, true);
  assert.equal(some.items[0]!.label, 'delay 12');
  assert.ok(some.items.every((i) => /d.*e.*l.*a.*y.* .*1.*2/i.test(i.label)), 'only matching columns');
  assert.ok(some.items.slice(0, 10).every((i) => i.label.startsWith('delay 12')), 'prefix matches first');
  // at a word start the columns come bracketed, picked the same way
  const word = doc("@datasource 'Wide'\n[origin 0] dela");
  const w = await ls.doComplete(word, { line: 1, character: 15 }, {});
  assert.equal(w.isIncomplete, true);
  const cols = w.items.filter((i) => i.label.startsWith('['));
  assert.ok(cols.length > 0 && cols.length <= COLUMN_LIST_LIMIT);
  assert.equal(cols[0]!.label, '[delay 0]');
});

test('a data source within the limit gets every column in a complete list', async () => {
  const narrow = wideCatalog(COLUMN_LIST_LIMIT, 'Narrow');
  const ls = getLanguageService({ catalog: makeCatalogProvider([narrow], {}) });
  const d = TextDocument.create('file:///n.tsq', 'tsq', 1, "@datasource 'Narrow'\n[zz");
  const list = await ls.doComplete(d, { line: 1, character: 3 }, {});
  assert.equal(list.isIncomplete, false);
  assert.equal(list.items.length, COLUMN_LIST_LIMIT);
});
