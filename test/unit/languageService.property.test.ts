/**
 * Robustness of the language service (property-based, fast-check): over random token soups and random
 * edits of realistic documents, with catalogs that answer, answer "unknown", answer null (no such data
 * source) or reject, no verb throws and every range lies inside the document. Malformed answers never reach
 * the service: the server's catalog checks them against their schemas (test/unit/protocolCatalog.test.ts). Plus a 10 MB file and binary bytes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Range } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { parseDocument, parseQuery, parseTokens } from '../../common/src/language/parser';
import { tokenize } from '../../common/src/language/lexer';
import type { ParseDiagnostic } from '../../common/src/language/ast';
import { MAX_DIAGNOSTICS } from '../../common/src/languageService/validation';
import type { CatalogProvider, LanguageService } from '../../common/src/languageService/types';
import { carsCatalog, datasetValues, flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const fragments = [
  '[origin]', '[delay]', '[date]', '[Horsepower]', '[', ']', '[]', '[a[b]', "'", "'SEA'", "'tom's'", '"x"', '=', '!=', '<', '>=', ',', '.', ';',
  '(', ')', '{null}', '{empty}', '{', '-', '--', '-- comment', '@datasource', "@datasource 'Flights'", '@datasource Cars', '@x', 'sort by', 'Sort  BY',
  'top', 'bottom', '10', '-5', '3.14', 'between', 'and', 'contains', 'not contains', 'begins with', 'last', '7', 'days', 'ago', 'year to date',
  'for each', 'for', 'by', 'sum', 'unique count', 'growth of', 'monthly', "'day of week'", 'calendar', 'year-over-year', 'ranked by', 'in',
  'origin', '#', '$', '\u0000', '\uFFFD', '\uD83D\uDE00', '\uD83D', 'é', '\t', ' ', '\n', '\r\n', '\n\n', '+', '*', 'sum(', '10/31/2014',
];
const soup = fc.array(fc.constantFrom(...fragments), { maxLength: 60 }).chain((parts) =>
  fc.array(fc.constantFrom('', ' ', '\n'), { minLength: parts.length, maxLength: parts.length }).map((seps) => parts.map((p, i) => p + seps[i]).join('')));

const base = "@datasource 'Flights'\n[origin] sum [delay] top 10 sort by [delay] descending;\n[date].monthly [origin] = 'SEA', 'PDX' [delay] between -5 and 10\n\n@datasource 'Cars'\n[Horsepower] [Year].yearly growth of [Horsepower] by [Year] -- c\n";
const edits = fc.array(fc.record({ at: fc.nat(), del: fc.nat({ max: 8 }), ins: fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 })) }), { maxLength: 8 })
  .map((list) => list.reduce((text, e) => {
    const at = e.at % (text.length + 1);
    return text.slice(0, at) + e.ins + text.slice(at + e.del);
  }, base));

const thrower: CatalogProvider = {
  getDataSources: async () => { throw new Error('boom'); },
  getColumns: async () => { throw new Error('boom'); },
  getColumnValues: async () => { throw new Error('boom'); },
};
const unknown: CatalogProvider = { getDataSources: async () => undefined, getColumns: async () => undefined, getColumnValues: async () => [] };
const missing: CatalogProvider = { getDataSources: async () => [], getColumns: async () => null, getColumnValues: async () => [] };
const services: [string, LanguageService][] = [
  ['no catalog', getLanguageService()],
  ['fixtures', getLanguageService({ catalog: makeCatalogProvider([flightsCatalog(), carsCatalog()], datasetValues()) })],
  ['throwing', getLanguageService({ catalog: thrower })],
  ['unknown', getLanguageService({ catalog: unknown })],
  ['missing', getLanguageService({ catalog: missing })],
];

function inside(d: TextDocument, r: Range, what: string) {
  const lines = d.lineCount;
  for (const p of [r.start, r.end]) {
    assert.ok(p.line >= 0 && p.line < lines, `${what}: line ${p.line} outside ${lines} lines`);
    const lineLen = d.offsetAt({ line: p.line + 1, character: 0 }) - d.offsetAt({ line: p.line, character: 0 });
    assert.ok(p.character >= 0 && (p.character <= lineLen || p.line === lines - 1), `${what}: character ${p.character} outside line ${p.line}`);
    assert.ok(d.offsetAt(p) <= d.getText().length);
  }
  assert.ok(d.offsetAt(r.start) <= d.offsetAt(r.end), `${what}: start after end`);
  // positionAt clamps, so check raw positions against the real text too.
  assert.deepEqual(d.positionAt(d.offsetAt(r.start)), r.start, `${what}: start is not a real position`);
  assert.deepEqual(d.positionAt(d.offsetAt(r.end)), r.end, `${what}: end is not a real position`);
}

let version = 0;
async function exercise(ls: LanguageService, text: string) {
  const d = TextDocument.create('file:///p.tsq', 'tsq', ++version, text);
  const doc = ls.parseDocument(d);
  for (const x of doc.diagnostics) assert.ok(x.start >= 0 && x.start <= x.end && x.end <= text.length, `parse diagnostic ${x.code} out of range`);
  for (const q of doc.queries) assert.ok(q.start >= 0 && q.start <= q.end && q.end <= text.length);
  const settings = { defaultDataSource: 'Flights' };
  const diags = await ls.doValidation(d, settings);
  for (const x of diags) inside(d, x.range, `diagnostic ${String(x.code)}`);
  for (const s of ls.findDocumentSymbols(d)) inside(d, s.range, 'symbol');
  for (const q of ls.getQueries(d, settings)) inside(d, q.range, 'query');
  const tokens = ls.getSemanticTokens(d);
  assert.equal(tokens.data.length % 5, 0);
  const edits = ls.format(d, undefined, { tabSize: 2, insertSpaces: true });
  for (const e of edits) inside(d, e.range, 'format edit');
  TextDocument.applyEdits(d, edits);
  // Completion and hover at a few offsets.
  for (const off of [0, text.length >> 1, text.length]) {
    const pos = d.positionAt(off);
    const list = await ls.doComplete(d, pos, settings);
    assert.ok(Array.isArray(list.items));
    await ls.doHover(d, pos, settings);
  }
  await ls.getCodeActions(d, { start: d.positionAt(0), end: d.positionAt(text.length) }, { diagnostics: diags }, settings);
}

test('never throws, every range inside the document: random token soups', async () => {
  for (const [, ls] of services) {
    await fc.assert(fc.asyncProperty(soup, async (text) => exercise(ls, text)), { numRuns: 60 });
  }
});

test('never throws, every range inside the document: random edits of a realistic document', async () => {
  for (const [, ls] of services) {
    await fc.assert(fc.asyncProperty(edits, async (text) => exercise(ls, text)), { numRuns: 60 });
  }
});

test('parseQuery never throws and keeps its diagnostics inside the text', () => {
  fc.assert(fc.property(fc.oneof(soup, fc.string({ maxLength: 200 })), (text) => {
    const r = parseQuery(text);
    for (const x of r.diagnostics) assert.ok(x.start >= 0 && x.start <= x.end && x.end <= text.length);
  }), { numRuns: 300 });
});

test('parsing while lexing gives the same document as parsing all the tokens', () => {
  const long = fc.array(soup, { maxLength: 40 }).map((xs) => xs.join('\n'));
  fc.assert(fc.property(long, (text) => {
    const d: ParseDiagnostic[] = [];
    const a = parseDocument(text);
    const b = parseTokens(text, tokenize(text, d), d);
    assert.deepEqual([a.queries, a.directives, a.comments], [b.queries, b.directives, b.comments]);
    // Lexer and parser diagnostics interleave differently; the set is the same.
    const key = (x: ParseDiagnostic) => `${x.start}:${x.end}:${x.code}:${x.message}`;
    assert.deepEqual(a.diagnostics.map(key).sort(), b.diagnostics.map(key).sort());
  }), { numRuns: 100 });
});

test('a 10 MB file, binary bytes, huge lines and unbalanced brackets', async () => {
  const unit = "@datasource 'Flights'\n[origin] [delay] top 10 sort by [delay] descending;\n[date].monthly [origin] = 'SEA', 'PDX' [delay] > 10\n\n";
  const big = unit.repeat(Math.ceil(10_000_000 / unit.length));
  assert.ok(big.length >= 10_000_000);
  const doc = parseDocument(big);
  assert.deepEqual(doc.diagnostics, []);
  assert.equal(doc.queries.length, 2 * Math.ceil(10_000_000 / unit.length));
  const bytes = Buffer.alloc(1_000_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  const binary = bytes.toString('latin1');
  const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()]) });
  await exercise(ls, binary);
  await exercise(ls, bytes.toString('utf8'));
  // Pathological sizes that once made the lexer (and completion, which re-lexes the token under the
  // cursor) quadratic: unbalanced brackets, quote runs, unclosed columns cut short at every quote.
  await exercise(ls, '['.repeat(200_000) + "'".repeat(200_000) + ']'.repeat(200_000));
  await exercise(ls, '['.repeat(200_000));
  await exercise(ls, "['".repeat(100_000));
  await exercise(ls, '[a] '.repeat(300_000));
  const diags = await ls.doValidation(TextDocument.create('file:///b.tsq', 'tsq', 1, binary));
  assert.ok(diags.length > 0 && diags.length <= MAX_DIAGNOSTICS, `diagnostics are bounded (${diags.length})`);
});
