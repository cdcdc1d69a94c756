/**
 * The lexer's token buffers (lexer.ts `TokenStore`, `Lexer.scanInto`): a scan asked for a large chunk of
 * tokens grows the store only to what the text holds (a small file's parse does not reserve a chunk's
 * worth), and a store too small for the text grows while scanning without losing or changing a token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ParseDiagnostic } from '../../common/src/language/ast';
import { Lexer, QueryEnds, TokenStore, tokenize, WHITESPACE_CODE } from '../../common/src/language/lexer';
import { parseDocument } from '../../common/src/language/parser';

const QUERY = "@datasource 'Retail Sales'\n[revenue] [region] = 'west' sort by [revenue] descending top 10 -- note\n\n";

/** The non-whitespace tokens of `store` as `[kind code, start, end]`. */
function tokensOf(store: TokenStore): number[][] {
  const out: number[][] = [];
  let pos = 0;
  for (let t = 0; t < store.tokenCount; t++) {
    const w = store.width(t);
    if (store.kinds[t] !== WHITESPACE_CODE) out.push([store.kinds[t]!, pos, pos + w]);
    pos += w;
  }
  return out;
}

test('a scan asked for a whole chunk grows a small store only as far as the text needs', () => {
  const store = new TokenStore(16);
  new Lexer(QUERY).scanInto(store, 16384, new QueryEnds());
  assert.ok(store.tokenCount > 16, 'the text has more tokens than the store first held');
  // Doubling from 16 reaches at most twice the entries (plus one scan's minimum room), not a chunk's 32,772.
  assert.ok(store.kinds.length <= 2 * store.tokenCount + 2 * (64 + 2), `store grew to ${store.kinds.length} for ${store.tokenCount} entries`);
});

test('a store far smaller than the text grows while scanning and keeps every token of tokenize', () => {
  const text = QUERY.repeat(300) + '[unclosed';
  const diagnostics: ParseDiagnostic[] = [];
  const store = new TokenStore(16);
  const lexer = new Lexer(text, diagnostics);
  while (!lexer.done) lexer.scanInto(store, 16384);
  const expected = tokenize(text).map((t) => [t.end - t.start, t.start, t.end]);
  const got = tokensOf(store);
  assert.equal(got.length, expected.length);
  assert.deepEqual(got.map(([, s, e]) => [e! - s!, s, e]), expected);
  assert.equal(store.end, text.length);
});

test('parseDocument of a small text and of the same text among many gives the same queries', () => {
  const one = parseDocument(QUERY);
  const many = parseDocument(QUERY.repeat(50));
  assert.equal(many.queries.length, 50 * one.queries.length);
  assert.deepEqual(many.queries[49]!.text, one.queries[0]!.text);
});
