/**
 * How an answer reads outside the grid: the file name an export offers (the data source and the local
 * time, file-name safe, cut by bytes) and the chart's axis titles, legend and zero baseline
 * (`chartAxes`, from the answer's columns and the chart data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportFileName } from '../../common/src/results/export';
import { chartAxes, chartData, chooseChart, describeColumns, type CellValue } from '../../common/src/results/shape';
import { formatCell } from '../../common/src/results/format';
import { NAME_MAX_BYTES, safeFileName } from '../../common/src/safeWrite';

test('an export is named after its data source and the local time', () => {
  assert.equal(exportFileName('Flights', new Date(2026, 11, 1, 21, 15, 42), 'csv'), 'Flights 2026-12-01 2115.csv');
  assert.equal(exportFileName('flights', new Date(2026, 0, 5, 7, 3), 'json'), 'flights 2026-01-05 0703.json');
});

test('an export name is file-name safe on every platform', () => {
  const at = new Date(2026, 11, 1, 21, 15);
  assert.equal(exportFileName('a/b\\c:d*e?f"g<h>i|j', at, 'csv'), 'a_b_c_d_e_f_g_h_i_j 2026-12-01 2115.csv');
  assert.equal(exportFileName('bell\u0007 and \u202ereversed', at, 'csv'), 'bell_ and _reversed 2026-12-01 2115.csv');
  assert.equal(exportFileName('..hidden', at, 'csv'), '_hidden 2026-12-01 2115.csv', 'no leading dot');
  assert.equal(exportFileName('', at, 'csv'), 'answer 2026-12-01 2115.csv');
  assert.equal(exportFileName('   ', at, 'csv'), 'answer 2026-12-01 2115.csv');
  const long = exportFileName('é'.repeat(300), at, 'json');
  assert.ok(Buffer.byteLength(long) <= NAME_MAX_BYTES, `${Buffer.byteLength(long)} bytes`);
  assert.match(long, /^é+ 2026-12-01 2115\.json$/);
  assert.equal(safeFileName('Flights'), 'Flights');
  assert.equal(safeFileName('..a:b'), '_a_b');
});

const FLIGHT_NAMES = ['Month(date)', 'Total distance', 'origin'];
const rowsOf = (values: number[]): CellValue[][] => values.map((v, i) => [978307200 + i * 2_678_400, v, i % 2 ? 'SEA' : 'PDX']);

test('the chart titles its axes with the column names the answer gives', () => {
  const rows = rowsOf([5, 7, 9, 11]).map((r) => [r[0], r[1]]);
  const cols = describeColumns(FLIGHT_NAMES.slice(0, 2), rows);
  const spec = chooseChart(cols, rows.length);
  const axes = chartAxes(spec, cols, chartData(spec, cols, rows, formatCell));
  assert.equal(axes.xTitle, 'Month(date)');
  assert.equal(axes.yTitle, 'Total distance');
  assert.equal(axes.legend, false, 'one series: no legend');
  assert.equal(axes.legendTitle, undefined);
});

test('a colour-by attribute gets a legend titled with its name', () => {
  const rows = rowsOf([5, 7, 9, 11]);
  const cols = describeColumns(FLIGHT_NAMES, rows);
  const spec = chooseChart(cols, rows.length);
  assert.equal(spec.group, 2);
  const axes = chartAxes(spec, cols, chartData(spec, cols, rows, formatCell));
  assert.deepEqual([axes.xTitle, axes.yTitle, axes.legend, axes.legendTitle], ['Month(date)', 'Total distance', true, 'origin']);
});

test('several measures: a legend of them, the y axis titled by all', () => {
  const rows: CellValue[][] = [['SEA', 1, 2], ['PDX', 3, 4]];
  const cols = describeColumns(['origin', 'Total delay', 'Total distance'], rows);
  const spec = chooseChart(cols, rows.length);
  const axes = chartAxes(spec, cols, chartData(spec, cols, rows, formatCell));
  assert.deepEqual([axes.xTitle, axes.yTitle, axes.legend, axes.legendTitle], ['origin', 'Total delay, Total distance', true, undefined]);
});

test('a measure with no negative value starts at 0, one with a negative value does not', () => {
  const at = (values: number[], kind?: 'line' | 'bar') => {
    const rows = rowsOf(values).map((r) => [r[0], r[1]]);
    const cols = describeColumns(FLIGHT_NAMES.slice(0, 2), rows);
    const spec = chooseChart(cols, rows.length, kind);
    return chartAxes(spec, cols, chartData(spec, cols, rows, formatCell)).fromZero;
  };
  assert.equal(at([500, 520, 540]), true, 'a line of positive values');
  assert.equal(at([0, 3, 4]), true);
  assert.equal(at([-5, 3, 4]), false, 'a negative value: the axis fits the data');
  assert.equal(at([-5, 3, 4], 'bar'), true, 'bars always stand on 0');
});
