// The token form of the search language, as ThoughtSpot writes it (docs/service-notes.md §2.11): the
// parser reads it as the same language as the documented form. The examples are the developer docs' own
// (thoughtspot/developer-docs: tml-api.adoc, tml.adoc, data-report-v2-api.adoc, spotter-agent-apis.adoc)
// and exported-Answer shapes built on the demo flights (`search_query` of an answer.tml).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clause } from '../../common/src/language/ast';
import { parseDocument, parseQuery } from '../../common/src/language/parser';
import { dotReading, splitColumnPath } from '../../common/src/language/keywords';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { MarkupContent, TextEdit } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

/** The clauses of a query without offsets, and its diagnostics' messages. */
function parse(text: string): { clauses: unknown[]; diagnostics: string[] } {
  const r = parseQuery(text);
  const strip = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(strip);
    if (x && typeof x === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(x)) if (!['start', 'end', 'operatorStart', 'operatorEnd', 'nSpan', 'terminated'].includes(k)) o[k] = strip(v);
      return o;
    }
    return x;
  };
  return { clauses: strip(r.query?.clauses ?? []) as unknown[], diagnostics: r.diagnostics.map((d) => d.message) };
}
const col = (name: string) => ({ kind: 'column', name, closed: true });
const text = (value: string) => ({ kind: 'text', value });
const filter = (name: string, values: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'filter', column: col(name), operator: '=', values, ...extra });
const column = (name: string, extra: Record<string, unknown> = {}) => ({ kind: 'column', column: col(name), ...extra });

/** The token form and the documented form read the same, up to `dotted`. */
function same(token: string, documented: string): void {
  const a = parse(token);
  const b = parse(documented);
  assert.deepEqual(a.diagnostics, [], token);
  assert.deepEqual(b.diagnostics, [], documented);
  const undot = (cs: unknown[]) => cs.map((c) => ({ ...(c as object), dotted: undefined }));
  assert.deepEqual(JSON.parse(JSON.stringify(undot(a.clauses))), JSON.parse(JSON.stringify(undot(b.clauses))), `${token} ~ ${documented}`);
}

test('a filter value after the dot: a word, a quoted text, a number', () => {
  assert.deepEqual(parse('[origin].SEA [delay]'), { clauses: [filter('origin', [text('SEA')], { dotted: true }), column('delay')], diagnostics: [] });
  same("[destination].'los angeles' [delay]", "[destination] = 'los angeles' [delay]");
  same('[delay].10 [origin]', '[delay] = 10 [origin]');
  // spotter-agent-apis.adoc: "sage_query": "[sales] [item type] = [item type].'jackets'"
  same("[sales] [item type] = [item type].'jackets'", "[sales] [item type] = 'jackets'");
});

test('a boolean after the dot, and true/false without quotes', () => {
  assert.deepEqual(parse('[is delayed].true').clauses, [filter('is delayed', [{ kind: 'boolean', value: true, raw: 'true' }], { dotted: true })]);
  assert.deepEqual(parse('[is delayed] = false'), { clauses: [filter('is delayed', [{ kind: 'boolean', value: false, raw: 'false' }])], diagnostics: [] });
});

test('a value list as dot tokens, with = and !=', () => {
  same('[origin] = [origin].SEA [origin].PDX [delay]', "[origin] = 'SEA', 'PDX' [delay]");
  same('[origin] != [origin].SEA [delay]', "[origin] != 'SEA' [delay]");
  // a dot token of another column ends the list
  assert.deepEqual(parse('[origin] = [origin].SEA [destination].PDX').clauses, [filter('origin', [text('SEA')]), filter('destination', [text('PDX')], { dotted: true })]);
});

test('a relative date after the dot (tml.adoc: [sales] [store] [date].monthly [date].\'this year\')', () => {
  same("[sales] [store] [date].monthly [date].'this year'", '[sales] [store] [date].monthly [date] this year');
  same("[delay] [date].'last 180 days'", '[delay] [date] last 180 days');
  same("[delay] [date].'this month'", '[delay] [date] this month');
  same('[delay] [date].today', '[delay] [date] today');
});

test('[date].monthly stays a bucket; a bucket word on a text column is its value, as the type decides', () => {
  assert.deepEqual(parse('[date].monthly').clauses, [{ kind: 'column', column: { ...col('date'), bucket: { name: 'monthly', known: 'monthly' } } }]);
  assert.equal(dotReading('monthly', 'monthly', 'DATE_TIME'), 'bucket');
  assert.equal(dotReading('monthly', 'monthly', 'VARCHAR'), 'value');
  assert.equal(dotReading('SEA', null, 'DATE_TIME'), undefined);
  assert.equal(dotReading('01/15/2001', null, 'DATE'), 'value');
  assert.equal(dotReading('SEA', null, 'INT32'), undefined);
  assert.equal(dotReading('true', null, 'BOOL'), 'value');
});

test('a column qualified by its table path (tml-api.adoc: [LINEORDER_1::Revenue] [PART_1::Color])', () => {
  assert.deepEqual(parse('[LINEORDER_1::Revenue] [PART_1::Color]'), { clauses: [column('LINEORDER_1::Revenue'), column('PART_1::Color')], diagnostics: [] });
  assert.deepEqual(splitColumnPath('flights_1::origin'), { path: 'flights_1', column: 'origin' });
  assert.deepEqual(splitColumnPath('origin'), { path: undefined, column: 'origin' });
});

test('{null} and {empty} after the dot', () => {
  same('[origin].{null} [delay]', '[origin] = {null} [delay]');
  same('[origin].{empty} [delay]', '[origin] = {empty} [delay]');
});

test('between with dot values', () => {
  same('[date] between [date].01/15/2001 and [date].03/31/2001', "[date] between '01/15/2001' and '03/31/2001'");
});

test('commas between tokens (data-report-v2-api.adoc\'s query_string)', () => {
  const doc = "by [city], [product], [item type] = [item type].'jackets', [region] = [region].'west', sort by sum [sales] descending";
  same(doc, "by [city] [product] [item type] = 'jackets' [region] = 'west' sort by sum [sales] descending");
  same('by [origin], [destination], [delay]', 'by [origin] [destination] [delay]');
});

test('ranked by an aggregated column', () => {
  const tb = parse('top 20 [origin] ranked by count [destination]').clauses[0] as Extract<Clause, { kind: 'topBottom' }>;
  assert.equal(tb.rankedByAggregation, 'count');
  assert.deepEqual(tb.rankedBy, col('destination'));
  assert.deepEqual(parse('top 20 [origin] ranked by count [destination]').diagnostics, []);
});

test('a bucketed sort column with its direction', () => {
  same('[date].daily [delay] sort by [date] [date].daily descending', '[date].daily [delay] sort by [date].daily descending');
});

test('an exported Answer\'s search_query on the demo flights parses whole, each query to the tree it has alone', () => {
  const queries = [
    "[origin] = [origin].SEA [origin].PDX [date].monthly [delay] [date].'last 180 days' sort by [date] [date].monthly descending",
    'top 20 [origin] ranked by count [destination] [destination] != [destination].LAX',
    '[flights_1::origin] [flights_1::delay] [flights_1::date].yearly',
    '[date] between [date].01/15/2001 and [date].03/31/2001 [origin].{null} [delay].10',
    '[delay] by [origin], [destination]',
    "[origin].SEA [is delayed].true [origin].{empty} [delay].-5 [destination].'los angeles' [date].today",
    'sum [delay].10 by [origin].SEA [origin].monthly',
  ];
  const text = queries.join('\n\n');
  const doc = parseDocument(text);
  assert.equal(doc.diagnostics.length, 2, 'the last query: sum and by take a column, no value');
  assert.equal(doc.queryCount, queries.length);
  for (let i = 0; i < doc.queryCount; i++) {
    const at = text.indexOf(queries[i]!);
    const alone = parseDocument(queries[i]!).queryNodes(0).map((n) => ({ ...n, start: n.start + at, end: n.end + at }));
    assert.deepEqual(doc.queryNodes(i), alone, queries[i]);
  }
});

// ---- the language service on the token form: completion, hover, formatting ----

const FLIGHTS = "@datasource 'Flights'\n";
function service() {
  return getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()], { Flights: { origin: ['SEA', 'PDX', 'SFO'], destination: ['los angeles', 'LAX'] } }) });
}
async function complete(textWithCursor: string) {
  const offset = textWithCursor.indexOf('|');
  const document = TextDocument.create('file:///t.tsq', 'tsq', 1, textWithCursor.slice(0, offset) + textWithCursor.slice(offset + 1));
  const list = await service().doComplete(document, document.positionAt(offset));
  return { document, items: list.items };
}

test('completion after [column].: the buckets of a date column, the values of an attribute (quoted when not a word)', async () => {
  const date = await complete(FLIGHTS + '[date].|');
  assert.ok(date.items.some((i) => i.label === 'monthly'));
  const origin = await complete(FLIGHTS + '[origin].|');
  // the catalog's values, then {null} and {empty} (grammar.ts `dotExpectations`)
  assert.deepEqual(origin.items.map((i) => i.label), ['SEA', 'PDX', 'SFO', '{null}', '{empty}']);
  assert.equal(TextDocument.applyEdits(origin.document, [origin.items[0]!.textEdit as TextEdit]), FLIGHTS + '[origin].SEA');
  const dest = await complete(FLIGHTS + '[destination].lo|');
  const la = dest.items.find((i) => i.label === 'los angeles')!;
  assert.equal(TextDocument.applyEdits(dest.document, [la.textEdit as TextEdit]), FLIGHTS + "[destination].'los angeles'");
});

test('hover on a token-form column and formatting keep the tokens', async () => {
  const text = FLIGHTS + "[origin].SEA [flights_1::delay] [date].'last 180 days'";
  const document = TextDocument.create('file:///t.tsq', 'tsq', 1, text);
  const h = await service().doHover(document, document.positionAt(text.indexOf('origin') + 2));
  assert.match((h!.contents as MarkupContent).value, /origin/);
  const messy = TextDocument.create('file:///f.tsq', 'tsq', 1, "[origin]  =  [origin].SEA   [origin].PDX ,  [delay]  TOP 5");
  assert.equal(TextDocument.applyEdits(messy, service().format(messy, undefined, { tabSize: 2, insertSpaces: true })), '[origin] = [origin].SEA [origin].PDX, [delay] top 5');
});

test('validation with the catalog: token-form queries are clean; a qualified column resolves to the column of that name', async () => {
  const ok = TextDocument.create('file:///t.tsq', 'tsq', 1, FLIGHTS + "[origin] = [origin].SEA [origin].PDX [flights_1::delay] [date].'last 180 days' [date].monthly");
  assert.deepEqual(await service().doValidation(ok), []);
  const bad = TextDocument.create('file:///t.tsq', 'tsq', 1, FLIGHTS + '[flights_1::delya]');
  assert.match(String((await service().doValidation(bad))[0]!.message), /Unknown column \[flights_1::delya\]/);
});

test('a dot token of another column after an operator is no value of the filter: it is a filter of its own', () => {
  const r = parse('[origin] = [destination].PDX');
  assert.deepEqual(r.clauses, [{ kind: 'filter', column: col('origin'), operator: '=', values: [] }, filter('destination', [text('PDX')], { dotted: true })]);
  assert.match(r.diagnostics.join(' '), /= needs a value after it/);
});
