/** Document symbols: one per query (the outline), with the data source in force as detail. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SymbolKind } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { MAX_SYMBOL_NAME } from '../../common/src/languageService/symbols';

test('one symbol per query, named by its text, ranged on the query', () => {
  const text = "-- report\n@datasource 'Flights'\n[origin] [delay]   top 10; [distance]\n  -- note\n  [date].monthly\n\n@datasource Cars\n[Horsepower]";
  const d = TextDocument.create('file:///s.tsq', 'tsq', 1, text);
  const symbols = getLanguageService().findDocumentSymbols(d);
  assert.deepEqual(symbols.map((s) => [s.name, s.detail]), [
    ['[origin] [delay] top 10', 'Flights'],
    ['[distance] [date].monthly', 'Flights'],
    ['[Horsepower]', 'Cars'],
  ]);
  assert.ok(symbols.every((s) => s.kind === SymbolKind.Event));
  const second = symbols[1]!;
  assert.equal(text.slice(d.offsetAt(second.range.start), d.offsetAt(second.range.end)), '[distance]\n  -- note\n  [date].monthly');
  assert.equal(text.slice(d.offsetAt(second.selectionRange.start), d.offsetAt(second.selectionRange.end)), '[distance]');
});

test('long queries are cut; an empty document has no symbol', () => {
  const long = Array.from({ length: 40 }, (_, i) => `[column ${i}]`).join(' ');
  const [s] = getLanguageService().findDocumentSymbols(TextDocument.create('file:///l.tsq', 'tsq', 1, long));
  assert.equal(s!.name.length, MAX_SYMBOL_NAME);
  assert.ok(s!.name.endsWith('…'));
  assert.deepEqual(getLanguageService().findDocumentSymbols(TextDocument.create('file:///e.tsq', 'tsq', 1, '-- nothing\n\n')), []);
});
