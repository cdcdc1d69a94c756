/**
 * Typed views over the syntax tree (common/src/language/views.ts): their kinds and accessors are the
 * grammar's declaration (`NODE_CHILDREN`, grammar.ts) and nothing else, in the types and at run time, and
 * on real queries they give the nodes, spans, texts and tokens the parser wrote.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../common/src/language/parser';
import { NODE_CHILDREN, SEARCH_GRAMMAR, childItems, type SearchNodeKind } from '../../common/src/language/grammar';
import { accessorsOf, queryView, queryViews, type AccessorName, type NodeView } from '../../common/src/language/views';
import { KEYWORDS } from '../../common/src/language/keywords';
import { realisticFile } from '../bench/parse.bench';

/** Compile-time equality of two types (the test file is type-checked by `npm run typecheck`). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const expectType = <T extends true>(value: T): T => value;

test('views: one per node kind the grammar writes, and NODE_CHILDREN declares no kind the grammar does not write', () => {
  const declared = Object.keys(NODE_CHILDREN).sort();
  assert.deepEqual(declared, [...SEARCH_GRAMMAR.nodeKinds].sort(), 'a node kind without a view, or a view of no node kind');
  for (const k of SEARCH_GRAMMAR.nodeKinds) {
    const names = accessorsOf(k).map((a) => a.name);
    assert.equal(new Set(names).size, names.length, `${k}: an accessor twice`);
    // each accessor names a declared child; each declared child has its accessor
    const bases = childItems(k).map((c) => c.kind);
    for (const a of accessorsOf(k)) {
      assert.ok(bases.some((b) => a.name === (b === 'Clause' ? 'clauses' : b) || a.name === `${b}s`), `${k}.${a.name} names no declared child`);
      for (const c of a.kinds) assert.ok(SEARCH_GRAMMAR.nodeKinds.includes(c), `${k}.${a.name}: ${c} is no node kind`);
    }
    for (const b of bases) assert.ok(names.includes(b === 'Clause' ? 'clauses' : b) || names.includes(`${b}s`), `${k}: ${b} has no accessor`);
  }
});

test('views: the accessors\' names and results in the types are the declaration\'s', () => {
  expectType<Equal<AccessorName<'filter'>, 'columnRef' | 'values' | 'missing'>>(true);
  expectType<Equal<AccessorName<'growth'>, 'columnRefs'>>(true);
  expectType<Equal<AccessorName<'subsearch'>, 'columnRef' | 'clauses'>>(true);
  expectType<Equal<AccessorName<'rankedBy'>, 'columnRef'>>(true);
  expectType<Equal<AccessorName<'topBottom'>, never>>(true);
  const v = queryView(parseDocument('[origin] = SEA'), 0).clauses()[0]!;
  assert.ok(v.is('filter'));
  expectType<Equal<ReturnType<typeof v.get<'columnRef'>>, NodeView<'columnRef'>>>(true);
  expectType<Equal<ReturnType<typeof v.get<'values'>>, NodeView<'value'>[]>>(true);
  expectType<Equal<ReturnType<typeof v.get<'missing'>>, NodeView<'missing'> | undefined>>(true);
  // @ts-expect-error a filter has no accessor `value` (its values are a list)
  assert.throws(() => v.get('value'), /no accessor value/);
});

test('generated: on the benchmark file and every keyword example, each child is given by one accessor, and the views\' spans are the tree\'s', () => {
  const texts = [realisticFile(60_000).text, ...KEYWORDS.flatMap((k) => [k.example, `[origin] ${k.name} [delay]`]), '[origin] in ([origin] top 3 ranked by [delay])'];
  let checked = 0;
  const wrong: string[] = [];
  for (const text of texts) {
    const doc = parseDocument(text);
    for (let q = 0; q < doc.queryCount; q++) {
      const nodes = doc.queryNodes(q);
      const seen: { kind: string; start: number; end: number }[] = [];
      const walk = (v: NodeView): void => {
        seen.push({ kind: v.kind, start: v.start, end: v.end });
        const children = v.children();
        const given = accessorsOf(v.kind).flatMap((a) => {
          const found = children.filter((c) => a.kinds.includes(c.kind));
          if (!a.many && !a.optional && found.length !== 1) wrong.push(`${v.kind}.${a.name}: ${found.length} in ${JSON.stringify(v.text)}`);
          return found;
        });
        if (given.length !== children.length) wrong.push(`${v.kind}: a child no accessor gives in ${JSON.stringify(v.text)}`);
        checked++;
        children.forEach(walk);
      };
      queryView(doc, q).clauses().forEach(walk);
      assert.deepEqual(seen, nodes.map((n) => ({ kind: n.kind, start: n.start, end: n.end })), text.slice(0, 80));
    }
  }
  assert.ok(checked > 1000);
  assert.deepEqual(wrong, []);
});

/** The clauses of the only query of `text`, narrowed to `kind` in turn by the caller. */
function clauses(text: string): NodeView[] {
  const doc = parseDocument(text);
  assert.equal(doc.queryCount, 1);
  return queryView(doc, 0).clauses();
}

/** Narrows `v` to `kind` or fails. */
function narrow<K extends SearchNodeKind>(v: NodeView | undefined, kind: K): NodeView<K> {
  assert.ok(v?.is(kind), `${v?.kind} is no ${kind}`);
  return v;
}

test('views on the token form: a filter, a top with its ranked by aggregated', () => {
  const text = '[origin].SEA [delay] > 10 top 20 [origin] ranked by count [destination]';
  const c = clauses(text);
  assert.deepEqual(c.map((v) => v.kind), ['filter', 'filter', 'topBottom', 'column', 'rankedBy']);
  const sea = narrow(c[0], 'filter');
  assert.equal(sea.text, '[origin].SEA');
  assert.equal(sea.get('columnRef').text, '[origin]');
  assert.deepEqual(sea.get('values').map((v) => [v.text, v.span]), [['SEA', { start: 9, end: 12 }]]);
  assert.equal(sea.get('missing'), undefined);
  const delay = narrow(c[1], 'filter');
  assert.deepEqual(delay.tokens().map((t) => [t.kind, t.value]), [['column', 'delay'], ['operator', '>'], ['number', '10']]);
  assert.equal(narrow(c[2], 'topBottom').text, 'top 20');
  const ranked = narrow(c[4], 'rankedBy');
  assert.equal(ranked.text, 'ranked by count [destination]');
  assert.deepEqual(ranked.span, { start: text.indexOf('ranked'), end: text.length });
  assert.deepEqual(ranked.get('columnRef').tokens().map((t) => t.value), ['destination']);
  assert.deepEqual(ranked.tokens().map((t) => t.value), ['ranked by', 'count', 'destination']);
});

test('views on the token form: a relative date after the dot, a joined column, a bucketed sort', () => {
  const date = narrow(clauses("[date].'last 180 days'")[0], 'dateFilter');
  assert.equal(date.get('columnRef')?.text, '[date]');
  assert.deepEqual(date.tokens().map((t) => [t.kind, t.value]), [['column', 'date'], ['dot', '.'], ['value', 'last 180 days']]);
  const joined = narrow(clauses('[flights_1::origin]')[0], 'column');
  assert.equal(joined.get('columnRef').tokens()[0]!.value, 'flights_1::origin');
  const sort = narrow(clauses('sort by [date].monthly descending')[0], 'sort');
  assert.equal(sort.text, 'sort by [date].monthly descending');
  assert.equal(sort.get('columnRef').text, '[date].monthly');
  assert.deepEqual(sort.get('columnRef').span, { start: 8, end: 22 });
});

test('views: offsets on descent in a document of several queries, a subsearch\'s clauses, a growth\'s two columns', () => {
  const text = "@datasource 'Flights'\n-- first\n[origin] -- the origin\n  top 3;\n\ngrowth of [delay] by [date] [origin] in ([origin] [delay] > 5)";
  const doc = parseDocument(text);
  const [first, second] = queryViews(doc);
  assert.equal(first!.text, doc.query(0).text);
  assert.deepEqual(first!.span, { start: doc.query(0).start, end: doc.query(0).end });
  assert.equal(second!.text, doc.query(1).text);
  const [growth, sub] = second!.clauses();
  assert.deepEqual(second!.clauses().map((v) => v.kind), ['growth', 'subsearch']);
  assert.deepEqual(narrow(growth, 'growth').get('columnRefs').map((r) => r.text), ['[delay]', '[date]']);
  const s = narrow(sub, 'subsearch');
  assert.equal(s.get('columnRef')?.text, '[origin]');
  assert.deepEqual(s.get('clauses').map((v) => [v.kind, v.text]), [['column', '[origin]'], ['filter', '[delay] > 5']]);
  const inner = narrow(s.get('clauses')[1], 'filter');
  assert.equal(inner.get('values')[0]!.start, text.lastIndexOf('5'));
  const missing = narrow(clauses('[delay] >')[0], 'filter').get('missing');
  assert.deepEqual(missing && [missing.span, missing.text], [{ start: 9, end: 9 }, ''], 'a missing value: an empty span where it would be');
});

test('generated: a query view\'s text and span are the AST query\'s (symbols and the agent tools read them), comments inside and around included', () => {
  const texts = [realisticFile(60_000).text, "-- a\n[origin] -- b\n -- c\n[delay] > 3 -- d\n;\n  top 3 --e", "[origin] 'unclosed \n\n  é [delay]  ", ...KEYWORDS.map((k) => `-- x\n${k.example} -- y`)];
  let n = 0;
  for (const text of texts) {
    const doc = parseDocument(text);
    for (let i = 0; i < doc.queryCount; i++, n++) {
      const q = doc.query(i);
      const v = queryView(doc, i);
      assert.deepEqual([v.text, v.span], [q.text, { start: q.start, end: q.end }], JSON.stringify(text.slice(q.start, q.end + 20)));
    }
  }
  assert.ok(n > 500);
});
