/**
 * The .tsq parser: AST of ast.ts for each clause kind (what the emulator compiles without re-parsing),
 * query splitting, data source in force, query text without comments, and error recovery.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clause, Query } from '../../common/src/language/ast';
import * as codes from '../../common/src/language/diagnosticCodes';
import { clauseAt, parseDocument, parseQuery, queryAt, tokenAt } from '../../common/src/language/parser';
import { tokenize } from '../../common/src/language/lexer';
import { PERIOD_OVER_PERIOD } from '../../common/src/language/keywords';

function q(text: string): { query: Query; codes: string[] } {
  const r = parseQuery(text);
  assert.ok(r.query, `no query for ${text}`);
  return { query: r.query, codes: r.diagnostics.map((d) => d.code) };
}
const only = (text: string): Clause => {
  const { query, codes: c } = q(text);
  assert.deepEqual(c, [], `no diagnostic expected for ${text}`);
  assert.equal(query.clauses.length, 1, JSON.stringify(query.clauses));
  return query.clauses[0]!;
};
const src = (text: string, s: { start: number; end: number }) => text.slice(s.start, s.end);

test('column clauses: listed, aggregated, bucketed, by, for each', () => {
  const text = "[origin] sum [delay] [date].monthly [date].'day of week' by [destination] for each average [distance]";
  const { query, codes: c } = q(text);
  assert.deepEqual(c, []);
  const cl = query.clauses;
  assert.deepEqual(cl.map((x) => x.kind), ['column', 'column', 'column', 'column', 'column', 'column']);
  const [a, b, d, e, f, g] = cl as Extract<Clause, { kind: 'column' }>[];
  assert.equal(a!.column.name, 'origin');
  assert.equal(b!.aggregation, 'sum');
  assert.equal(src(text, b!), 'sum [delay]');
  assert.equal(src(text, { start: b!.aggregationStart!, end: b!.aggregationEnd! }), 'sum');
  assert.deepEqual([d!.column.bucket?.name, d!.column.bucket?.known], ['monthly', 'monthly']);
  assert.equal(src(text, d!.column), '[date].monthly');
  assert.deepEqual([e!.column.bucket?.name, e!.column.bucket?.known], ['day of week', 'day of week']);
  assert.equal(f!.by, true);
  assert.equal(f!.column.name, 'destination');
  assert.equal(g!.forEach, true);
  assert.equal(g!.aggregation, 'average');
});

test('filter clauses: operators, value lists, between, text operators, constants, aggregate filters', () => {
  let c = only("[origin] = 'SEA', 'PDX'") as Extract<Clause, { kind: 'filter' }>;
  assert.equal(c.kind, 'filter');
  assert.equal(c.operator, '=');
  assert.deepEqual(c.values.map((v) => (v.kind === 'text' ? v.value : v.kind)), ['SEA', 'PDX']);
  c = only('[delay] between -5 and 10.5') as Extract<Clause, { kind: 'filter' }>;
  assert.equal(c.operator, 'between');
  assert.deepEqual(c.values.map((v) => (v.kind === 'number' ? v.value : null)), [-5, 10.5]);
  c = only("[origin] NOT Begins With 'S'") as Extract<Clause, { kind: 'filter' }>;
  assert.equal(c.operator, 'not begins with');
  c = only('[origin] != {null}') as Extract<Clause, { kind: 'filter' }>;
  assert.equal(c.values[0]!.kind, 'null');
  c = only("[date] after '2001-01-31'") as Extract<Clause, { kind: 'filter' }>;
  assert.equal(c.operator, 'after');
  const { query } = q('[origin] for sum [delay] > 5000');
  const f = query.clauses[1] as Extract<Clause, { kind: 'filter' }>;
  assert.equal(f.kind, 'filter');
  assert.equal(f.aggregation, 'sum');
  assert.equal(f.operator, '>');
});

test('relative date filters, with and without a column', () => {
  const cases: [string, unknown][] = [
    ['[date] last 7 days', { type: 'period', which: 'last', n: 7, unit: 'day' }],
    ['[date] this month', { type: 'period', which: 'this', n: 1, unit: 'month' }],
    ['[date] next 2 quarters', { type: 'period', which: 'next', n: 2, unit: 'quarter' }],
    ['[date] last 2 days for each month', { type: 'period', which: 'last', n: 2, unit: 'day', forEach: 'month' }],
    ['[date] 3 weeks ago', { type: 'ago', n: 3, unit: 'week' }],
    ['[date] year to date', { type: 'toDate', unit: 'year' }],
    ['[date] yesterday', { type: 'yesterday' }],
  ];
  for (const [text, filter] of cases) {
    const c = only(text) as Extract<Clause, { kind: 'dateFilter' }>;
    assert.equal(c.kind, 'dateFilter', text);
    assert.equal(c.column?.name, 'date');
    assert.deepEqual(c.filter, filter, text);
    assert.equal(src(text, c), text);
  }
  // An aggregated column is listed; the date filter then applies to the data source's date column.
  const { query } = q('sum [delay] today');
  assert.deepEqual(query.clauses.map((x) => x.kind), ['column', 'dateFilter']);
  assert.equal((query.clauses[1] as Extract<Clause, { kind: 'dateFilter' }>).column, undefined);
});

test('growth of: every period-over-period keyword of the catalogue is the clause\'s, with the bucket before it (search-growth)', () => {
  for (const [keyword, { buckets }] of Object.entries(PERIOD_OVER_PERIOD)) {
    const { query, codes: c } = q(`growth of [delay] by [date] ${buckets[0]} ${keyword}`);
    assert.deepEqual(c, [], keyword);
    assert.deepEqual(query.clauses.map((x) => x.kind), ['growth'], keyword);
    const g = query.clauses[0] as Extract<Clause, { kind: 'growth' }>;
    assert.deepEqual([g.bucket, g.periodOverPeriod], [buckets[0], keyword]);
  }
  const plain = q('growth of [delay] by [date].weekly').query.clauses[0] as Extract<Clause, { kind: 'growth' }>;
  assert.deepEqual([plain.bucket, plain.periodOverPeriod], ['weekly', undefined]);
});

test('top/bottom, ranked by, sort, growth, calendar, bucket and keyword clauses', () => {
  const text = "top 5 [origin] [delay] [distance] ranked by [distance] sort by sum [delay] descending growth of [delay] by [date] monthly year-over-year calendar.fiscal [date] weekly vs all";
  const { query, codes: c } = q(text);
  assert.deepEqual(c, []);
  const byKind = (k: string) => query.clauses.filter((x) => x.kind === k);
  const tb = byKind('topBottom')[0] as Extract<Clause, { kind: 'topBottom' }>;
  assert.deepEqual([tb.direction, tb.n, tb.rankedBy?.name], ['top', 5, 'distance']);
  const s = byKind('sort')[0] as Extract<Clause, { kind: 'sort' }>;
  assert.deepEqual([s.column.name, s.aggregation, s.direction], ['delay', 'sum', 'descending']);
  const g = byKind('growth')[0] as Extract<Clause, { kind: 'growth' }>;
  assert.deepEqual([g.measure.name, g.by.name, g.bucket, g.periodOverPeriod], ['delay', 'date', 'monthly', 'year-over-year']);
  assert.equal((byKind('calendar')[0] as Extract<Clause, { kind: 'calendar' }>).name, 'fiscal');
  assert.equal((byKind('bucket')[0] as Extract<Clause, { kind: 'bucket' }>).bucket, 'weekly');
  // `vs all` is one phrase (all.adoc: valid only inside a vs phrase): one versus clause.
  assert.deepEqual(byKind('versus').map((x) => src(text, x)), ['vs all']);
  const bottom = only('bottom') as Extract<Clause, { kind: 'topBottom' }>;
  assert.deepEqual([bottom.direction, bottom.n, bottom.nSpan], ['bottom', 10, undefined]);
  // Clauses come in source order.
  for (let i = 1; i < query.clauses.length; i++) assert.ok(query.clauses[i]!.start >= query.clauses[i - 1]!.start);
});

test('a document splits at ;, blank lines and directives; data source in force; text without comments', () => {
  const text = [
    "-- header",
    "@datasource 'Flights'",
    "[origin] [delay] top 10; [distance]",
    "[date].monthly -- bucketed",
    "  [delay]",
    "   ",
    "@datasource Cars",
    "[Horsepower]",
  ].join('\n');
  const doc = parseDocument(text);
  assert.deepEqual(doc.diagnostics, []);
  assert.deepEqual(doc.queries.map((x) => x.text), ['[origin] [delay] top 10', '[distance]\n[date].monthly \n  [delay]', '[Horsepower]']);
  assert.deepEqual(doc.queries.map((x) => x.dataSource), ['Flights', 'Flights', 'Cars']);
  assert.equal(doc.directives.length, 2);
  assert.equal(src(text, doc.directives[0]!.valueSpan!), 'Flights');
  assert.equal(doc.comments.length, 2);
  assert.equal(src(text, doc.queries[1]!), '[distance]\n[date].monthly -- bucketed\n  [delay]');
  const none = parseDocument('[a]\n\n[b]');
  assert.deepEqual(none.queries.map((x) => x.dataSource), [undefined, undefined]);
});

test('error recovery: two mistakes in one query are both reported, the rest still parses', () => {
  const text = "[origin] = [delay] > [distance] between 1 [date] last 7 days";
  const { query, codes: c } = q(text);
  assert.deepEqual(c, [codes.MISSING_OPERAND, codes.MISSING_OPERAND, codes.BETWEEN_WITHOUT_AND]);
  assert.ok(query.clauses.some((x) => x.kind === 'filter' && x.column.name === 'delay'));
  assert.ok(query.clauses.some((x) => x.kind === 'dateFilter'));
  const d = parseDocument("[a] = 'x [b]\n[c] sort by\n\n[d] #");
  assert.deepEqual(d.diagnostics.map((x) => x.code), [codes.UNTERMINATED_VALUE, codes.MISSING_OPERAND, codes.STRAY_CHARACTER]);
  assert.equal(d.queries.length, 2);
});

test('syntax diagnostics of the parser', () => {
  const cases: [string, string, string][] = [
    ['[delay] >', codes.MISSING_OPERAND, '>'],
    ["[origin] = 'a',", codes.MISSING_OPERAND, ','],
    ['= 5', codes.MISSING_OPERAND, '='],
    ['sort by', codes.MISSING_OPERAND, 'sort by'],
    ['sum', codes.MISSING_OPERAND, 'sum'],
    ['[delay] between 1', codes.BETWEEN_WITHOUT_AND, 'between 1'],
    ['[delay] between 1 and', codes.MISSING_OPERAND, 'and'],
    ['origin [delay]', codes.UNKNOWN_WORD, 'origin'],
    // a word after the dot of a column alone is a bucket or a value, as the column's type says (validation); after sort by, a bucket
    ['sort by [date].fortnightly', codes.UNKNOWN_BUCKET, 'fortnightly'],
    ['[delay] + [distance]', codes.FORMULA_IN_QUERY, '+'],
    ['sum([delay]) [origin]', codes.FORMULA_IN_QUERY, 'sum([delay])'],
    ['[origin] in (top 10 [origin]', codes.UNCLOSED_PAREN, '('],
    ['[date] last', codes.MISSING_OPERAND, 'last'],
  ];
  for (const [text, code, covered] of cases) {
    const r = parseQuery(text);
    const d = r.diagnostics.find((x) => x.code === code);
    assert.ok(d, `${code} expected for ${text}, got ${JSON.stringify(r.diagnostics)}`);
    assert.equal(text.slice(d.start, d.end), covered, `range of ${code} in ${text}`);
  }
});

test('parseQuery: trailing ; accepted, ; or directive inside refused, empty text gives no query', () => {
  assert.deepEqual(parseQuery('[a];').diagnostics, []);
  assert.deepEqual(parseQuery('[a]; [b]').diagnostics.map((d) => d.code), [codes.STRAY_CHARACTER]);
  assert.deepEqual(parseQuery("@datasource 'x'\n[a]").diagnostics.map((d) => d.code), [codes.STRAY_CHARACTER]);
  assert.equal(parseQuery('  -- only a comment').query, undefined);
  assert.equal(parseQuery('[a]\n\n[b]').query!.clauses.length, 2);
});

test('tokenAt, queryAt and clauseAt locate the cursor', () => {
  const text = "[origin] sort b -- c\n\n[delay] = 'x";
  const tokens = tokenize(text);
  const at = (s: string, delta = 0) => tokenAt(tokens, text.indexOf(s) + delta);
  assert.equal(at('origin', 3).token?.value, 'origin');
  assert.equal(at('sort', 4).token?.value, 'sort');
  assert.equal(at(' b', 2).token?.value, 'b');
  assert.equal(at(' b', 2).previous?.value, 'sort');
  assert.equal(at('-- c', 2).inComment, true);
  const between = at(' sort', 1);
  assert.equal(between.token, undefined);
  assert.equal(between.previous?.value, 'origin');
  const doc = parseDocument(text);
  const off = text.indexOf("'x") + 2;
  const query = queryAt(doc, off)!;
  assert.equal(query.text, "[delay] = 'x");
  assert.equal(clauseAt(query, off)?.kind, 'filter');
  assert.equal(queryAt(doc, text.indexOf('-- c') + 3), undefined);
});

test('parsed nodes are plain objects, equal to the same tree written as literals (nodes.ts constructors)', () => {
  const text = "@datasource 'Flights'\n[origin] sum [delay] [date].monthly by [dest] for each [x] [a] = 'SEA', 2 for sum [d] > 5 "
    + 'sort by [d] descending sort by max [d] top 3 bottom [date] last 7 days today -- note\n;[b]';
  const doc = parseDocument(text);
  const at = (s: string, from = 0) => ({ start: text.indexOf(s, from), end: text.indexOf(s, from) + s.length });
  const col = (name: string, from = 0) => ({ kind: 'column', name, closed: true, ...at(`[${name}]`, from) });
  const directive = { kind: 'datasource', ...at("@datasource 'Flights'"), value: 'Flights', valueSpan: at('Flights') };
  const dateCol = { kind: 'column', name: 'date', closed: true, bucket: { name: 'monthly', known: 'monthly', ...at('monthly') }, start: at('[date]').start, end: at('monthly').end };
  const lastDate = text.lastIndexOf('[date]');
  const expected = [
    {
      kind: 'query', start: at('[origin]').start, end: at('today').end, dataSource: 'Flights', dataSourceDirective: directive,
      text: text.slice(at('[origin]').start, at('today').end),
      clauses: [
        { kind: 'column', column: col('origin'), ...at('[origin]') },
        { kind: 'column', column: col('delay'), aggregation: 'sum', aggregationStart: at('sum').start, aggregationEnd: at('sum').end, start: at('sum').start, end: at('[delay]').end },
        { kind: 'column', column: dateCol, start: dateCol.start, end: dateCol.end },
        { kind: 'column', column: col('dest'), by: true, start: at('by [dest]').start, end: at('[dest]').end },
        { kind: 'column', column: col('x'), forEach: true, start: at('for each').start, end: at('[x]').end },
        {
          kind: 'filter', column: col('a'), operator: '=', operatorStart: at(' = ').start + 1, operatorEnd: at(' = ').start + 2,
          values: [{ kind: 'text', value: 'SEA', terminated: true, ...at("'SEA'") }, { kind: 'number', value: 2, raw: '2', ...at('2', at("'SEA'").end) }],
          start: at('[a]').start, end: at('2', at("'SEA'").end).end,
        },
        {
          kind: 'filter', column: col('d'), aggregation: 'sum', operator: '>', operatorStart: at('>').start, operatorEnd: at('>').end,
          values: [{ kind: 'number', value: 5, raw: '5', ...at('5') }], start: at('sum [d]').start, end: at('5').end,
        },
        { kind: 'sort', column: col('d', at('sort by').start), direction: 'descending', start: at('sort by').start, end: at('descending').end },
        { kind: 'sort', column: col('d', at('max').start), aggregation: 'max', start: at('sort by max').start, end: at('[d]', at('max').start).end },
        { kind: 'topBottom', direction: 'top', n: 3, nSpan: at('3'), start: at('top').start, end: at('3').end },
        { kind: 'topBottom', direction: 'bottom', n: 10, ...at('bottom') },
        { kind: 'dateFilter', column: { kind: 'column', name: 'date', closed: true, start: lastDate, end: lastDate + 6 }, filter: { type: 'period', which: 'last', n: 7, unit: 'day' }, start: lastDate, end: at('days').end },
        { kind: 'dateFilter', filter: { type: 'today' }, ...at('today') },
      ],
    },
    { kind: 'query', ...at('[b]'), text: '[b]', dataSource: 'Flights', dataSourceDirective: directive, clauses: [{ kind: 'column', column: col('b'), ...at('[b]') }] },
  ];
  assert.deepStrictEqual(doc.diagnostics, []);
  assert.deepStrictEqual(doc.queries, expected);
  assert.deepStrictEqual(doc.comments, [{ kind: 'comment', ...at('-- note') }]);
  assert.deepStrictEqual(doc.directives, [directive]);
  for (const node of [doc.queries[0]!, doc.queries[0]!.clauses[0]!, doc.comments[0]!, doc.directives[0]!]) assert.equal(Object.getPrototypeOf(node), Object.prototype);
});

test('every keyword of the reference parses into a clause with its meaning (issue: bare tokens)', () => {
  // Period functions (list-period.adoc) are the date part of their column, as the bucket.
  for (const [text, bucket] of [['quarter ([date])', 'quarter of year'], ['week of month ([date])', 'week of month'], ['month of year ([date])', 'month of year'], ['hour ([date])', 'hour of day'], ['day ([date])', 'day of month']] as const) {
    const c = only(text) as Extract<Clause, { kind: 'column' }>;
    assert.deepEqual([c.kind, c.column.name, c.column.bucket?.known, src(text, c)], ['column', 'date', bucket, text], text);
  }
  const dq = only("[date].'day of quarter'") as Extract<Clause, { kind: 'column' }>;
  assert.equal(dq.column.bucket?.known, 'day of quarter');
  // Named days, months, month and year, a bare year (list-date.adoc).
  for (const [text, filter] of [['monday', { type: 'named', dayOfWeek: 1 }], ['Sunday', { type: 'named', dayOfWeek: 7 }], ['january', { type: 'named', month: 1 }], ['february 2014', { type: 'named', month: 2, year: 2014 }], ['2014', { type: 'named', year: 2014 }]] as const) {
    const c = only(text) as Extract<Clause, { kind: 'dateFilter' }>;
    assert.deepEqual([c.kind, c.column, c.filter, src(text, c)], ['dateFilter', undefined, filter, text], text);
  }
  // Named quarters (q1.adoc … q4.adoc), optionally with a year like a month (`q3 2024`); any case.
  for (const [text, filter] of [['q1', { type: 'named', quarter: 1 }], ['Q4', { type: 'named', quarter: 4 }], ['q3 2024', { type: 'named', quarter: 3, year: 2024 }]] as const) {
    const c = only(text) as Extract<Clause, { kind: 'dateFilter' }>;
    assert.deepEqual([c.kind, c.column, c.filter, src(text, c)], ['dateFilter', undefined, filter, text], text);
  }
  // On a named date column (`[date] q2`) and after a measure (`[delay] q2 2001`) alike; q5 is no keyword.
  const onDate = q('[date] q2 [delay]');
  assert.deepEqual(onDate.codes, []);
  assert.deepEqual(onDate.query.clauses.map((x) => (x.kind === 'dateFilter' ? [x.kind, x.column?.name, x.filter] : [x.kind])), [['dateFilter', 'date', { type: 'named', quarter: 2 }], ['column']]);
  const afterMeasure = only('[delay] q2 2001') as Extract<Clause, { kind: 'dateFilter' }>;
  assert.deepEqual([afterMeasure.column?.name, afterMeasure.filter], ['delay', { type: 'named', quarter: 2, year: 2001 }]);
  const q5 = q('[delay] q5');
  assert.deepEqual(q5.codes, [codes.UNKNOWN_WORD]);
  assert.ok(q5.query.clauses.every((x) => x.kind !== 'dateFilter'), JSON.stringify(q5.query.clauses));
  // `second` is a unit (list-time.adoc last_n_seconds.adoc).
  assert.deepEqual((only('last 30 seconds') as Extract<Clause, { kind: 'dateFilter' }>).filter, { type: 'period', which: 'last', n: 30, unit: 'second' });
  // by <unit> groups the date column by that unit; plain calendar and fiscal are calendars; best is top.
  for (const [text, bucket] of [['by week', 'weekly'], ['by month', 'monthly'], ['by day of week', 'day of week']] as const) {
    assert.deepEqual(only(text), { kind: 'bucket', bucket, start: 0, end: text.length }, text);
  }
  assert.deepEqual(only('calendar'), { kind: 'calendar', name: 'calendar', start: 0, end: 8 });
  assert.deepEqual(only('fiscal'), { kind: 'calendar', name: 'fiscal', start: 0, end: 6 });
  assert.deepEqual([(only('best 3') as Extract<Clause, { kind: 'topBottom' }>).direction, (only('best 3') as Extract<Clause, { kind: 'topBottom' }>).n], ['top', 3]);
  // A date keyword after a measure stays bound to it syntactically; the data source's date column is a semantic rule.
  const { query } = q('[sales] today by [store]');
  assert.deepEqual(query.clauses.map((x) => x.kind), ['dateFilter', 'column']);
  // The keywords the emulator does not run keep their operands in one clause, with no diagnostic of the parser.
  // vs / versus (vs.adoc), vs all (all.adoc): a versus clause between the sides' filters.
  assert.deepEqual(only('vs all'), { kind: 'versus', all: true, start: 0, end: 6 });
  assert.deepEqual(q("[a] = 'x' versus [a] = 'y'").query.clauses.map((x) => x.kind === 'versus' ? `versus:${x.all}` : x.kind), ['filter', 'versus:false', 'filter']);
  assert.deepEqual(q('[a] all').codes, ['tsq.misplacedKeyword']);
  // The location keywords (list-location.adoc): one location clause, on the column before it when there is one.
  assert.deepEqual(only("[city] near 'seattle' within 50 miles"), {
    kind: 'location', column: { kind: 'column', name: 'city', closed: true, start: 0, end: 6 }, relation: 'near', place: 'seattle', distance: { n: 50, unit: 'miles' }, start: 0, end: 37,
  });
  const bare = only("[city] near 'seattle'") as Extract<Clause, { kind: 'location' }>;
  assert.deepEqual([bare.relation, bare.place, bare.distance, bare.end], ['near', 'seattle', undefined, 21]);
  const far = only("[city] farther than 80 km from 'seattle'") as Extract<Clause, { kind: 'location' }>;
  assert.deepEqual([far.relation, far.place, far.distance, far.column?.name], ['farther', 'seattle', { n: 80, unit: 'km' }, 'city']);
  assert.equal((only("near 'x' within 5 meters") as Extract<Clause, { kind: 'location' }>).column, undefined);
  // in / not in (in.adoc): the subsearch parsed as a query of its own, on the column before the keyword.
  const sub = only('[origin] in (top 10 [origin] [delay])') as Extract<Clause, { kind: 'subsearch' }>;
  assert.deepEqual([sub.kind, sub.column?.name, sub.negated, sub.clauses.map((x) => x.kind), sub.end], ['subsearch', 'origin', false, ['topBottom', 'column', 'column'], 37]);
  const notIn = only("[a] not in ([a] [b] = 'x')") as Extract<Clause, { kind: 'subsearch' }>;
  assert.deepEqual([notIn.negated, notIn.clauses.map((x) => x.kind)], [true, ['column', 'filter']]);
  assert.deepEqual(q('[a] in [b]').codes, ['tsq.missingOperand']);
  assert.deepEqual(q('[a] in ([a]').codes, ['tsq.unclosedParen']);
  // An incomplete location phrase says what is missing.
  for (const text of ['[city] near', "[city] near 'x' within 50", "[city] farther than 80 km 'x'", '[city] farther than from', '[city] farther than 8 km from']) {
    assert.deepEqual(q(text).codes, ['tsq.missingOperand'], text);
  }
  // similar to's alternatives (similar-to.adoc).
  assert.deepEqual((only("[x] similar to '%jacket%' or '%t-shirt%'") as Extract<Clause, { kind: 'filter' }>).values.map((v) => v.kind === 'text' && v.value), ['%jacket%', '%t-shirt%']);
  // A keyword where it means nothing says so.
  assert.deepEqual(q('[x] ascending').codes, ['tsq.misplacedKeyword']);
  assert.deepEqual(q('[x] ranked by [y]').codes, ['tsq.misplacedKeyword']);
});

test('a value, a number or a ( … ) standing alone gets tsq.bareValue (a warning), and still parses to a clause', () => {
  const cases: [string, string][] = [
    ["[delay] 'SEA'", "'SEA'"],
    ['[delay] 42', '42'],
    ["[delay] ('SEA', 'PDX')", "('SEA', 'PDX')"],
    ['[delay] {null}', '{null}'],
  ];
  for (const [text, covered] of cases) {
    const r = parseQuery(text);
    const d = r.diagnostics.filter((x) => x.code === codes.BARE_VALUE);
    assert.equal(d.length, 1, `one tsq.bareValue for ${text}: ${JSON.stringify(r.diagnostics)}`);
    assert.equal(d[0]!.severity, 'warning');
    assert.equal(text.slice(d[0]!.start, d[0]!.end), covered);
    assert.equal(r.query!.clauses.length, 2);
  }
  // values after an operator, a year as a named date, a top N and a subsearch are no bare values
  for (const ok of ["[origin] = 'SEA', 'PDX'", '[delay] 2014', '[delay] top 10 [origin]', "[delay] [date] = 2001", "[origin] in ([origin] = 'SEA')"]) {
    assert.deepEqual(parseQuery(ok).diagnostics.filter((x) => x.code === codes.BARE_VALUE), [], ok);
  }
});

test('<unit> to date for each <period> parses into one date filter; a shorter period is warned', () => {
  const r = parseQuery('[delay] month to date for each quarter');
  assert.deepEqual(r.diagnostics, []);
  const filters = r.query!.clauses.filter((c) => c.kind === 'dateFilter');
  assert.equal(filters.length, 1);
  assert.deepEqual(filters[0]!.kind === 'dateFilter' && filters[0]!.filter, { type: 'toDate', unit: 'month', forEach: 'quarter' });
  assert.ok(!r.query!.clauses.some((c) => c.kind === 'keyword' || c.kind === 'error' || (c.kind === 'column' && c.forEach)));
  const w = parseQuery('[delay] month to date for each week');
  assert.deepEqual(w.diagnostics.map((d) => [d.code, d.severity]), [[codes.MISPLACED_KEYWORD, 'warning']]);
});
