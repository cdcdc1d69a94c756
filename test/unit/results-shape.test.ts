/**
 * The answer's shape: column roles and types from searchdata names, the data source's columns and the
 * values; the chart chosen for each shape and the kinds offered; chart data (categories, series,
 * grouping, limits); the query text of a selection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Column } from '../../common/src/model';
import { CHART_LIMITS, chartData, chooseChart, compareCells, describeColumns, selectionQueryText, type CellValue, type ResultColumn } from '../../common/src/results/shape';
import { formatCell } from '../../common/src/results/format';

const FLIGHTS: Column[] = [
  { name: 'date', dataType: 'DATE_TIME', kind: 'ATTRIBUTE' },
  { name: 'delay', dataType: 'INT64', kind: 'MEASURE' },
  { name: 'distance', dataType: 'INT64', kind: 'MEASURE' },
  { name: 'origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
  { name: 'destination', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
];

const roles = (cols: ResultColumn[]) => cols.map((c) => `${c.role}:${c.dataType}${c.bucket ? `:${c.bucket}` : ''}`);

test('date buckets are dates, date parts are ordinal attributes', () => {
  const cols = describeColumns(['Month(date)', 'Hour(date)', 'Day of week(date)', 'Total distance'], [[978307200, 978307200, 1, 5]], FLIGHTS);
  assert.deepEqual(roles(cols), ['date:DATE:Month', 'date:DATE_TIME:Hour', 'attribute:INT64:Day of week', 'measure:INT64']);
});

test('aggregation names make measures; their type follows the aggregation or the column', () => {
  const cols = describeColumns(['Average delay', 'Unique Count origin', 'Total Count delay', 'Max delay', 'Min date', 'Total delay'], [[1.5, 3, 4, 9, 978307200, 10]], FLIGHTS);
  assert.deepEqual(roles(cols), ['measure:DOUBLE', 'measure:INT64', 'measure:INT64', 'measure:INT64', 'date:DATE_TIME', 'measure:INT64']);
});

test('catalog columns keep their kind and type; a catalog column named like an aggregation stays itself', () => {
  const cat: Column[] = [...FLIGHTS, { name: 'Total sales', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }];
  const cols = describeColumns(['origin', 'date', 'delay', 'Total sales'], [['SEA', 978307260, 3, 'x']], cat);
  assert.deepEqual(roles(cols), ['attribute:VARCHAR', 'date:DATE_TIME', 'measure:INT64', 'attribute:VARCHAR']);
});

test('without a catalog, values decide: numbers are measures, text and booleans attributes, all-null unknown', () => {
  const rows: CellValue[][] = [['a', 1, 1.5, true, null], ['b', 2, 2, false, null]];
  assert.deepEqual(roles(describeColumns(['name', 'n', 'x', 'flag', 'empty'], rows)), ['attribute:VARCHAR', 'measure:INT64', 'measure:DOUBLE', 'attribute:BOOL', 'attribute:UNKNOWN']);
  // mixed kinds are text
  assert.deepEqual(roles(describeColumns(['mixed'], [[1], ['a']])), ['attribute:VARCHAR']);
});

const col = (name: string, role: ResultColumn['role'], dataType: ResultColumn['dataType'] = role === 'measure' ? 'DOUBLE' : role === 'date' ? 'DATE' : 'VARCHAR', bucket?: string): ResultColumn => ({ name, role, dataType, ...(bucket ? { bucket } : {}) });

test('the chart follows the shape of the answer', () => {
  const line = chooseChart([col('Month(date)', 'date', 'DATE', 'Month'), col('Total distance', 'measure')], 6);
  assert.equal(line.kind, 'line');
  assert.equal(line.x, 0);
  assert.deepEqual(line.measures, [1]);
  assert.deepEqual(line.alternatives, ['line', 'bar']);

  const bar = chooseChart([col('origin', 'attribute'), col('Total delay', 'measure')], 10);
  assert.deepEqual([bar.kind, bar.x, bar.measures], ['bar', 0, [1]]);

  const grouped = chooseChart([col('origin', 'attribute'), col('destination', 'attribute'), col('Total delay', 'measure')], 3345);
  assert.deepEqual([grouped.kind, grouped.x, grouped.group, grouped.measures], ['groupedBar', 0, 1, [2]]);

  const number = chooseChart([col('Total delay', 'measure')], 1);
  assert.deepEqual([number.kind, number.alternatives], ['number', ['number', 'bar']]);

  const lineByGroup = chooseChart([col('Month(date)', 'date', 'DATE', 'Month'), col('origin', 'attribute'), col('Total delay', 'measure')], 60);
  assert.deepEqual([lineByGroup.kind, lineByGroup.x, lineByGroup.group], ['line', 0, 1]);

  const none = chooseChart([col('origin', 'attribute'), col('destination', 'attribute')], 5);
  assert.equal(none.kind, 'none');
  assert.match(none.reason ?? '', /no measure/);
});

test('the chart-type switch takes a fitting kind and ignores one that does not fit', () => {
  const cols = [col('origin', 'attribute'), col('destination', 'attribute'), col('Total delay', 'measure')];
  const asBars = chooseChart(cols, 10, 'bar');
  assert.equal(asBars.kind, 'bar');
  assert.equal(asBars.group, undefined);
  assert.equal(chooseChart(cols, 10, 'number').kind, 'groupedBar');
  assert.equal(chooseChart([col('Total delay', 'measure')], 1, 'line').kind, 'number');
});

test('chart data: categories in order of appearance, dates in time order, duplicates summed', () => {
  const cols = [col('origin', 'attribute'), col('Total delay', 'measure', 'INT64')];
  const rows: CellValue[][] = [['SEA', 5], ['PDX', 2], ['SEA', 1], ['LAX', null]];
  const d = chartData(chooseChart(cols, rows.length), cols, rows, formatCell);
  assert.deepEqual(d.labels, ['SEA', 'PDX', 'LAX']);
  assert.deepEqual(d.series, [{ label: 'Total delay', data: [6, 2, null] }]);

  const dcols = [col('Month(date)', 'date', 'DATE', 'Month'), col('Total distance', 'measure')];
  const drows: CellValue[][] = [[980985600, 2], [978307200, 1]];
  const dd = chartData(chooseChart(dcols, 2), dcols, drows, formatCell);
  assert.deepEqual(dd.labels, ['2001-01', '2001-02']);
  assert.deepEqual(dd.series[0].data, [1, 2]);
});

test('grouped chart data: one series per group value, the largest groups kept', () => {
  const cols = [col('origin', 'attribute'), col('destination', 'attribute'), col('Total delay', 'measure')];
  const rows: CellValue[][] = [];
  for (let g = 0; g < CHART_LIMITS.series + 3; g++) rows.push(['SEA', `D${g}`, g + 1], ['PDX', `D${g}`, 1]);
  const d = chartData(chooseChart(cols, rows.length), cols, rows, formatCell);
  assert.deepEqual(d.labels, ['SEA', 'PDX']);
  assert.equal(d.series.length, CHART_LIMITS.series);
  assert.equal(d.truncated, true);
  // the largest group first: D14 has 15 + 1
  assert.deepEqual(d.series[0], { label: `D${CHART_LIMITS.series + 2}`, data: [CHART_LIMITS.series + 3, 1] });
  assert.ok(!d.series.some((s) => s.label === 'D0'), 'the smallest groups are left out');
});

test('chart data of a single number and of no measure', () => {
  const cols = [col('Total delay', 'measure')];
  assert.deepEqual(chartData(chooseChart(cols, 1), cols, [[42]], formatCell).series, [{ label: 'Value', data: [42] }]);
  const none = [col('origin', 'attribute')];
  assert.deepEqual(chartData(chooseChart(none, 1), none, [['x']], formatCell), { labels: [], series: [], truncated: false });
});

test('category limit cuts bars and says so', () => {
  const cols = [col('k', 'attribute'), col('v', 'measure')];
  const rows: CellValue[][] = Array.from({ length: CHART_LIMITS.categories + 5 }, (_, i) => [`k${i}`, i]);
  const d = chartData(chooseChart(cols, rows.length), cols, rows, formatCell);
  assert.equal(d.labels.length, CHART_LIMITS.categories);
  assert.equal(d.truncated, true);
});

test('cells compare with nulls last, numbers numerically, text by locale', () => {
  const sorted = ([3, null, 10, 2] as CellValue[]).sort(compareCells);
  assert.deepEqual(sorted, [2, 3, 10, null]);
  assert.deepEqual((['b', 'a', null, 'C'] as CellValue[]).sort(compareCells), ['a', 'b', 'C', null]);
});

test('the query text of a selection drops comments, @datasource lines and a closing semicolon', () => {
  assert.equal(selectionQueryText("@datasource 'flights'\n[origin] [delay] -- by origin\n top 10;"), '[origin] [delay] \n top 10');
  assert.equal(selectionQueryText("[origin] = 'a--b' -- note"), "[origin] = 'a--b'");
  assert.equal(selectionQueryText('-- only a comment'), '');
});
