/**
 * The search language's grammar is declared once (common/src/language/grammar.ts `SEARCH_GRAMMAR`): the
 * parser's dispatch tables, the tree's node kinds and completion's expectations are derived from it.
 * Generated from the declaration: each production's leading keywords and tokens are parsed and their
 * nodes checked against the kinds it declares; each keyword's catalogue example is parsed; completion
 * after each leading keyword is asked; the sources are read for dispatch written by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CompletionItemKind } from 'vscode-languageserver-types';
import type { Clause } from '../../common/src/language/ast';
import {
  DATE_OPERAND_KEYWORDS, KEYWORDS_BEFORE_COLUMN, KEYWORDS_BEFORE_DATE_UNIT, SEARCH_GRAMMAR, conformsTo, defineGrammar, dotExpectations,
} from '../../common/src/language/grammar';
import { KEYWORDS } from '../../common/src/language/keywords';
import { keywordIdOf } from '../../common/src/language/lexer';
import { PARSER_DISPATCH, parseDocument, type SyntaxNode } from '../../common/src/language/parser';
import { NODE_KINDS, TK } from '../../common/src/language/tree';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { realisticFile } from '../bench/parse.bench';
import { datasetValues, flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const root = join(__dirname, '..', '..');
const source = (rel: string) => readFileSync(join(root, rel), 'utf8');

/** The clause nodes (the top level, in preorder) of the nodes of a query. */
function clauses(nodes: SyntaxNode[]): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let i = 0; i < nodes.length; i += nodes[i]!.size) out.push(nodes[i]!);
  return out;
}

/** The clause node kinds of the first query of `text`. */
function topKinds(text: string): string[] {
  return clauses(parseDocument(text).queryNodes(0)).map((n) => n.kind);
}

test('a production declared twice is refused', () => {
  const p = { name: 'a', nodes: ['x'], first: { keywords: ['k'] }, rule: "'k'" } as const;
  assert.throws(() => defineGrammar([p, { ...p, rule: "'k' 'k'" }]), /declared twice/);
});

test('the parser dispatches by the grammar: its tables are the declaration\'s, those by keyword id and token code derived from it', () => {
  assert.equal(PARSER_DISPATCH.byKeyword, SEARCH_GRAMMAR.byKeyword);
  assert.equal(PARSER_DISPATCH.byToken, SEARCH_GRAMMAR.byToken);
  for (const [kind, list] of SEARCH_GRAMMAR.byToken) assert.equal(PARSER_DISPATCH.byTokenCode[TK[kind]], list, kind);
  for (const k of KEYWORDS) {
    const list = SEARCH_GRAMMAR.byKeyword.get(k.name);
    assert.ok(list && list.length > 0, `${k.name} leads some production`);
    assert.equal(list[list.length - 1], 'misplacedKeyword', `${k.name}: a keyword no production takes is a misplaced keyword, last`);
    const id = keywordIdOf(k.name);
    assert.equal(PARSER_DISPATCH.byKeywordId[id], list, `${k.name}: dispatched by its id to the grammar's list`);
  }
});

test('the parser has one case per production and no dispatch on a leading keyword written by hand', () => {
  const parser = source('common/src/language/parser.ts');
  const body = parser.slice(parser.indexOf('  private production(p: ProductionName'), parser.indexOf('   * A value, number or `( … )` standing alone'));
  const cases = [...body.matchAll(/case '([A-Za-z]+)':/g)].map((m) => m[1]!);
  assert.deepEqual([...cases].sort(), SEARCH_GRAMMAR.productions.map((p) => p.name).sort(), 'each production handled once, none other');
  const leading = new Set(SEARCH_GRAMMAR.productions.filter((p) => p.name !== 'misplacedKeyword').flatMap((p) => p.first.keywords ?? []));
  const labels = [...parser.replace(body, '').matchAll(/case '([^']+)':/g)].map((m) => m[1]!).filter((l) => leading.has(l));
  assert.deepEqual(labels, [], 'a keyword dispatched by a case of its own (declare it in grammar.ts)');
  assert.doesNotMatch(source('common/src/languageService/completion.ts'), /BEFORE_COLUMN = new Set|DATE_FILTER_KEYWORDS =/, 'completion keeps no rules of its own');
});

test('node kinds: the tree\'s are the grammar\'s, every clause kind among them', () => {
  assert.equal(NODE_KINDS, SEARCH_GRAMMAR.nodeKinds);
  const clauseKinds: Record<Clause['kind'], true> = {
    column: true, filter: true, dateFilter: true, topBottom: true, sort: true, growth: true, calendar: true, bucket: true,
    location: true, subsearch: true, versus: true, keyword: true, error: true,
  };
  for (const k of Object.keys(clauseKinds)) assert.ok((NODE_KINDS as readonly string[]).includes(k), k);
});

test('generated: each keyword\'s catalogue example parses into nodes its leading production declares', () => {
  const wrong: string[] = [];
  for (const k of KEYWORDS) {
    for (const text of [k.example, `${k.name} [delay]`, `${k.name}`]) {
      const doc = parseDocument(text);
      for (const n of clauses(doc.queryNodes(0))) {
        const tok = doc.tokens().find((t) => t.start === n.start)!;
        const list = tok.kind === 'keyword' ? SEARCH_GRAMMAR.byKeyword.get(tok.value) : SEARCH_GRAMMAR.byToken.get(tok.kind);
        const declared = new Set((list ?? []).flatMap((p) => SEARCH_GRAMMAR.get(p).nodes));
        if (!declared.has(n.kind as never)) wrong.push(`${JSON.stringify(text)}: a ${n.kind} node at ${JSON.stringify(tok.value)}, which leads ${list?.join(', ')}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

const FLIGHTS = "@datasource 'Flights'\n";
const catalog = makeCatalogProvider([
  flightsCatalog(),
  { id: 'b', name: 'Bools', columns: [{ name: 'is delayed', dataType: 'BOOL', kind: 'ATTRIBUTE' }, { name: 'day', dataType: 'DATE', kind: 'ATTRIBUTE' }] },
], datasetValues());

async function complete(text: string) {
  const offset = text.indexOf('|');
  const document = TextDocument.create('file:///g.tsq', 'tsq', 1, text.slice(0, offset) + text.slice(offset + 1));
  const list = await getLanguageService({ catalog }).doComplete(document, document.positionAt(offset), {});
  return { list, document };
}

test('generated: after each keyword the grammar says a column follows, columns come first; after the others they do not', async () => {
  for (const p of SEARCH_GRAMMAR.productions) {
    for (const kw of (p.first.keywords ?? []).slice(0, 3)) {
      if (p.name === 'misplacedKeyword') continue;
      const { list } = await complete(`${FLIGHTS}${kw} |`);
      // the best-fitting group (sortText '0…') holds the columns
      const columnFirst = list.items.some((i) => i.kind === CompletionItemKind.Field && i.sortText?.startsWith('0'));
      assert.equal(columnFirst, KEYWORDS_BEFORE_COLUMN.has(kw), `${kw} (${p.name}): columns first ${KEYWORDS_BEFORE_COLUMN.has(kw)}`);
    }
  }
});

test('generated: after a keyword the grammar says a date unit follows, the units and no columns', async () => {
  assert.ok(KEYWORDS_BEFORE_DATE_UNIT.size > 0);
  for (const kw of KEYWORDS_BEFORE_DATE_UNIT) {
    const { list } = await complete(`${FLIGHTS}[date] ${kw} |`);
    assert.ok(list.items.some((i) => i.label === 'month'), kw);
    assert.ok(!list.items.some((i) => i.kind === CompletionItemKind.Field), kw);
  }
  const { list } = await complete(`${FLIGHTS}[date] |`);
  for (const kw of DATE_OPERAND_KEYWORDS) assert.ok(list.items.some((i) => i.label === kw), `${kw} after a date column`);
});

test('generated: after [column]. the grammar\'s DotValue for its type, each offered item parsing back to what was offered', async () => {
  const cases: { text: string; kinds: string[] }[] = [];
  for (const col of ['date', 'origin']) {
    const c = flightsCatalog().columns.find((x) => x.name === col)!;
    const e = dotExpectations(c);
    const { list, document } = await complete(`${FLIGHTS}[${col}].|`);
    const labels = list.items.map((i) => i.label);
    for (const b of e.buckets) assert.ok(labels.includes(b), `${col}: bucket ${b}`);
    for (const r of e.relativeDates) assert.ok(labels.includes(r), `${col}: relative date ${r}`);
    if (e.values) assert.ok(labels.length > 2 && labels.includes('{null}') && labels.includes('{empty}'), `${col}: values`);
    for (const it of list.items) {
      const text = TextDocument.applyEdits(document, [it.textEdit as never]);
      cases.push({ text, kinds: topKinds(text) });
      assert.equal(parseDocument(text).diagnostics.length, 0, text);
    }
  }
  for (const { text, kinds } of cases) assert.deepEqual(kinds, [/\[date\]\.('day of week'|\w+ly|'[a-z ]+ of [a-z]+'|detailed)$/.test(text.split('\n')[1]!) ? 'column' : /\[date\]/.test(text) ? 'dateFilter' : 'filter'], text);
  const bools = await complete("@datasource 'Bools'\n[is delayed].|");
  assert.deepEqual(bools.list.items.map((i) => i.label), ['true', 'false']);
  assert.equal(TextDocument.applyEdits(bools.document, [bools.list.items[0]!.textEdit as never]), "@datasource 'Bools'\n[is delayed].true");
  const day = await complete("@datasource 'Bools'\n[day].|");
  assert.ok(!day.list.items.some((i) => i.label === 'hourly'), 'a DATE has no time-of-day bucket');
  assert.ok(day.list.items.some((i) => i.label === 'last month'));
});

test('generated: every node the parser writes has the children its kind declares (NODE_CHILDREN), on the benchmark file and every keyword example', () => {
  const texts = [realisticFile(60_000).text, ...KEYWORDS.flatMap((k) => [k.example, `[origin] ${k.name} [delay]`]), "[origin] = [origin].SEA [origin].PDX [date] between [date].01/15/2001 and [date].03/31/2001 [origin] in ([origin] [delay] > 10)"];
  const wrong: string[] = [];
  let checked = 0;
  for (const text of texts) {
    const doc = parseDocument(text);
    for (let q = 0; q < doc.queryCount; q++) {
      const nodes = doc.queryNodes(q);
      nodes.forEach((n, i) => {
        const children: string[] = [];
        for (let c = i + 1; c < i + n.size; c += nodes[c]!.size) children.push(nodes[c]!.kind);
        checked++;
        if (!conformsTo(n.kind, children)) wrong.push(`${n.kind} (${children.join(' ')}) in ${JSON.stringify(text.slice(n.start, n.end))}`);
      });
    }
  }
  assert.ok(checked > 1000);
  assert.deepEqual(wrong, []);
  assert.equal(conformsTo('filter', ['columnRef', 'value', 'value']), true);
  assert.equal(conformsTo('filter', ['value']), false, 'the check can fail');
});

test('one writer of nodes: only ClauseParser writes node kinds into the tree (a second writer of a production fails here)', () => {
  const parser = source('common/src/language/parser.ts');
  const from = parser.indexOf('\nclass ClauseParser {');
  const to = parser.indexOf('\n}\n', from);
  assert.ok(from > 0 && to > from, 'ClauseParser is found');
  const inside = (i: number) => i > from && i < to;
  const writes = [...parser.matchAll(/\.addNode\(|\.nodeKinds\[[^\]]+\]\s*=(?!=)|\bnk\[[^\]]+\]\s*=(?!=)/g)].filter((m) => !inside(m.index!));
  assert.deepEqual(writes.map((m) => parser.slice(Math.max(0, parser.lastIndexOf('\n', m.index!)), m.index! + 40).trim()), [], 'a node written outside ClauseParser');
  // the node kinds a writer stores are the grammar's, named through NK (tree.ts, from grammar.ts); no table of its own
  const kindUses = [...parser.matchAll(/\bN_[A-Z_]+\b/g)].filter((m) => !inside(m.index!) && !/^N_[A-Z_]+ = NK\.|^N_[A-Z_]+,/.test(parser.slice(m.index!, m.index! + 40)));
  assert.deepEqual(kindUses.map((m) => m[0]), [], 'a node kind used outside ClauseParser');
  assert.doesNotMatch(parser, /KW_START|TOKEN_START|FAST_START/, 'a dispatch table of its own');
});
