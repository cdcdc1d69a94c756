/**
 * Completion of the .tsq language service, with `|` marking the cursor, against catalogs built from the
 * vega-datasets flights, cars and movies data (test/fixtures/catalogs.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CompletionItemKind, InsertTextFormat, type MarkupContent, type TextEdit, type CompletionItem, type CompletionList } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider, LanguageSettings } from '../../common/src/languageService/types';
import { carsCatalog, datasetValues, flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';

const values = datasetValues();

/** Completes at the `|` of `text` and answers the list, the document and the cursor offset. */
async function complete(text: string, opts: { settings?: LanguageSettings; catalog?: CatalogProvider | null; cancelled?: boolean } = {}) {
  const offset = text.indexOf('|');
  assert.ok(offset >= 0, 'test text needs a | cursor');
  const document = TextDocument.create('file:///test.tsq', 'tsq', 1, text.slice(0, offset) + text.slice(offset + 1));
  const catalog = opts.catalog === null ? undefined : (opts.catalog ?? makeCatalogProvider([flightsCatalog(), carsCatalog(), moviesCatalog()], values));
  const ls = getLanguageService({ catalog });
  const list = await ls.doComplete(document, document.positionAt(offset), opts.settings ?? {}, { isCancellationRequested: !!opts.cancelled });
  return { list, document, offset, ls };
}

function labels(list: CompletionList): string[] {
  return list.items.map((i) => i.label);
}

function item(list: CompletionList, label: string): CompletionItem {
  const found = list.items.find((i) => i.label === label);
  assert.ok(found, `no item ${label} in ${labels(list).slice(0, 40).join(', ')}`);
  return found;
}

/** Applies an item's text edit to the document text. */
function apply(document: TextDocument, it: CompletionItem): string {
  const edit = it.textEdit as TextEdit;
  assert.ok(edit && 'range' in edit, `item ${it.label} has a textEdit with a range`);
  return TextDocument.applyEdits(document, [edit, ...(it.additionalTextEdits ?? [])]);
}

const FLIGHTS = "@datasource 'Flights'\n";

test('after [ the data source columns, with data type, kind and description', async () => {
  const { list, document, ls } = await complete(FLIGHTS + '[|');
  assert.deepEqual(labels(list).sort(), ['date', 'delay', 'destination', 'distance', 'origin']);
  const delay = item(list, 'delay');
  assert.equal(delay.kind, CompletionItemKind.Field);
  assert.match(delay.detail ?? '', /INT64/);
  assert.match(delay.detail ?? '', /measure/i);
  // The description comes on resolve only (completionItem/resolve), from the item's data.
  assert.equal(delay.documentation, undefined);
  assert.deepEqual(delay.data, { column: 'delay', dataSource: 'Flights' });
  const resolved = await ls.doResolve(JSON.parse(JSON.stringify(delay)));
  const doc = resolved.documentation as MarkupContent;
  assert.equal(doc.kind, 'markdown');
  assert.match(doc.value, /Arrival delay in minutes/);
  assert.match(item(list, 'origin').detail ?? '', /attribute/i);
  assert.equal(apply(document, delay), FLIGHTS + '[delay]');
});

test('typing inside the brackets replaces what was typed, and a following ] is not doubled', async () => {
  {
    const { list, document } = await complete(FLIGHTS + '[de|');
    const edit = item(list, 'delay').textEdit as TextEdit;
    assert.equal(document.getText(edit.range), 'de');
    assert.equal(item(list, 'delay').filterText ?? 'delay', 'delay');
    assert.equal(apply(document, item(list, 'delay')), FLIGHTS + '[delay]');
  }
  {
    const { list, document } = await complete(FLIGHTS + '[de|] top 10');
    assert.equal(apply(document, item(list, 'destination')), FLIGHTS + '[destination] top 10');
  }
  {
    const { list, document } = await complete(FLIGHTS + '[|]');
    assert.equal(apply(document, item(list, 'origin')), FLIGHTS + '[origin]');
  }
  {
    // The cursor in the middle of a written name replaces the whole name.
    const { list, document } = await complete(FLIGHTS + '[or|igin] [delay]');
    assert.equal(apply(document, item(list, 'destination')), FLIGHTS + '[destination] [delay]');
  }
  {
    // An unclosed bracket followed by another column: only the typed word is replaced.
    const { list, document } = await complete(FLIGHTS + '[dis| [delay]');
    assert.equal(apply(document, item(list, 'distance')), FLIGHTS + '[distance] [delay]');
  }
});

test('column names with spaces are completed whole', async () => {
  const { list, document } = await complete("@datasource 'Movies'\n[Major G|");
  const edit = item(list, 'Major Genre').textEdit as TextEdit;
  assert.equal(document.getText(edit.range), 'Major G');
  assert.equal(apply(document, item(list, 'Major Genre')), "@datasource 'Movies'\n[Major Genre]");
});

test('after [date column]. the date buckets, multi-word ones quoted', async () => {
  const { list, document } = await complete(FLIGHTS + '[date].|');
  assert.ok(labels(list).includes('monthly'));
  assert.ok(labels(list).includes('hourly'), 'a DATE_TIME column has hourly buckets');
  const dow = item(list, 'day of week');
  assert.equal(apply(document, dow), FLIGHTS + "[date].'day of week'");
  assert.equal(item(list, 'monthly').kind, CompletionItemKind.EnumMember);
  // Typing the bucket replaces the typed part.
  const typed = await complete(FLIGHTS + '[date].mo| [delay]');
  assert.equal(apply(typed.document, item(typed.list, 'monthly')), FLIGHTS + '[date].monthly [delay]');
});

test('no date buckets after a column that is not DATE, DATE_TIME or TIME; a DATE column has no hourly bucket', async () => {
  const { list } = await complete(FLIGHTS + '[delay].|');
  assert.deepEqual(labels(list), []);
  const cars = await complete("@datasource 'Cars'\n[Year].|");
  assert.ok(labels(cars.list).includes('yearly'));
  assert.ok(!labels(cars.list).includes('hourly'));
});

test('after calendar. the calendars', async () => {
  const { list, document } = await complete(FLIGHTS + '[delay] [date].monthly calendar.|');
  const fiscal = item(list, 'fiscal');
  assert.equal(apply(document, fiscal), FLIGHTS + '[delay] [date].monthly calendar.fiscal');
});

test('after calendar. the service\'s custom calendars too (calendars/search), each once; a name that cannot be written is left out', async () => {
  const base = makeCatalogProvider([flightsCatalog()], values);
  const catalog: CatalogProvider = { ...base, getDataSources: (t) => base.getDataSources(t), getColumns: (d, t) => base.getColumns(d, t), getColumnValues: (d, c, p, t) => base.getColumnValues(d, c, p, t), getCalendars: () => Promise.resolve(['retail', 'Fiscal', '4-4-5 US', "it's", 'Retail', 'x'.repeat(256)]) };
  const { list, document } = await complete(FLIGHTS + '[delay] [date].monthly calendar.| ; [delay] calendar.mine', { catalog });
  assert.deepEqual(labels(list), ['fiscal', 'retail', '4-4-5 US', 'mine']);
  assert.equal(item(list, 'retail').detail, 'A custom calendar of the service (connections-cust-cal)');
  assert.equal(apply(document, item(list, '4-4-5 US')), FLIGHTS + "[delay] [date].monthly calendar.'4-4-5 US' ; [delay] calendar.mine");
  // a catalog that cannot list them (undefined, or one that throws) leaves fiscal and the document's names
  const failing: CatalogProvider = { ...catalog, getCalendars: () => Promise.reject(new Error('down')) };
  assert.deepEqual(labels((await complete(FLIGHTS + 'calendar.|', { catalog: failing })).list), ['fiscal']);
  assert.deepEqual(labels((await complete(FLIGHTS + 'calendar.|', { catalog: null })).list), ['fiscal']);
});

test('after a measure column, the comparison operators and keywords that fit; no text operators', async () => {
  const { list } = await complete(FLIGHTS + '[delay] |');
  const l = labels(list);
  for (const op of ['>', '>=', '=', '!=', 'between']) assert.ok(l.includes(op), `${op} offered`);
  assert.ok(!l.includes('contains'), 'no text operator on a measure');
  assert.ok(!l.includes('monthly'), 'no bucket on a measure');
  assert.equal(item(list, '>').kind, CompletionItemKind.Operator);
});

test('after a text attribute, the text operators (multi-word as one item); after a date column, buckets and date operators', async () => {
  const text = await complete(FLIGHTS + '[origin] |');
  for (const op of ['=', 'contains', 'begins with', 'not contains', 'similar to']) assert.ok(labels(text.list).includes(op), `${op} offered`);
  const begins = item(text.list, 'begins with');
  assert.equal(apply(text.document, begins).startsWith(FLIGHTS + '[origin] begins with'), true);
  const date = await complete(FLIGHTS + '[date] |');
  for (const k of ['monthly', 'after', 'before', 'last']) assert.ok(labels(date.list).some((l) => l === k || l.startsWith(k + ' ')), `${k} offered after a date column`);
});

test('after a comparison operator, the column values from the catalog, quoted', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], values);
  const { list, document } = await complete(FLIGHTS + '[origin] = |', { catalog });
  assert.ok(catalog.calls.some((c) => c.method === 'getColumnValues' && c.args[0] === 'Flights' && c.args[1] === 'origin' && c.args[2] === ''));
  const atl = item(list, "'ATL'");
  assert.equal(atl.kind, CompletionItemKind.Value);
  assert.equal(apply(document, atl), FLIGHTS + "[origin] = 'ATL'");
  assert.ok(labels(list).includes('{null}'), 'the null constant after =');
  assert.ok(list.items.filter((i) => i.kind === CompletionItemKind.Value).length <= 50);
  assert.equal(list.isIncomplete, true, 'values are filtered by the catalog, so the client asks again as the user types');
});

test('a typed value prefix is sent to the catalog and replaced, quote included', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], values);
  const { list, document } = await complete(FLIGHTS + "[origin] = 'SE|", { catalog });
  assert.ok(catalog.calls.some((c) => c.method === 'getColumnValues' && c.args[2] === 'SE'));
  assert.ok(labels(list).every((l) => l.toUpperCase().startsWith("'SE")), labels(list).join());
  assert.equal(apply(document, item(list, "'SEA'")), FLIGHTS + "[origin] = 'SEA'");
  // An already closed value is not given a second closing quote.
  const closed = await complete(FLIGHTS + "[origin] = 'SE|' [delay]", { catalog });
  assert.equal(apply(closed.document, item(closed.list, "'SEA'")), FLIGHTS + "[origin] = 'SEA' [delay]");
});

test('after a comma the next value of the list is completed', async () => {
  const { list, document } = await complete(FLIGHTS + "[origin] = 'SEA', 'PD|");
  assert.equal(apply(document, item(list, "'PDX'")), FLIGHTS + "[origin] = 'SEA', 'PDX'");
});

test('the value position is read from the parse: a filter with its value missing, in a subsearch, after or / between … and', async () => {
  const catalog = makeCatalogProvider([flightsCatalog()], values);
  const valuesOf = async (text: string) => {
    const { list } = await complete(text, { catalog });
    return catalog.calls.filter((c) => c.method === 'getColumnValues').map((c) => c.args[1]).pop() !== undefined && list.items.some((i) => i.kind === CompletionItemKind.Value);
  };
  assert.ok(await valuesOf(FLIGHTS + "[destination] in ([origin] = |)"), 'a filter inside a subsearch');
  assert.ok(await valuesOf(FLIGHTS + "[origin] similar to 'SE' or |"), 'after or');
  assert.ok(await valuesOf(FLIGHTS + '[delay] between 1 and |'), 'after the and of between');
  assert.ok(await valuesOf(FLIGHTS + "[origin] = 'SEA', | [delay]"), 'a dangling comma before the next clause');
  const calls = catalog.calls.length;
  assert.ok(!(await valuesOf(FLIGHTS + '[origin] [delay] , |')), 'a comma after a column is no value position');
  assert.ok(!(await valuesOf(FLIGHTS + "[origin] = 'SEA' [delay] and |")), 'and outside a between');
  assert.equal(catalog.calls.slice(calls).filter((c) => c.method === 'getColumnValues').length, 0);
});

test('a value containing a quote is not offered (it cannot be written)', async () => {
  const movieTitles = values.Movies!.Title!;
  assert.ok(movieTitles.some((t) => t.startsWith("Schindler's")), 'fixture has a title with a quote');
  const { list } = await complete("@datasource 'Movies'\n[Title] = 'Schindler|");
  assert.ok(labels(list).every((l) => !l.slice(1, -1).includes("'")), labels(list).join());
});

test('at the start of a word, keywords (multi-word as one item, with meaning and example)', async () => {
  const { list, document, ls } = await complete(FLIGHTS + '[delay] [origin] so|');
  const sortBy = item(list, 'sort by');
  assert.equal(sortBy.kind, CompletionItemKind.Keyword);
  assert.equal(sortBy.documentation, undefined, 'documentation on resolve only');
  const doc = (await ls.doResolve(sortBy)).documentation as MarkupContent;
  assert.equal(doc.kind, 'markdown');
  assert.ok(doc.value.length > 20, 'a meaning and an example');
  assert.ok(sortBy.detail && sortBy.detail.length > 0, 'a one-line meaning in the detail');
  const applied = apply(document, sortBy);
  assert.ok(applied.startsWith(FLIGHTS + '[delay] [origin] sort by'), applied);
  assert.ok(labels(list).includes('top'));
});

test('a multi-word keyword typed in part replaces all its typed words', async () => {
  const sort = await complete(FLIGHTS + '[delay] [origin] sort b|');
  const sortBy = item(sort.list, 'sort by');
  assert.equal(sort.document.getText((sortBy.textEdit as TextEdit).range), 'sort b');
  assert.equal(apply(sort.document, sortBy), FLIGHTS + '[delay] [origin] sort by');
  // `not` is no keyword alone: after a text column, `not con|` still completes the text operators.
  const not = await complete(FLIGHTS + '[origin] not con|');
  const notContains = item(not.list, 'not contains');
  assert.equal(notContains.sortText?.[0], item(not.list, '=').sortText?.[0], 'operators that fit the column rank first');
  assert.equal(apply(not.document, notContains), FLIGHTS + '[origin] not contains');
});

test('operators keep the vocabulary order; after sort by [column] the directions come first', async () => {
  const { list } = await complete(FLIGHTS + '[delay] sort by [delay] |');
  const sorted = [...list.items].sort((a, b) => (a.sortText! < b.sortText! ? -1 : 1)).map((i) => i.label);
  assert.deepEqual(sorted.slice(0, 4), ['descending', 'ascending', '=', '!=']);
});

test('right after a column or an operator, the inserted text is separated by a space', async () => {
  const op = await complete(FLIGHTS + '[delay]|');
  assert.equal(apply(op.document, item(op.list, '>')), FLIGHTS + '[delay] >');
  const value = await complete(FLIGHTS + '[origin] =|');
  assert.equal(apply(value.document, item(value.list, "'ATL'")), FLIGHTS + "[origin] = 'ATL'");
});

test('keywords are offered even without a catalog or a data source', async () => {
  const none = await complete('|', { catalog: null });
  assert.ok(labels(none.list).includes('sort by'));
  assert.ok(labels(none.list).includes('top'));
  const noColumns = await complete('[|', { catalog: null });
  assert.deepEqual(labels(noColumns.list), []);
});

test('after @datasource, the data sources, name inserted quoted, GUID in the detail', async () => {
  const { list, document } = await complete('@datasource |\n[delay]');
  const flights = item(list, 'Flights');
  assert.equal(flights.detail?.includes(flightsCatalog().id), true);
  assert.equal(apply(document, flights), "@datasource 'Flights'\n[delay]");
  const typed = await complete("@datasource 'Ca|'\n[delay]");
  assert.equal(apply(typed.document, item(typed.list, 'Cars')), "@datasource 'Cars'\n[delay]");
});

test('CRLF line ends: ranges stop at the end of the line', async () => {
  const crlf = "@datasource 'Flights'\r\n[origin] [de|\r\n[delay]";
  const { list, document } = await complete(crlf);
  assert.equal(apply(document, item(list, 'delay')), "@datasource 'Flights'\r\n[origin] [delay]\r\n[delay]");
  const ds = await complete("@datasource 'Fl|\r\n[delay]");
  assert.equal(apply(ds.document, item(ds.list, 'Flights')), "@datasource 'Flights'\r\n[delay]");
});

test('nothing after a complete @datasource value; a long value list still completes values', async () => {
  const after = await complete("@datasource 'Flights' |\n[delay]");
  assert.deepEqual(labels(after.list), []);
  const list = Array.from({ length: 40 }, (_, i) => `'V${i}'`).join(', ');
  const { list: values } = await complete(FLIGHTS + `[origin] = ${list}, 'SE|`);
  assert.ok(labels(values).includes("'SEA'"));
});

test('the data source in force is the last @datasource before the query, else tsq.defaultDataSource', async () => {
  const text = "@datasource 'Flights'\n[delay] [origin];\n\n@datasource 'Cars'\n[Horsepower] [|";
  const { list } = await complete(text);
  assert.ok(labels(list).includes('Horsepower'));
  assert.ok(!labels(list).includes('delay'));
  const byDefault = await complete('[delay] [|', { settings: { defaultDataSource: 'Movies' } });
  assert.ok(labels(byDefault.list).includes('Major Genre'));
  const byGuid = await complete('[|', { settings: { defaultDataSource: carsCatalog().id } });
  assert.ok(labels(byGuid.list).includes('Cylinders'));
  const without = await complete('[|');
  assert.deepEqual(labels(without.list), []);
});

test('nothing inside a comment; a cancelled request answers an empty incomplete list', async () => {
  const comment = await complete(FLIGHTS + '-- [de|');
  assert.deepEqual(labels(comment.list), []);
  const cancelled = await complete(FLIGHTS + '[|', { cancelled: true });
  assert.deepEqual(cancelled.list, { isIncomplete: true, items: [] });
});

test('in a long document only the current query matters', async () => {
  const lines = [FLIGHTS.trimEnd()];
  for (let i = 0; i < 300; i++) lines.push(`[origin] [delay] [distance] > ${i};`);
  lines.push("@datasource 'Cars'");
  lines.push('[Name] [Cyl|');
  const { list, document } = await complete(lines.join('\n'));
  assert.equal(apply(document, item(list, 'Cylinders')).endsWith('[Name] [Cylinders]'), true);
  assert.ok(list.items.every((i) => i.insertTextFormat !== InsertTextFormat.Snippet || typeof i.textEdit === 'object'));
});

test('resolve: a column item gets its description, a keyword its example; unknown or unusable data leaves the item as it is', async () => {
  const { list, ls } = await complete("@datasource 'Movies'\n[Title] |");
  const genre = item(list, '[Major Genre]');
  assert.equal(genre.documentation, undefined);
  const resolved = await ls.doResolve(genre);
  assert.notEqual(resolved, genre, 'a new item, the list item untouched');
  assert.equal(genre.documentation, undefined);
  const doc = resolved.documentation as MarkupContent;
  assert.equal(doc.kind, 'markdown');
  assert.match(doc.value, /\[Major Genre\]/);
  assert.match(doc.value, /Data source: \*\*Movies\*\*/);
  assert.deepEqual({ ...resolved, documentation: undefined }, { ...genre, documentation: undefined }, 'only the documentation is added');
  const top = (await ls.doResolve(item(list, 'top'))).documentation as MarkupContent;
  assert.match(top.value, /Example:/);
  for (const data of [undefined, null, 42, { column: 'no such column', dataSource: 'Movies' }, { column: 'Title', dataSource: 'No such source' }, { keyword: 'no such keyword' }, { column: 5 }]) {
    const it = { label: 'x', data };
    assert.equal(await ls.doResolve(it), it, `unchanged for data ${JSON.stringify(data)}`);
  }
  // Without a catalog, or when it throws, a column item stays as it is; a cancelled resolve too.
  const thrower: CatalogProvider = { getDataSources: async () => { throw new Error('x'); }, getColumns: async () => { throw new Error('x'); }, getColumnValues: async () => { throw new Error('x'); } };
  for (const other of [getLanguageService(), getLanguageService({ catalog: thrower })]) assert.equal(await other.doResolve(genre), genre);
  assert.equal(await ls.doResolve(genre, { isCancellationRequested: true }), genre);
});

test('pathological documents answer: 200,000 unbalanced [, quote runs, unclosed columns cut at every quote', async () => {
  // These were quadratic (about 15 s for the first, minutes for the last); the cost is measured in
  // test/bench/language.bench.ts `pathologicalCompletionMs`, not asserted here.
  const texts = ['['.repeat(200_000), '['.repeat(200_000) + "'".repeat(200_000) + ']'.repeat(200_000), "['".repeat(100_000), '[ '.repeat(100_000)];
  for (const text of texts) {
    const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()], values) });
    const document = TextDocument.create('file:///patho.tsq', 'tsq', 1, text);
    for (const offset of [0, 1, text.length >> 1, text.length - 1, text.length]) {
      const list = await ls.doComplete(document, document.positionAt(offset), { defaultDataSource: 'Flights' });
      assert.ok(Array.isArray(list.items), `an answer at ${offset}`);
    }
    // Inside an unclosed bracket at the end, the columns are offered.
    if (text.endsWith('[')) {
      const list = await ls.doComplete(document, document.positionAt(text.length), { defaultDataSource: 'Flights' });
      assert.ok(labels(list).includes('origin'), 'columns offered after the last [');
    }
  }
});

test('any text, any cursor: completion never throws and every edit is on the cursor line and contains the cursor', async () => {
  const fc = await import('fast-check');
  const fragments = ['[', ']', '[origin]', '[delay', '[date].', "'", "'SE", "'day of week'", '.', ',', ' ', '\n', '\n\n', ';', '-- c', '@datasource ', "@datasource 'Fl", '=', '>=', 'sort by', 'not ', 'between 1 and', 'calendar.', 'last 7', '{null}', 'top 10', 'é', '\u0000', '"', 'x', '\r\n', '\r\n\r\n'];
  const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()], values) });
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...fragments), { maxLength: 30 }), fc.nat(), async (parts, at) => {
      const text = parts.join('');
      const document = TextDocument.create('file:///prop.tsq', 'tsq', 1, text);
      const offset = at % (text.length + 1);
      const position = document.positionAt(offset);
      const list = await ls.doComplete(document, position, { defaultDataSource: 'Flights' });
      for (const it of list.items) {
        const edit = it.textEdit as TextEdit | undefined;
        if (!edit) continue;
        const { start, end } = edit.range;
        assert.equal(start.line, position.line, `${it.label} edit starts on the cursor line in ${JSON.stringify(text)}@${offset}`);
        assert.equal(end.line, position.line, `${it.label} edit ends on the cursor line in ${JSON.stringify(text)}@${offset}`);
        assert.ok(start.character <= position.character && position.character <= end.character, `${it.label} edit contains the cursor in ${JSON.stringify(text)}@${offset}`);
      }
    }),
    { numRuns: Number(process.env.TSQ_PROPERTY_RUNS ?? 400) },
  );
});

test('the documented <unit> to date for each <period> phrases are offered whole (month_to_date_for_each_quarter.adoc, …)', async () => {
  const { list, document } = await complete(FLIGHTS + '[delay] by [origin] month to date f|');
  const phrase = item(list, 'month to date for each quarter');
  assert.equal(apply(document, phrase), FLIGHTS + '[delay] by [origin] month to date for each quarter');
  const start = await complete(FLIGHTS + '[delay] [date] |');
  for (const p of ['week to date for each month', 'quarter to date for each year', 'year to date for each year']) item(start.list, p);
});

test('resolve: a column item whose data is only its data source (the list\'s itemDefaults.data) is resolved by its label, bracketed or not', async () => {
  const { ls } = await complete(FLIGHTS + '[|');
  for (const label of ['delay', '[delay]']) {
    const resolved = await ls.doResolve({ label, kind: CompletionItemKind.Field, data: { dataSource: 'Flights' } });
    assert.match((resolved.documentation as MarkupContent).value, /Arrival delay in minutes/, label);
  }
  // not a column item, or no such column: unchanged
  const value = { label: "'SEA'", kind: CompletionItemKind.Value, data: { dataSource: 'Flights' } };
  assert.equal(await ls.doResolve(value), value);
  const unknown = { label: '[nope]', kind: CompletionItemKind.Field, data: { dataSource: 'Flights' } };
  assert.equal(await ls.doResolve(unknown), unknown);
});
