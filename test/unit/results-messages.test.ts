/**
 * The results webview's messages: a page of rows packed into one buffer (`packRows`, for its trip from
 * the extension host to the webview) unpacks to the same cells, whatever text they hold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packRows, unpackRows } from '../../common/src/results/messages';
import type { CellValue } from '../../common/src/results/shape';

test('a packed page unpacks to the same rows: numbers, nulls, booleans, quotes, HTML and non-ASCII text', () => {
  const rows: CellValue[][] = [
    [1262304000, 'ATL', null, -3.5, true],
    ['"quoted", with \\ and \n newline', '<img src=x onerror=alert(1)>', '</script>', 0, false],
    ['Zürich 東京 🚀', '', 1e21, Number.MAX_SAFE_INTEGER, null],
  ];
  const packed = packRows(rows);
  assert.ok(packed instanceof Uint8Array);
  assert.deepEqual(unpackRows(packed), rows);
  assert.deepEqual(unpackRows(packRows([])), []);
});

test('a page of 10,000 rows packs to its JSON text as UTF-8', () => {
  const rows: CellValue[][] = Array.from({ length: 10_000 }, (_, i) => [i, `origin ${i % 7}`, i % 3 ? null : i / 2]);
  const packed = packRows(rows);
  assert.equal(new TextDecoder().decode(packed), JSON.stringify(rows));
  assert.deepEqual(unpackRows(packed), rows);
});
