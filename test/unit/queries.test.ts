/** getQueries: the queries of a document for Run Query (tsq/queries), with the data source in force. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';

const text = "[a] [b] -- before any directive\n\n@datasource 'Flights'\n[origin] -- c\n  [delay];\n@datasource 3c46f48d-daa8-4da7-8baa-fd72347143dc\n[x]\n";
const doc = TextDocument.create('file:///q.tsq', 'tsq', 1, text);

test('text without comments, range, data source from the directive', () => {
  const qs = getLanguageService().getQueries(doc, {});
  assert.deepEqual(qs.map((q) => [q.text, q.dataSource]), [
    ['[a] [b]', null],
    ['[origin] \n  [delay]', 'Flights'],
    ['[x]', '3c46f48d-daa8-4da7-8baa-fd72347143dc'],
  ]);
  const r = qs[1]!.range;
  assert.deepEqual([r.start, r.end], [{ line: 3, character: 0 }, { line: 4, character: 9 }]);
});

test('tsq.defaultDataSource applies only where no @datasource is in force', () => {
  const qs = getLanguageService().getQueries(doc, { defaultDataSource: 'Cars' });
  assert.deepEqual(qs.map((q) => q.dataSource), ['Cars', 'Flights', '3c46f48d-daa8-4da7-8baa-fd72347143dc']);
  assert.deepEqual(getLanguageService().getQueries(doc, { defaultDataSource: '   ' }).map((q) => q.dataSource)[0], null);
});

test('the parse is cached per URI and version and refreshed on a new version', () => {
  const ls = getLanguageService();
  const a = TextDocument.create('file:///c.tsq', 'tsq', 1, '[a]');
  assert.equal(ls.parseDocument(a), ls.parseDocument(a));
  const b = TextDocument.update(a, [{ text: '[a]; [b]' }], 2);
  assert.equal(ls.getQueries(b).length, 2);
});
