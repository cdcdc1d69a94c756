/**
 * Diagnostics of the .tsq language service: every code, with its range, against catalogs built from the
 * vega-datasets flights, cars and movies data; none of the semantic ones without a catalog; disabled codes;
 * cancellation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import * as codes from '../../common/src/language/diagnosticCodes';
import { KEYWORDS, periodOverPeriodBucketError } from '../../common/src/language/keywords';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider, LanguageSettings } from '../../common/src/languageService/types';
import { closest, editDistance, type UnknownColumnData } from '../../common/src/languageService/validation';
import { carsCatalog, flightsCatalog, makeCatalogProvider, moviesCatalog, type FixtureSource } from '../fixtures/catalogs';

const catalog = () => makeCatalogProvider([flightsCatalog(), carsCatalog(), moviesCatalog()]);

async function validate(text: string, opts: { catalog?: CatalogProvider | null; settings?: LanguageSettings; cancelled?: boolean } = {}) {
  const document = TextDocument.create('file:///v.tsq', 'tsq', 1, text);
  const ls = getLanguageService({ catalog: opts.catalog === null ? undefined : (opts.catalog ?? catalog()) });
  const diags = await ls.doValidation(document, opts.settings ?? {}, { isCancellationRequested: !!opts.cancelled });
  return { diags, covered: (d: Diagnostic) => text.slice(document.offsetAt(d.range.start), document.offsetAt(d.range.end)) };
}

/** Asserts that `text` gives exactly one diagnostic with `code`, covering `covered`. */
async function expectOne(text: string, code: string, covered: string, opts: Parameters<typeof validate>[1] = {}) {
  const { diags, covered: cov } = await validate(text, opts);
  const found = diags.filter((d) => d.code === code);
  assert.equal(found.length, 1, `${code} once in ${JSON.stringify(text)}: ${JSON.stringify(diags.map((d) => [d.code, d.message]))}`);
  assert.equal(cov(found[0]!), covered);
  assert.equal(found[0]!.source, 'tsq');
  return found[0]!;
}

const F = "@datasource 'Flights'\n";

test('every syntax code is reported with its range', async () => {
  const cases: [string, string, string][] = [
    [F + "[origin] = 'SEA", codes.UNTERMINATED_VALUE, "'SEA"],
    [F + '[origin top 10', codes.UNCLOSED_BRACKET, '[origin top 10'],
    [F + '[] [delay]', codes.EMPTY_COLUMN, '[]'],
    [F + '[ori[gin] [delay]', codes.BRACKET_IN_COLUMN, '[ori[gin]'],
    [F + "[origin] = 'O'Hare'", codes.QUOTE_IN_VALUE, "'O'Hare'"],
    [F + '[delay] >', codes.MISSING_OPERAND, '>'],
    [F + '[delay] between 1 [origin]', codes.BETWEEN_WITHOUT_AND, 'between 1'],
    [F + '[delay] $ [origin]', codes.STRAY_CHARACTER, '$'],
    [F + 'origin [delay]', codes.UNKNOWN_WORD, 'origin'],
    [F + 'sort by [date].fortnightly', codes.UNKNOWN_BUCKET, 'fortnightly'],
  ];
  for (const [text, code, covered] of cases) {
    await expectOne(text, code, covered);
    await expectOne(text, code, covered, { catalog: null });
  }
  const d = await expectOne(F + 'origin [delay]', codes.UNKNOWN_WORD, 'origin');
  assert.equal(d.severity, DiagnosticSeverity.Warning);
});

test('unknown column with the closest names in data', async () => {
  const d = await expectOne(F + '[delya] [origin]', codes.UNKNOWN_COLUMN, 'delya');
  const data = d.data as UnknownColumnData;
  assert.deepEqual(data.suggestions, ['delay']);
  assert.equal(data.dataSource, 'Flights');
  assert.match(String(d.message), /\[delay\]/);
  const far = await expectOne(F + '[zzzzzzzzzz]', codes.UNKNOWN_COLUMN, 'zzzzzzzzzz');
  assert.deepEqual((far.data as UnknownColumnData).suggestions, []);
  // Case differences are fine (docs/service-interface.md §8.2: execution is case-insensitive).
  const { diags } = await validate(F + '[ORIGIN] [Delay] sort by [DISTANCE]');
  assert.deepEqual(diags, []);
  // Every place a column can be: filters, sort, growth, ranked by, date filters.
  const all = await validate(F + "[a1] = 'x' sort by [a2] growth of [a3] by [a4] top [a5] ranked by [a6] [a7] last 7 days");
  assert.deepEqual(all.diags.map((x) => all.covered(x)), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
});

test('a column name ambiguous ignoring case (docs/service-interface.md §8.3)', async () => {
  const src: FixtureSource = { id: 'ds-1', name: 'Dup', columns: [
    { name: 'Region', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
    { name: 'region', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
    { name: 'Sales', dataType: 'DOUBLE', kind: 'MEASURE' },
  ] };
  const d = await expectOne("@datasource 'Dup'\n[Region] [Sales]", codes.AMBIGUOUS_COLUMN, 'Region', { catalog: makeCatalogProvider([src]) });
  assert.match(String(d.message), /\[Region\].*\[region\]/);
});

test('date buckets, text operators and quoted texts against column types', async () => {
  // a bucket word on a column no bucket applies to: a value when the column can hold it (the token form,
  // docs/service-notes.md §2.11: [origin].monthly is [origin] = 'monthly'), else a wrong bucket
  await expectOne(F + '[delay].monthly [origin]', codes.BUCKET_ON_NON_DATE, 'monthly');
  assert.deepEqual((await validate(F + '[origin].monthly [delay]')).diags, []);
  // A date keyword after a measure applies to the data source's date column (the keyword reference's own
  // word order, `visitors last 7 days`; issue: it was a false tsq.dateFilterOnNonDate).
  for (const q of ['[delay] last 7 days', '[delay] today by [origin]', '[delay] 2 months ago by [origin]', '[delay] monday', '[delay] february 2001'])
    assert.deepEqual((await validate(F + q)).diags, [], q);
  assert.deepEqual((await validate(F + '[delay] [date] last 7 days')).diags, []);
  await expectOne(F + "[delay] contains '5'", codes.TEXT_OPERATOR_ON_NUMBER, 'contains');
  await expectOne(F + "[delay] not begins with '5'", codes.TEXT_OPERATOR_ON_NUMBER, 'not begins with');
  const w = await expectOne(F + "[distance] > '1000'", codes.TEXT_COMPARED_TO_NUMBER, "'1000'");
  assert.equal(w.severity, DiagnosticSeverity.Warning);
  // The right types give nothing.
  const ok = await validate(F + "[date].monthly [date].'day of week' [origin] contains 'SE' [distance] > 1000 [delay] = '5'");
  assert.deepEqual(ok.diags, []);
});

test('formulas defined inside a query (docs/service-interface.md §8.6)', async () => {
  await expectOne(F + '[delay] * [distance]', codes.FORMULA_IN_QUERY, '*');
  await expectOne(F + 'sum([delay]) [origin]', codes.FORMULA_IN_QUERY, 'sum([delay])');
  await expectOne(F + '[delay / distance] [origin]', codes.FORMULA_IN_QUERY, 'delay / distance');
});

test('unknown data source, query with no data source, default data source', async () => {
  const d = await expectOne("@datasource 'Flightz'\n[origin]", codes.UNKNOWN_DATA_SOURCE, 'Flightz');
  assert.match(String(d.message), /'Flights'/);
  await expectOne('[origin] [delay]', codes.NO_DATA_SOURCE, '[origin]');
  // By GUID, and any case, is known.
  const guid = flightsCatalog().id;
  assert.deepEqual((await validate(`@datasource ${guid.toUpperCase()}\n[origin]`)).diags, []);
  assert.deepEqual((await validate('@datasource flights\n[origin]')).diags, []);
  // tsq.defaultDataSource applies to queries without @datasource.
  assert.deepEqual((await validate('[origin] [delay]', { settings: { defaultDataSource: 'Flights' } })).diags, []);
  await expectOne('[Horsepower]', codes.UNKNOWN_COLUMN, 'Horsepower', { settings: { defaultDataSource: 'Flights' } });
  // Columns are checked against the data source in force for each query.
  const two = await validate("@datasource 'Cars'\n[Horsepower]\n\n@datasource 'Flights'\n[Horsepower]");
  assert.deepEqual(two.diags.map((x) => [x.code, x.range.start.line]), [[codes.UNKNOWN_COLUMN, 4]]);
});

test('without a catalog, or when it cannot answer, no semantic diagnostic at all', async () => {
  const text = "[nope].monthly [delay] contains 'x'\n\n@datasource 'Nowhere'\n[zz]";
  for (const cat of [null, makeCatalogProvider([flightsCatalog()], {}, { unknown: true })]) {
    const { diags } = await validate(text, { catalog: cat });
    assert.deepEqual(diags, []);
  }
  const broken: CatalogProvider = {
    getDataSources: async () => { throw new Error('connection lost'); },
    getColumns: async () => { throw new Error('connection lost'); },
    getColumnValues: async () => [],
  };
  assert.deepEqual((await validate(text, { catalog: broken })).diags, []);
  const unknown: CatalogProvider = {
    getDataSources: async () => undefined,
    getColumns: async () => undefined,
    getColumnValues: async () => [],
  };
  assert.deepEqual((await validate(text, { catalog: unknown })).diags, []);
});

test('disabled codes are silenced; cancellation answers nothing', async () => {
  const text = F + "[delya] [origin] = 'x";
  const all = await validate(text);
  assert.deepEqual(all.diags.map((d) => d.code).sort(), [codes.UNKNOWN_COLUMN, codes.UNTERMINATED_VALUE].sort());
  const some = await validate(text, { settings: { disabledDiagnostics: [codes.UNKNOWN_COLUMN] } });
  assert.deepEqual(some.diags.map((d) => d.code), [codes.UNTERMINATED_VALUE]);
  assert.deepEqual((await validate(text, { cancelled: true })).diags, []);
});

test('edit distance and closest names', () => {
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('abc', 'abc'), 0);
  assert.ok(editDistance('abcdef', 'uvwxyz', 2) > 2);
  assert.deepEqual(closest('Miles per gallon', carsCatalog().columns.map((c) => c.name)), ['Miles_per_Gallon']);
  assert.deepEqual(closest('orign', ['origin', 'destination', 'Origin Airport']), ['origin']);
});

test('a date keyword with no date column named: the data source\'s one, none, or several', async () => {
  const src = (columns: FixtureSource['columns']): CatalogProvider => makeCatalogProvider([{ id: 'ds-1', name: 'S', columns }]);
  const none = src([{ name: 'Sales', dataType: 'DOUBLE', kind: 'MEASURE' }, { name: 'Store', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }]);
  await expectOne("@datasource 'S'\n[Sales] last 7 days", codes.DATE_FILTER_ON_NON_DATE, '[Sales]', { catalog: none });
  await expectOne("@datasource 'S'\n[Sales] last 7 days", codes.DATE_FILTER_ON_NON_DATE, '[Sales]', { catalog: src([{ name: 'Sales', dataType: 'DOUBLE', kind: 'MEASURE' }, { name: 'At', dataType: 'TIME', kind: 'ATTRIBUTE' }]) });
  const two = src([{ name: 'Sales', dataType: 'DOUBLE', kind: 'MEASURE' }, { name: 'Ordered', dataType: 'DATE', kind: 'ATTRIBUTE' }, { name: 'Shipped', dataType: 'DATE', kind: 'ATTRIBUTE' }]);
  const w = await expectOne("@datasource 'S'\n[Sales] last 7 days", codes.SEVERAL_DATE_COLUMNS, '[Sales]', { catalog: two });
  assert.equal(w.severity, DiagnosticSeverity.Warning);
  assert.match(String(w.message), /\[Ordered\]/);
  assert.deepEqual((await validate("@datasource 'S'\n[Sales] [Shipped] last 7 days", { catalog: two })).diags, []);
  // by <unit> and a bare bucket group the data source's date column too; seconds need a DATE_TIME (the emulator's same facts).
  await expectOne("@datasource 'S'\n[Sales] by week", codes.DATE_FILTER_ON_NON_DATE, 'by week', { catalog: none });
  await expectOne("@datasource 'S'\n[Sales] [Shipped] last 30 seconds", codes.DATE_FILTER_ON_NON_DATE, '[Shipped] last 30 seconds', { catalog: two });
});

test('a bucket on a TIME column: the same fact as the emulator (hourly and hour of day, not monthly)', async () => {
  const t = makeCatalogProvider([{ id: 'ds-1', name: 'T', columns: [{ name: 'n', dataType: 'INT32', kind: 'MEASURE' }, { name: 't', dataType: 'TIME', kind: 'ATTRIBUTE' }] }]);
  assert.deepEqual((await validate("@datasource 'T'\n[n] [t].hourly [t].'hour of day'", { catalog: t })).diags, []);
  await expectOne("@datasource 'T'\n[n] [t].monthly", codes.BUCKET_ON_NON_DATE, 'monthly', { catalog: t });
});

test('the period-over-period keywords run in the emulator; after a bucket they cannot follow they are tsq.periodOverPeriodBucket, the emulator\'s text', async () => {
  // search-growth.adoc's table: which bucket each keyword follows (keywords.ts PERIOD_OVER_PERIOD).
  for (const q of ['growth of [delay] by [date] daily month-over-month', 'growth of [delay] by [date] hourly day-over-day', 'growth of [delay] by [date].weekly quarter-over-quarter', 'growth of [delay] by [date] year-over-year']) {
    assert.deepEqual((await validate(F + q)).diags, [], q);
  }
  for (const [q, kw, bucket, at] of [
    ['growth of [delay] by [date] monthly month-over-month', 'month-over-month', 'monthly', 'growth of [delay] by [date] monthly month-over-month'],
    ['[origin] growth of [delay] by [date].daily day-over-day', 'day-over-day', 'daily', 'growth of [delay] by [date].daily day-over-day'],
    // no bucket written: the default, monthly (GROWTH_DEFAULT_BUCKET)
    ['growth of [delay] by [date] week-over-week', 'week-over-week', 'monthly', 'growth of [delay] by [date] week-over-week'],
  ] as const) {
    const d = await expectOne(F + q, codes.PERIOD_OVER_PERIOD_BUCKET, at);
    assert.equal(d.severity, DiagnosticSeverity.Error);
    assert.equal(d.message, `${periodOverPeriodBucketError(kw, bucket)!}.`);
  }
});

test('every keyword of the catalogue runs in the emulator: none is marked unsupported (tsq.notInEmulator), and vs, all, in and not in are clean', async () => {
  assert.deepEqual(KEYWORDS.filter((k) => k.emulator === 'unsupported').map((k) => k.name), []);
  // in/not in, vs and all run in the emulator (the location keywords too, on a data source with latitude/longitude: below)
  // everything is all's other spelling (software/…/partials/keywords/everything.adoc: revenue asia vs everything).
  for (const q of ["[delay] [origin] = 'SEA' vs [origin] = 'PDX'", "[delay] [origin] = 'SEA' versus all", "[delay] [origin] = 'SEA' vs everything", '[origin] in (top 10 [origin] [delay]) [delay]', '[origin] not in ([origin] [delay] > 0)']) {
    assert.deepEqual((await validate(F + q)).diags, [], q);
  }
});

test('a location keyword needs a data source with latitude and longitude (tsq.noLocationData), the emulator\'s rule', async () => {
  const geo = makeCatalogProvider([
    { id: 'ds-1', name: 'Places', columns: [{ name: 'city', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }, { name: 'Latitude', dataType: 'DOUBLE', kind: 'ATTRIBUTE' }, { name: 'longitude', dataType: 'DOUBLE', kind: 'ATTRIBUTE' }] },
    { id: 'ds-2', name: 'Flat', columns: [{ name: 'city', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }, { name: 'latitude', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }, { name: 'longitude', dataType: 'DOUBLE', kind: 'ATTRIBUTE' }] },
  ]);
  assert.deepEqual((await validate("@datasource 'Places'\n[city] near 'seattle' within 50 miles", { catalog: geo })).diags, []);
  const d = await expectOne("@datasource 'Flat'\n[city] farther than 80 km from 'seattle'", codes.NO_LOCATION_DATA, "[city] farther than 80 km from 'seattle'", { catalog: geo });
  assert.equal(d.severity, DiagnosticSeverity.Error);
});

test('calendar.<name>: the language service has no calendar list from the service, so any name passes; a bare value is warned', async () => {
  // the emulator answers 400 naming the calendars it knows; the language service does not make up an error
  for (const q of ['[delay] [date].monthly calendar.retail', "[delay] [date].monthly calendar.'my calendar'", '[delay] [date].monthly calendar', '[delay] [date] this quarter calendar.lunar']) {
    for (const opts of [{}, { catalog: null }]) {
      const { diags } = await validate(F + q, opts);
      assert.deepEqual(diags.map((d) => d.code), [], q);
    }
  }
  const d = await expectOne(F + "[delay] 'SEA'", codes.BARE_VALUE, "'SEA'");
  assert.equal(d.severity, DiagnosticSeverity.Warning);
});

test('a rolling date filter in a query naming a custom calendar gets tsq.rollingWithCustomCalendar (connections-cust-cal, Limitations)', async () => {
  for (const opts of [{}, { catalog: null }]) {
    const d = await expectOne(F + '[delay] [date] last 3 months calendar.retail', codes.ROLLING_WITH_CUSTOM_CALENDAR, '[date] last 3 months', opts);
    assert.equal(d.severity, DiagnosticSeverity.Warning);
    assert.match(String(d.message), /connections-cust-cal/);
  }
  // not rolling, or no custom calendar: nothing
  for (const q of ['[delay] [date] last month calendar.retail', '[delay] [date] 2 months ago calendar.retail', '[delay] [date] last 7 days calendar.retail', '[delay] [date] last 3 months calendar.fiscal', '[delay] [date] last 3 months calendar', '[delay] [date] last 3 months']) {
    const { diags } = await validate(F + q);
    assert.deepEqual(diags.map((x) => x.code), [], q);
  }
});

test('an in / not in subsearch is checked as a whole query of the data source, each finding at its place inside the parentheses (in.adoc)', async () => {
  const IN = '[origin] in (';
  // operators against column types, values, buckets, date keywords, unknown columns: as in an outer query
  await expectOne(F + IN + "[origin] [delay] contains '5') [delay]", codes.TEXT_OPERATOR_ON_NUMBER, 'contains');
  await expectOne(F + '[origin] not in (' + "[origin] [distance] > '1000') [delay]", codes.TEXT_COMPARED_TO_NUMBER, "'1000'");
  await expectOne(F + IN + '[origin] [delay].monthly) [delay]', codes.BUCKET_ON_NON_DATE, 'monthly');
  await expectOne(F + IN + '[origin] [delya]) [delay]', codes.UNKNOWN_COLUMN, 'delya');
  const none = makeCatalogProvider([{ id: 'ds-1', name: 'S', columns: [{ name: 'Sales', dataType: 'DOUBLE', kind: 'MEASURE' }, { name: 'Store', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }] }]);
  await expectOne("@datasource 'S'\n[Store] in ([Store] [Sales] last 7 days) [Sales]", codes.DATE_FILTER_ON_NON_DATE, '[Sales]', { catalog: none });
  // keywords, without a catalog too: a period-over-period keyword after a bucket it cannot follow, a rolling filter under the subsearch's custom calendar, a vs (in.adoc: not supported inside)
  for (const opts of [{}, { catalog: null }]) {
    await expectOne(F + IN + '[origin] growth of [delay] by [date] monthly month-over-month) [delay]', codes.PERIOD_OVER_PERIOD_BUCKET, 'growth of [delay] by [date] monthly month-over-month', opts);
    await expectOne(F + IN + '[origin] [delay] [date] last 3 months calendar.retail) [delay]', codes.ROLLING_WITH_CUSTOM_CALENDAR, '[date] last 3 months', opts);
    const vs = await expectOne(F + IN + "[origin] [delay] [origin] = 'SEA' vs all) [delay]", codes.MISPLACED_KEYWORD, 'vs all', opts);
    assert.match(String(vs.message), /in\.adoc/);
  }
  // a clean subsearch gives nothing; the outer query's custom calendar is not the subsearch's
  for (const q of ["[origin] in (top 10 [origin] [delay] [distance] > 1000 [origin] contains 'S') [delay]", '[origin] in ([origin] [delay] [date] last 3 months) [delay] calendar.retail']) {
    assert.deepEqual((await validate(F + q)).diags, [], q);
  }
});

test('an order comparison of a date with a year under a custom calendar gets tsq.namedPeriodWithCustomCalendar (connections-cust-cal, Limitations), the emulator\'s rule', async () => {
  for (const [q, covered] of [['[delay] [date] >= 2001 calendar.retail', '[date] >= 2001'], ['[delay] [date] between 2000 and 2001 calendar.retail', '[date] between 2000 and 2001'], ["[delay] [date] after '2000' calendar.retail", "[date] after '2000'"]]) {
    const d = await expectOne(F + q, codes.NAMED_PERIOD_WITH_CUSTOM_CALENDAR, covered);
    assert.equal(d.severity, DiagnosticSeverity.Warning);
    assert.match(String(d.message), /connections-cust-cal/);
  }
  // = and != with a year name the calendar's year; a plain date stays a date; a number column, the Gregorian or fiscal calendar, no catalog: nothing
  for (const q of ['[delay] [date] = 2001 calendar.retail', "[delay] [date] > '2001-03-01' calendar.retail", '[delay] [distance] > 2000 calendar.retail', '[delay] [date] >= 2001', '[delay] [date] >= 2001 calendar.fiscal']) {
    assert.deepEqual((await validate(F + q)).diags.map((x) => x.code), [], q);
  }
  assert.deepEqual((await validate(F + '[delay] [date] >= 2001 calendar.retail', { catalog: null })).diags, []);
});
