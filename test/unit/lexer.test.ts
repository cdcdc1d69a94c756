/**
 * The .tsq lexer: token kinds of docs/service-interface.md §4.3, multi-word keywords (docs/service-notes.md §2) as one token,
 * case-insensitive, longest match; lexical diagnostics with their codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ParseDiagnostic } from '../../common/src/language/ast';
import * as codes from '../../common/src/language/diagnosticCodes';
import { KEYWORDS } from '../../common/src/language/keywords';
import { tokenize } from '../../common/src/language/lexer';

const kinds = (text: string) => tokenize(text).map((t) => `${t.kind}:${t.value}`);
function lex(text: string) {
  const diagnostics: ParseDiagnostic[] = [];
  const tokens = tokenize(text, diagnostics);
  return { tokens, diagnostics, codes: diagnostics.map((d) => d.code) };
}

test('every token type of docs/service-interface.md §4.3 with its offsets', () => {
  const text = "[origin] >= 10 'SEA', -5 3.5 [date].monthly calendar.fiscal {null} ( ) ;";
  const tokens = tokenize(text);
  assert.deepEqual(tokens.map((t) => t.kind), [
    'column', 'operator', 'number', 'value', 'comma', 'number', 'number', 'column', 'dot', 'keyword', 'keyword', 'dot', 'keyword', 'constant', 'lparen', 'rparen', 'semicolon',
  ]);
  for (const t of tokens) assert.equal(text.slice(t.start, t.end).length, t.end - t.start);
  const col = tokens[0]!;
  assert.equal(text.slice(col.start, col.end), '[origin]');
  assert.equal(text.slice(col.innerStart, col.innerEnd), 'origin');
  const val = tokens[3]!;
  assert.equal(val.value, 'SEA');
  assert.equal(text.slice(val.start, val.end), "'SEA'");
  assert.equal(tokens[5]!.value, '-5');
});

test('multi-word keywords are one token, case-insensitive, longest match', () => {
  assert.deepEqual(kinds('Sort  BY [a] growth of [b] for each [c] unique count [d] standard deviation [e]'), [
    'keyword:sort by', 'column:a', 'keyword:growth of', 'column:b', 'keyword:for each', 'column:c', 'keyword:unique count', 'column:d', 'keyword:standard deviation', 'column:e',
  ]);
  assert.deepEqual(kinds("not contains 'x' not begins with 'y' begins_with 'z' year to date day of week"), [
    'keyword:not contains', 'value:x', 'keyword:not begins with', 'value:y', 'keyword:begins with', 'value:z', 'keyword:year to date', 'keyword:day of week',
  ]);
  // `for` alone and `for each` are different; `last 7 days` is three tokens the parser combines.
  assert.deepEqual(kinds('for [a] last 7 Days between 1 and 2 year-over-year'), [
    'keyword:for', 'column:a', 'keyword:last', 'number:7', 'keyword:day', 'keyword:between', 'number:1', 'keyword:and', 'number:2', 'keyword:year-over-year',
  ]);
  // A phrase does not match across a line break, nor a prefix of a longer word.
  assert.deepEqual(kinds('sort\nby sortby'), ['word:sort', 'keyword:by', 'word:sortby']);
});

test('every catalogue keyword spelling lexes as that keyword', () => {
  for (const k of KEYWORDS) {
    if (!/^[a-z]/.test(k.name)) continue;
    // A documented phrase (`month to date for each quarter`) lexes as the keywords of its words.
    if (k.phrase) {
      assert.ok(tokenize(k.name).length > 1 && tokenize(k.name).every((t) => t.kind === 'keyword'), k.name);
      continue;
    }
    for (const spelling of [k.name, ...(k.aliases ?? [])]) {
      const upper = spelling.toUpperCase();
      const tokens = tokenize(upper);
      assert.equal(tokens.length, 1, `${spelling} should be one token`);
      assert.equal(tokens[0]!.kind, 'keyword');
      assert.equal(tokens[0]!.value, k.name);
    }
  }
});

test('keywords are found from the scanned characters: any case, glued to a comment, case folding of non-ASCII letters as JavaScript does it', () => {
  assert.deepEqual(kinds('SuM--c\nsUm[a]'), ['keyword:sum', 'comment:', 'keyword:sum', 'column:a']);
  // U+212A KELVIN SIGN lower-cases to an ASCII k: `WEE\u212A` is the keyword `week`, as toLowerCase says.
  assert.equal('WEE\u212A'.toLowerCase(), 'week');
  assert.deepEqual(kinds('WEE\u212A'), ['keyword:week']);
  // Words that share a keyword's length or hash bucket but not its letters stay words.
  assert.deepEqual(kinds('sun sums su_m'), ['word:sun', 'word:sums', 'word:su_m']);
});

test('comments, directives and blank lines', () => {
  const text = "@DataSource 'Flights' -- the data\n[a] -- note\n  \t \n[b]";
  const t = tokenize(text);
  assert.deepEqual(t.map((x) => x.kind), ['directive', 'comment', 'column', 'comment', 'blank', 'column']);
  assert.equal(t[0]!.value, 'Flights');
  assert.equal(text.slice(t[0]!.innerStart, t[0]!.innerEnd), 'Flights');
  assert.equal(text.slice(t[1]!.start, t[1]!.end), '-- the data');
  const unquoted = tokenize('@datasource 3c46f48d-daa8-4da7-8baa-fd72347143dc -- x');
  assert.equal(unquoted[0]!.value, '3c46f48d-daa8-4da7-8baa-fd72347143dc');
  // A single line break is no blank line.
  assert.ok(!tokenize('[a]\n[b]').some((x) => x.kind === 'blank'));
  assert.ok(tokenize('[a]\r\n\r\n[b]').some((x) => x.kind === 'blank'));
});

test('lexical diagnostics each have their code and range', () => {
  const cases: [string, string, string][] = [
    ["[origin] = 'SEA", codes.UNTERMINATED_VALUE, "'SEA"],
    ['[origin top 10', codes.UNCLOSED_BRACKET, '[origin top 10'],
    ["[origin = 'SEA'", codes.UNCLOSED_BRACKET, '[origin'],
    ['[] [a]', codes.EMPTY_COLUMN, '[]'],
    ['[a[b] [c]', codes.BRACKET_IN_COLUMN, '[a[b]'],
    ['[a]b] [c]', codes.BRACKET_IN_COLUMN, '[a]b]'],
    ["[name] = 'tom's'", codes.QUOTE_IN_VALUE, "'tom's'"],
    ['[name] contains "x"', codes.DOUBLE_QUOTED_VALUE, '"x"'],
    ['[a] # [b]', codes.STRAY_CHARACTER, '#'],
    ["@source 'x'", codes.UNKNOWN_DIRECTIVE, '@source'],
    ['@datasource', codes.DIRECTIVE_WITHOUT_VALUE, '@datasource'],
  ];
  for (const [text, code, covered] of cases) {
    const { diagnostics } = lex(text);
    const d = diagnostics.find((x) => x.code === code);
    assert.ok(d, `${code} expected for ${text}, got ${JSON.stringify(diagnostics)}`);
    assert.equal(text.slice(d.start, d.end), covered, `range of ${code} in ${text}`);
  }
});

test('an unclosed bracket or quote does not swallow the next line', () => {
  const { tokens, codes: c } = lex("[origin\n[delay] 'abc\n[distance]");
  assert.deepEqual(c, [codes.UNCLOSED_BRACKET, codes.UNTERMINATED_VALUE]);
  assert.deepEqual(tokens.filter((t) => t.kind === 'column').map((t) => [t.value, t.closed]), [['origin', false], ['delay', true], ['distance', true]]);
});

test('binary bytes and huge lines give tokens and bounded diagnostics, never a throw', () => {
  let bin = '';
  for (let i = 0; i < 70000; i++) bin += String.fromCharCode((i * 7919) % 65536);
  const { tokens, diagnostics } = lex(bin);
  assert.ok(tokens.length > 0);
  assert.ok(diagnostics.length <= 1000);
  for (const d of diagnostics) assert.ok(d.start >= 0 && d.end <= bin.length && d.start <= d.end);
  const huge = '[a] '.repeat(250000);
  assert.equal(tokenize(huge).length, 250000);
});

test('a comment ends at the first line break of its line, \\n, \\r\\n or a lone \\r, wherever the other kind stands', () => {
  const comments = (text: string) => tokenize(text).filter((t) => t.kind === 'comment').map((t) => text.slice(t.start, t.end));
  assert.deepEqual(comments('-- a\n[x] -- b\r\n[y] -- c\r[z] -- d'), ['-- a', '-- b', '-- c', '-- d']);
  // a `\r` far after several comments ending at `\n`, then comments after it
  assert.deepEqual(comments('-- a\n-- b\n[x]\r-- c\n-- d\r\n-- e'), ['-- a', '-- b', '-- c', '-- d', '-- e']);
  assert.deepEqual(comments('@answer \'g\'\r[x] -- f'), ["@answer 'g'", '-- f']);
  assert.deepEqual(tokenize('@datasource \'F\' -- why\r[origin]').map((t) => t.kind), ['directive', 'comment', 'column']);
});
