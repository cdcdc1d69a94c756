/**
 * The results webview's messages: a page of rows packed by column into one buffer (`packPage`, for its
 * trip from the extension host to the webview) unpacks to the same cells, whatever text they hold, and
 * whatever mix of kinds a column has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packPage, pageRows, unpackPage } from '../../common/src/results/messages';
import type { CellValue } from '../../common/src/results/shape';

test('a packed page unpacks to the same rows: numbers, nulls, booleans, quotes, HTML and non-ASCII text', () => {
  const rows: CellValue[][] = [
    [1262304000, 'ATL', null, -3.5, true, null],
    ['"quoted", with \\ and \n newline', '<img src=x onerror=alert(1)>', '</script>', 0, false, null],
    ['Zürich 東京 🚀', '', 1e21, Number.MAX_SAFE_INTEGER, null, null],
  ];
  const packed = packPage(rows);
  assert.ok(packed instanceof Uint8Array);
  const page = unpackPage(packed);
  assert.deepEqual(page.columns.map((c) => c.kind), ['any', 'str', 'any', 'num', 'any', 'null']);
  assert.deepEqual(pageRows(page), rows);
  assert.deepEqual(pageRows(unpackPage(packPage([]))), []);
});

test('a page of 10,000 rows packs numbers and strings as arrays, -0 and huge numbers kept', () => {
  const rows: CellValue[][] = Array.from({ length: 10_000 }, (_, i) => [i === 5 ? -0 : i * 1e300 / 1e300, `origin ${i % 7}`, i % 3 ? null : i / 2]);
  const packed = packPage(rows);
  const page = unpackPage(packed);
  assert.deepEqual(page.columns.map((c) => c.kind), ['num', 'str', 'num']);
  const origins = page.columns[1]!;
  assert.ok(origins.kind === 'str' && origins.strings.length === 7, 'each string once in the table');
  assert.ok(packed.byteLength < 10_000 * (8 + 4 + 8) + 400, `${packed.byteLength} bytes`);
  assert.deepEqual(pageRows(page), rows);
  assert.ok(Object.is(pageRows(page)[5]![0], -0));
});

test('bytes that do not start at a multiple of 8 (a view into a larger buffer) unpack the same', () => {
  const rows: CellValue[][] = [[1.5, 'a'], [null, 'b'], [3, null]];
  const packed = packPage(rows);
  const shifted = new Uint8Array(packed.byteLength + 3);
  shifted.set(packed, 3);
  assert.deepEqual(pageRows(unpackPage(shifted.subarray(3))), rows);
});
