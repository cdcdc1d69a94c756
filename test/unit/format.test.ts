/**
 * Formatting of .tsq documents: canonical spacing, keywords lower-case, column names and values untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { parseDocument } from '../../common/src/language/parser';

const ls = getLanguageService();
function fmt(text: string, range?: [number, number], insertSpaces = true) {
  const d = TextDocument.create('file:///f.tsq', 'tsq', 1, text);
  const r = range ? { start: d.positionAt(range[0]), end: d.positionAt(range[1]) } : undefined;
  return TextDocument.applyEdits(d, ls.format(d, r, { tabSize: 2, insertSpaces }));
}

test('canonical spacing and lower-case keywords; names and values untouched', () => {
  const text = "  @DataSource   'My Flights'  \n[Origin]   SUM [Delay]  TOP 10   Sort   BY [Delay]  DESCENDING ;\n[Origin]   =  'Sea' ,'PDX'  [Date].MONTHLY  [x] != {NULL}\n";
  assert.equal(fmt(text),
    "@datasource 'My Flights'\n[Origin] sum [Delay] top 10 sort by [Delay] descending;\n[Origin] = 'Sea', 'PDX' [Date].monthly [x] != {null}\n");
  // A bucket after the dot is a keyword too.
  assert.equal(fmt('[Date].MONTHLY'), '[Date].monthly');
});

test('line structure: continuation lines indented, one blank line kept, comments kept', () => {
  const text = "[a]   -- First   \n      [b]\n\n\n\n[c] ( [d] )\n";
  assert.equal(fmt(text), "[a] -- First\n  [b]\n\n[c] ([d])\n");
  assert.equal(fmt('[a]\n[b]', undefined, false), '[a]\n\t[b]');
});

test('formatting is idempotent and keeps the parse', () => {
  const text = "@datasource Flights\n  [origin]  Sum [delay]   LAST 7 DAYS  for  each  MONTH\n[delay] Between -5 AND 10 growth of [delay] by [date].'day of week' Year-Over-Year calendar.fiscal";
  const once = fmt(text);
  assert.equal(fmt(once), once);
  const strip = (d: ReturnType<typeof parseDocument>) => JSON.stringify(d.queries.map((q) => q.clauses.map((c) => c.kind)));
  assert.equal(strip(parseDocument(once)), strip(parseDocument(text)));
  assert.deepEqual(parseDocument(once).diagnostics, []);
});

test('a dot keeps its spacing (gluing it would change the meaning); syntax errors are left as written', () => {
  assert.equal(fmt('[date] .monthly'), '[date] .monthly');
  assert.equal(fmt("[a] = 'unterminated   "), "[a] = 'unterminated   ");
});

test('range formatting only changes text inside the range', () => {
  const text = '[a]   [b]\n[c]   [d]';
  const start = text.indexOf('[c]');
  assert.equal(fmt(text, [start, text.length]), '[a]   [b]\n[c] [d]');
  assert.equal(fmt(text), '[a] [b]\n  [c] [d]');
});
