/**
 * The results grid's data: the columnar store gives back every cell as it came (numbers, strings,
 * nulls, booleans, a column of mixed types), sort and filter permutations over all rows agree with
 * sorting and filtering row arrays with compareCells and the header filter, and the scroll mapping
 * reaches the last row of a million rows within the spacer cap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ColumnStore } from '../../common/src/results/columnar';
import { packPage, unpackPage } from '../../common/src/results/messages';
import { cellFilter, filterIds, firstRowAt, MAX_SCROLL_PX, mergeSort, runAll, runFor, scrollTopFor, sortIds, spacerHeight } from '../../common/src/results/gridView';
import { compareCells, type CellValue, type ResultColumn } from '../../common/src/results/shape';
import { formatCell } from '../../common/src/results/format';

const COLUMNS: ResultColumn[] = [
  { name: 'delay', dataType: 'INT64', role: 'measure' },
  { name: 'origin', dataType: 'VARCHAR', role: 'attribute' },
  { name: 'flag', dataType: 'BOOL', role: 'attribute' },
  { name: 'mixed', dataType: 'VARCHAR', role: 'attribute' },
];

/** Deterministic rows: numbers with nulls, few distinct strings with nulls, booleans, a mixed column. */
function rows(n: number, seed = 7): CellValue[][] {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const origins = ['SFO', 'LAX', 'JFK', 'ÖRE', 'abc', 'Abd'];
  return Array.from({ length: n }, (_, i) => [
    rnd() < 0.1 ? null : Math.round(rnd() * 200 - 50),
    rnd() < 0.1 ? null : origins[Math.floor(rnd() * origins.length)],
    rnd() < 0.5,
    i % 3 === 0 ? i : `m${i % 5}`,
  ]);
}

test('the columnar store gives back every cell as it came, appended page by page', () => {
  const data = [[null, null, null, null], ...rows(5000)];
  const store = new ColumnStore(4);
  for (let i = 0; i < data.length; i += 777) store.append(data.slice(i, i + 777));
  assert.equal(store.length, data.length);
  assert.deepEqual(store.rows(0, store.length), data);
  assert.equal(store.columns[0].kind, 'num');
  assert.equal(store.columns[1].kind, 'str');
  assert.equal(store.columns[2].kind, 'any');
  assert.equal(store.columns[3].kind, 'any', 'numbers then text: a plain array');
  assert.equal(store.get(store.length, 0), null, 'past the end');
  assert.deepEqual(store.row(1), data[1]);
});

test('pages packed by column append to the same cells as row arrays, kinds typed, widened and mixed', () => {
  const data = [[null, null, null, null], ...rows(5000), [1, 2, 'x', null], ['text', 'y', null, 4]];
  const byRows = new ColumnStore(4);
  const byPages = new ColumnStore(4);
  for (let i = 0; i < data.length; i += 777) {
    byRows.append(data.slice(i, i + 777));
    byPages.appendPage(unpackPage(packPage(data.slice(i, i + 777))));
  }
  byPages.appendPage(unpackPage(packPage([[7]]))); // a short row: the other cells are null
  byRows.append([[7]]);
  assert.deepEqual(byPages.rows(0, byPages.length), byRows.rows(0, byRows.length));
  assert.deepEqual(byPages.columns.map((c) => c.kind), byRows.columns.map((c) => c.kind));
  const typed = new ColumnStore(2);
  typed.appendPage(unpackPage(packPage([[null, null]])));
  typed.appendPage(unpackPage(packPage([[1.5, 'a'], [null, 'b']])));
  assert.deepEqual(typed.columns.map((c) => c.kind), ['num', 'str'], 'a column of nulls stays open to its kind');
  assert.deepEqual(typed.rows(0, 3), [[null, null], [1.5, 'a'], [null, 'b']]);
});

test('a store told the expected rows makes its arrays that long once, and still grows past them', () => {
  const store = new ColumnStore(2, 25_000);
  store.append([[1, 'a']]);
  const first = store.columns[0]!;
  assert.ok(first.kind === 'num' && first.values.length === 25_000);
  for (let i = 0; i < 24; i++) store.appendPage(unpackPage(packPage(Array.from({ length: 1000 }, (_, k) => [k, `s${k % 3}`]))));
  assert.equal((store.columns[0] as { values: Float64Array }).values, first.values, 'no new array while the rows fit');
  store.append([[2, 'b'], [3, null]]);
  assert.equal(store.length, 24_003);
  assert.deepEqual(store.row(24_002), [3, null]);
});

test('a million rows of a number and a 300-value string column hold about 12 bytes a row', () => {
  const store = new ColumnStore(2);
  const page: CellValue[][] = Array.from({ length: 10_000 }, (_, i) => [i * 1.5, `v${i % 300}`]);
  for (let i = 0; i < 100; i++) store.append(page);
  assert.equal(store.length, 1_000_000);
  assert.ok(store.bytes() < 20 * 1_000_000, `${store.bytes()} bytes`);
  assert.deepEqual(store.row(999_999), [9_999 * 1.5, `v${9_999 % 300}`]);
});

test('sort permutations order all rows as compareCells does, nulls last, ties in arrival order', () => {
  const data = rows(3000);
  const store = new ColumnStore(4);
  store.append(data);
  for (const col of [0, 1, 3]) {
    for (const dir of ['asc', 'desc'] as const) {
      const ids = runAll(sortIds(store, col, dir));
      const expected = data.map((r, i) => ({ r, i })).sort((a, b) => {
        const x = a.r[col], y = b.r[col];
        if (x === null || y === null) return compareCells(x, y) || a.i - b.i;
        return (dir === 'asc' ? compareCells(x, y) : compareCells(y, x)) || a.i - b.i;
      }).map((e) => e.i);
      assert.deepEqual([...ids], expected, `column ${col} ${dir}`);
    }
  }
});

test('mergeSort yields between steps and runFor runs it in slices', () => {
  const ids = Uint32Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 50_000);
  const gen = mergeSort(ids, (a, b) => a - b);
  let clock = 0;
  let slices = 0;
  let r: ReturnType<typeof runFor<Uint32Array>>;
  do {
    r = runFor(gen, 3, () => clock++);
    slices++;
  } while (!r.done);
  assert.ok(slices > 10, `${slices} slices`);
  assert.deepEqual([...r.value], Array.from({ length: 50_000 }, (_, i) => i));
});

test('filter permutations keep the rows the header filter passes, in the sorted order', () => {
  const data = rows(3000);
  const store = new ColumnStore(4);
  store.append(data);
  const order = runAll(sortIds(store, 0, 'desc'));
  const filters = ['>=20', 'a', undefined, undefined];
  const ids = runAll(filterIds(store, COLUMNS, filters, order))!;
  const tests = filters.map((f, i) => cellFilter(f ?? '', COLUMNS[i]));
  const expected = [...order].filter((i) => tests.every((t, c) => !t || t(data[i][c])));
  assert.deepEqual([...ids], expected);
  assert.ok(ids.length > 0 && ids.length < 3000);
  for (const i of ids) assert.ok(formatCell(data[i][1], COLUMNS[1]).toLowerCase().includes('a') && (data[i][0] as number) >= 20);
  assert.equal(runAll(filterIds(store, COLUMNS, ['', ' '], order)), order, 'no filter: the order itself');
  assert.equal(cellFilter('=5', COLUMNS[0])!(5), true);
  assert.equal(cellFilter('!=5', COLUMNS[0])!(5), false);
  assert.equal(cellFilter('sf', COLUMNS[1])!('SFO'), true);
});

test('the scroll mapping reaches the last of a million rows with a spacer below 2^24 px', () => {
  const rows = 1_000_000, h = 24, vp = 600;
  assert.ok(spacerHeight(rows, h) <= MAX_SCROLL_PX && MAX_SCROLL_PX < 2 ** 24);
  const bottom = spacerHeight(rows, h) - vp;
  assert.equal(firstRowAt(bottom, rows, h, vp), rows - vp / h, 'the bottom shows the last rows');
  assert.equal(firstRowAt(0, rows, h, vp), 0);
  for (const row of [0, 1, 12_345, 500_000, 999_975]) assert.ok(Math.abs(firstRowAt(scrollTopFor(row, rows, h, vp), rows, h, vp) - row) < 1e-6, `row ${row}`);
  // small answers: a pixel is a pixel
  assert.equal(spacerHeight(1000, h), 24_000);
  assert.equal(firstRowAt(240, 1000, h, vp), 10);
  assert.equal(scrollTopFor(10, 1000, h, vp), 240);
});
