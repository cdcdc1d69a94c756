/** Semantic tokens: types of the legend, decoded back to the text they cover. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { SEMANTIC_TOKEN_LEGEND } from '../../common/src/languageService/semanticTokens';

function decode(text: string): [string, string, string[]][] {
  const d = TextDocument.create('file:///t.tsq', 'tsq', 1, text);
  const { data } = getLanguageService().getSemanticTokens(d);
  const out: [string, string, string[]][] = [];
  let line = 0;
  let ch = 0;
  for (let i = 0; i < data.length; i += 5) {
    line += data[i]!;
    ch = data[i]! === 0 ? ch + data[i + 1]! : data[i + 1]!;
    const start = d.offsetAt({ line, character: ch });
    const mods = SEMANTIC_TOKEN_LEGEND.tokenModifiers.filter((_, b) => data[i + 4]! & (1 << b));
    out.push([text.slice(start, start + data[i + 2]!), SEMANTIC_TOKEN_LEGEND.tokenTypes[data[i + 3]!]!, mods]);
  }
  return out;
}

test('every token kind maps to its legend type, across lines', () => {
  const text = "@datasource 'Flights' -- c\n[origin] sum [delay] >= 10 sort by [date].monthly\n  [x] = 'a', {null} [date].'day of week' weekly";
  assert.deepEqual(decode(text), [
    ['@datasource', 'macro', []],
    ["'Flights'", 'string', ['readonly']],
    ['-- c', 'comment', []],
    ['[origin]', 'variable', []],
    ['sum', 'function', []],
    ['[delay]', 'variable', []],
    ['>=', 'operator', []],
    ['10', 'number', []],
    ['sort by', 'keyword', []],
    ['[date]', 'variable', []],
    ['monthly', 'enumMember', []],
    ['[x]', 'variable', []],
    ['=', 'operator', []],
    ["'a'", 'string', []],
    ['{null}', 'enumMember', []],
    ['[date]', 'variable', []],
    ["'day of week'", 'enumMember', []],
    ['weekly', 'enumMember', []],
  ]);
});

test('CRLF line breaks and non-ASCII text keep positions right', () => {
  assert.deepEqual(decode("[é€] = 'ü'\r\n[b]").map((t) => t[0]), ['[é€]', '=', "'ü'", '[b]']);
  assert.deepEqual(decode('').length, 0);
});

test("the token form: a value after a column's dot is a string, a bucket word after it an enum member (docs/service-notes.md §2.11)", () => {
  assert.deepEqual(decode("[origin].SEA [destination].'los angeles' [date].daily [date].'day of week'").filter((t) => !t[0].startsWith('[')), [
    ['SEA', 'string', []],
    ["'los angeles'", 'string', []],
    ['daily', 'enumMember', []],
    ["'day of week'", 'enumMember', []],
  ]);
});
