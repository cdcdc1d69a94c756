/**
 * What completion offers where, one context at a time (`|` marks the cursor): after a column, after an
 * operator, after a keyword, after a number or a value, inside an unclosed `[`, inside a value, after
 * `[date].` and `calendar.`, after `sort by`, in a subsearch `in (…)`, at the start of a query. The
 * context is read from the document's syntax tree (common/src/language/tree.ts); these pin what each
 * reading gives. Catalogs: the vega-datasets flights data (test/fixtures/catalogs.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CompletionItemKind, type CompletionItem, type CompletionList, type TextEdit } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { DATE_UNITS } from '../../common/src/language/keywords';
import { datasetValues, flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';

const FLIGHTS = "@datasource 'Flights'\n";
const catalog = makeCatalogProvider([flightsCatalog()], datasetValues());
const ls = getLanguageService({ catalog });

/** Completes at the `|` of `FLIGHTS + text`. */
async function complete(text: string): Promise<{ list: CompletionList; document: TextDocument }> {
  const offset = FLIGHTS.length + text.indexOf('|');
  assert.ok(offset >= FLIGHTS.length, 'test text needs a | cursor');
  const document = TextDocument.create('file:///context.tsq', 'tsq', 1, FLIGHTS + text.replace('|', ''));
  return { list: await ls.doComplete(document, document.positionAt(offset), {}), document };
}

/** The items that fit the context best (sort group 0), in their order. */
function fits(list: CompletionList): string[] {
  return list.items.filter((i) => i.sortText?.startsWith('0')).sort((a, b) => (a.sortText! < b.sortText! ? -1 : a.sortText! > b.sortText! ? 1 : 0)).map((i) => i.label);
}

const columns = (list: CompletionList) => list.items.filter((i) => i.kind === CompletionItemKind.Field).map((i) => i.label);
const keywords = (list: CompletionList) => list.items.filter((i) => i.kind === CompletionItemKind.Keyword).map((i) => i.label);
const valuesOf = (list: CompletionList) => list.items.filter((i) => i.kind === CompletionItemKind.Value).map((i) => i.label);

/** The text an item replaces. */
function replaced(document: TextDocument, it: CompletionItem | undefined): string {
  assert.ok(it, 'an item');
  return document.getText((it.textEdit as TextEdit).range);
}

const FLIGHT_COLUMNS = ['[date]', '[delay]', '[distance]', '[origin]', '[destination]'];
const MEASURE_OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'between'];

test('after a column: the operators of its type first, then keywords and columns', async () => {
  const measure = await complete('[delay] |');
  assert.deepEqual(fits(measure.list), MEASURE_OPERATORS);
  assert.ok(keywords(measure.list).includes('sort by'));
  assert.deepEqual(columns(measure.list).sort(), [...FLIGHT_COLUMNS].sort());
  const text = await complete('[delay] [origin] |');
  assert.deepEqual(fits(text.list).slice(0, 8), [...MEASURE_OPERATORS, 'contains']);
  assert.ok(fits(text.list).includes('in') && fits(text.list).includes('not in'), 'the subsearches on text');
  // after a later clause, the last column counts
  assert.deepEqual(fits((await complete("[origin] = 'SEA' [delay] |")).list), MEASURE_OPERATORS);
  // on the next line of the same query, and after a comment line inside it
  assert.deepEqual(fits((await complete('[delay]\n|')).list), MEASURE_OPERATORS);
  assert.deepEqual(fits((await complete('[delay] -- note\n|')).list), MEASURE_OPERATORS);
});

test('after a bucketed date column: its operators, buckets and date keywords', async () => {
  const { list } = await complete('[date].monthly |');
  const f = fits(list);
  assert.deepEqual(f.slice(0, 9), [...MEASURE_OPERATORS, 'after', 'before']);
  for (const k of ['monthly', 'last', 'today', 'month to date']) assert.ok(f.includes(k), `${k} offered`);
});

test('after an operator: the column\'s values and, after = and !=, the constants', async () => {
  const eq = await complete('[origin] = |');
  assert.ok(valuesOf(eq.list).includes("'ATL'"));
  assert.ok(eq.list.items.some((i) => i.label === '{null}'));
  assert.equal(eq.list.isIncomplete, true);
  const gt = await complete('[delay] > |');
  assert.ok(!gt.list.items.some((i) => i.label === '{null}'), 'no constant after >');
  assert.ok(!keywords(gt.list).length, 'no keyword in value position');
});

test('inside a value: the typed prefix, quote included, is replaced; the rest of a closed value too', async () => {
  const open = await complete("[origin] = 'S|");
  assert.ok(valuesOf(open.list).length > 0 && valuesOf(open.list).every((v) => v.startsWith("'S")), valuesOf(open.list).join());
  assert.equal(replaced(open.document, open.list.items[0]), "'S");
  const middle = await complete("[origin] = 'S|E' [delay]");
  assert.equal(replaced(middle.document, middle.list.items.find((i) => i.label === "'SEA'")), "'SE'");
  // a value where no filter expects one gets nothing
  assert.deepEqual((await complete("[origin] 'S|")).list.items, []);
});

test('after a keyword: columns first after sort by, by, top and an aggregation; date units after last/next; only columns after growth of', async () => {
  for (const text of ['sort by |', '[delay] by |', 'top |', '[delay] sum |']) {
    assert.deepEqual(fits((await complete(text)).list), FLIGHT_COLUMNS, text);
  }
  for (const text of ['last |', '[date] next |', 'last 7 |', '[date] last 7 |']) {
    const { list } = await complete(text);
    assert.deepEqual(fits(list), [...DATE_UNITS], text);
    assert.deepEqual(columns(list), [], `no column after ${text}`);
  }
  assert.deepEqual(fits((await complete('last 7 days |')).list), ['ago', 'for each']);
  const growth = await complete('growth of |');
  assert.deepEqual(keywords(growth.list), []);
  assert.deepEqual(columns(growth.list), FLIGHT_COLUMNS);
});

test('after a number or a value: and after between\'s first operand, vs after a value, nothing special after top N', async () => {
  assert.deepEqual(fits((await complete('[delay] between 1 |')).list), ['and']);
  assert.deepEqual(fits((await complete("[origin] = 'SEA' |")).list), ['vs']);
  assert.deepEqual(fits((await complete("[origin] between 'A' |")).list), ['and', 'vs']);
  assert.deepEqual(fits((await complete('[delay] top 10 |')).list), []);
});

test('after sort by [column]: the directions, then its operators; a typed direction replaces the word', async () => {
  const { list } = await complete('[delay] sort by [delay] |');
  assert.deepEqual(fits(list).slice(0, 3), ['descending', 'ascending', '=']);
  const typed = await complete('[delay] sort by [delay] desc|');
  assert.equal(replaced(typed.document, typed.list.items.find((i) => i.label === 'descending')), 'desc');
});

test('inside an unclosed [: the columns, replacing the typed name; a blank after it still belongs to the name', async () => {
  const { list, document } = await complete('[delay] [dis|');
  assert.deepEqual(fits(list), ['date', 'delay', 'distance', 'origin', 'destination']);
  assert.equal(replaced(document, list.items[0]), 'dis');
  const blank = await complete('[delay] [dis |');
  assert.deepEqual(columns(blank.list).length, 5);
  assert.equal(replaced(blank.document, blank.list.items[0]), 'dis ');
});

test('after [date]. and calendar.: buckets and calendars, the typed part (quoted too) replaced', async () => {
  const bucket = await complete("[date].'day o|");
  assert.ok(fits(bucket.list).includes('day of week'));
  assert.equal(replaced(bucket.document, bucket.list.items[0]), "'day o");
  const cal = await complete('[delay] calendar.fi|');
  assert.ok(fits(cal.list).includes('fiscal'));
  assert.equal(replaced(cal.document, cal.list.items[0]), 'fi');
  // a dot after a space starts nothing
  assert.deepEqual(fits((await complete('[delay] . |')).list), []);
});

test('in a subsearch in (…): the start of a query after (, a column\'s operators after it, values after its operator', async () => {
  const start = await complete('[destination] in (|');
  assert.deepEqual(fits(start.list), []);
  assert.ok(keywords(start.list).includes('sort by'));
  const afterColumn = await complete('[destination] in ([origin] |');
  assert.deepEqual(fits(afterColumn.list).slice(0, 8), [...MEASURE_OPERATORS, 'contains']);
  const value = await complete("[destination] in ([origin] = 'SEA', |)");
  assert.ok(valuesOf(value.list).includes("'ATL'"));
});

test('at the start of a query: after ; and after a blank line nothing of the previous query counts', async () => {
  for (const text of ['[delay]; |', '[delay]\n\n|', '[delay];\n|']) {
    const { list } = await complete(text);
    assert.deepEqual(fits(list), [], text);
    assert.ok(keywords(list).includes('top'), text);
  }
});

test('the cursor inside a written keyword replaces the whole keyword and reads what is before it', async () => {
  const { list, document } = await complete('[delay] betw|een 1 and 2');
  assert.deepEqual(fits(list), MEASURE_OPERATORS);
  assert.equal(replaced(document, list.items.find((i) => i.label === 'between')), 'between');
});

test('read from the tree: the clause decides, not the token before (sort by sum [x] is a sort; a calendar being typed is not offered back)', async () => {
  assert.deepEqual(fits((await complete('sort by sum [delay] |')).list).slice(0, 2), ['descending', 'ascending']);
  const cal = await complete('[delay] calendar.mi|');
  assert.ok(!cal.list.items.some((i) => i.label === 'mi'), 'the name under the cursor is no calendar of the document');
  const other = await complete('[delay] calendar.mine;\n[delay] calendar.|');
  assert.ok(other.list.items.some((i) => i.label === 'mine'));
});

test('the cursor inside an operator or a constant completes nothing; inside a multi-word keyword the keyword is replaced whole', async () => {
  assert.deepEqual((await complete("[origin] !|= 'SEA'")).list.items, []);
  assert.deepEqual((await complete('[origin] = {nu|ll}')).list.items, []);
  const { list, document } = await complete('[origin] sort |by [origin]');
  assert.equal(replaced(document, list.items.find((i) => i.label === 'sort by')), 'sort by');
  assert.deepEqual(fits(list).slice(0, 2), ['=', '!=']);
});

test('after the bucket of growth of … by [date]: the period-over-period keywords that may follow it (search-growth), first', async () => {
  const monthly = fits((await complete('growth of [delay] by [date] monthly |')).list);
  assert.ok(monthly.includes('year-over-year') && monthly.includes('quarter-over-quarter'), JSON.stringify(monthly));
  assert.ok(!monthly.includes('month-over-month') && !monthly.includes('day-over-day'), 'not those a monthly bucket cannot take');
  assert.deepEqual(monthly.slice(0, 2), ['year-over-year', 'quarter-over-quarter'], 'first');
  const daily = fits((await complete('growth of [delay] by [date].daily |')).list);
  assert.deepEqual(['year-over-year', 'quarter-over-quarter', 'month-over-month', 'week-over-week'].filter((k) => daily.includes(k)), ['year-over-year', 'quarter-over-quarter', 'month-over-month', 'week-over-week'], JSON.stringify(daily));
  assert.ok(fits((await complete('growth of [delay] by [date] hourly |')).list).includes('day-over-day'));
  // with no bucket written, the default (monthly) is the one they follow
  const none = fits((await complete('growth of [delay] by [date] |')).list);
  assert.ok(none.includes('year-over-year') && !none.includes('week-over-week'), JSON.stringify(none));
  // a bucket outside growth of takes none
  assert.ok(!fits((await complete('[delay] [date] monthly |')).list).includes('year-over-year'));
});
