/**
 * How answers read: epoch-second dates at their bucket's precision (UTC), date parts by name, numbers
 * grouped, null empty; the status line; copied text (TSV, CSV, JSON) and exported files (CSV and
 * JSON equal to the answer as sent, hostile text unchanged).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { copyText, formatCell, formatElapsed, formatEpochSeconds, formatNumber, isNumericColumn, statusLine } from '../../common/src/results/format';
import { copyAsText, writeAnswer } from '../../common/src/results/export';
import type { CellValue, ResultColumn } from '../../common/src/results/shape';

const JAN1_2001 = 978307200; // 2001-01-01T00:00:00Z
const c = (name: string, role: ResultColumn['role'], dataType: ResultColumn['dataType'], bucket?: string): ResultColumn => ({ name, role, dataType, ...(bucket ? { bucket } : {}) });

test('epoch seconds show as UTC dates at the precision of the bucket', () => {
  const t = JAN1_2001 + 13 * 3600 + 45 * 60 + 10; // 13:45:10
  assert.equal(formatEpochSeconds(t, 'DATE'), '2001-01-01');
  assert.equal(formatEpochSeconds(t, 'DATE_TIME'), '2001-01-01 13:45:10');
  assert.equal(formatEpochSeconds(t, 'DATE', 'Year'), '2001');
  assert.equal(formatEpochSeconds(t + 120 * 86400, 'DATE', 'Quarter'), '2001 Q2');
  assert.equal(formatEpochSeconds(t + 40 * 86400, 'DATE', 'Month'), '2001-02');
  assert.equal(formatEpochSeconds(t, 'DATE_TIME', 'Hour'), '2001-01-01 13:00');
  assert.equal(formatEpochSeconds(t, 'DATE', 'Week'), '2001-01-01');
  assert.equal(formatEpochSeconds(Number.NaN, 'DATE'), 'NaN');
  // seconds, not milliseconds: 0 is 1970
  assert.equal(formatEpochSeconds(0, 'DATE'), '1970-01-01');
});

test('cells: dates as dates, date parts by name, numbers grouped, null empty, text unchanged', () => {
  assert.equal(formatCell(JAN1_2001 + 60, c('date', 'date', 'DATE_TIME')), '2001-01-01 00:01:00');
  assert.equal(formatCell(1, c('Day of week(date)', 'attribute', 'INT64', 'Day of week')), 'Monday');
  assert.equal(formatCell(7, c('Day of week(date)', 'attribute', 'INT64', 'Day of week')), 'Sunday');
  assert.equal(formatCell(12, c('Month of year(date)', 'attribute', 'INT64', 'Month of year')), 'December');
  assert.equal(formatCell(53, c('Week of year(date)', 'attribute', 'INT64', 'Week of year')), '53');
  assert.equal(formatCell(1322243, c('Total delay', 'measure', 'INT64')), '1,322,243');
  assert.equal(formatCell(5.468698460692688, c('Average delay', 'measure', 'DOUBLE')), '5.4687');
  assert.equal(formatCell(-0.5, c('x', 'measure', 'DOUBLE')), '-0.5');
  assert.equal(formatCell(null, c('x', 'measure', 'DOUBLE')), '');
  assert.equal(formatCell(true, c('b', 'attribute', 'BOOL')), 'true');
  const hostile = '<img src=x onerror=alert(1)>';
  assert.equal(formatCell(hostile, c('name', 'attribute', 'VARCHAR')), hostile);
  assert.equal(formatNumber(Number.POSITIVE_INFINITY), 'Infinity');
});

test('numbers align right, dates and text do not', () => {
  assert.equal(isNumericColumn(c('Total delay', 'measure', 'INT64')), true);
  assert.equal(isNumericColumn(c('date', 'date', 'DATE')), false);
  assert.equal(isNumericColumn(c('origin', 'attribute', 'VARCHAR')), false);
});

test('copied cells keep numbers plain and dates readable', () => {
  assert.equal(copyText(1322243, c('Total delay', 'measure', 'INT64')), '1322243');
  assert.equal(copyText(JAN1_2001, c('Month(date)', 'date', 'DATE', 'Month')), '2001-01');
  assert.equal(copyText(null, c('x', 'measure', 'INT64')), '');
});

test('status line and elapsed time', () => {
  assert.equal(statusLine({ shown: 10000, totalRowCount: 199978, samplingRatio: 1, elapsedMs: 1234, loading: true, limited: false }), '10,000 of 199,978 rows (loading…) · sampling 100% · 1.2 s');
  assert.equal(statusLine({ shown: 100000, totalRowCount: 199978, samplingRatio: 0.5, elapsedMs: 65_000, loading: false, limited: true }), '100,000 of 199,978 rows (limit tsq.results.maxRows) · sampling 50% · 1 min 5 s');
  assert.equal(statusLine({ shown: 25000, totalRowCount: 25000, samplingRatio: 1, elapsedMs: 900, loading: false, limited: false, matching: 1312 }), '25,000 of 25,000 rows · 1,312 match the filter · sampling 100% · 900 ms');
  assert.equal(formatElapsed(850), '850 ms');
});

const cols = [c('origin', 'attribute', 'VARCHAR'), c('Month(date)', 'date', 'DATE', 'Month'), c('Total delay', 'measure', 'INT64')];

test('copy as TSV, CSV and JSON; a single cell as its bare text', () => {
  const rows: CellValue[][] = [['SEA', JAN1_2001, 1200], ['a\tb "q"', JAN1_2001, null]];
  assert.equal(copyAsText('tsv', cols, rows), 'origin\tMonth(date)\tTotal delay\nSEA\t2001-01\t1200\n"a\tb ""q"""\t2001-01\t\n');
  assert.equal(copyAsText('csv', cols, rows), 'origin,Month(date),Total delay\r\nSEA,2001-01,1200\r\n"a\tb ""q""",2001-01,\r\n');
  assert.deepEqual(JSON.parse(copyAsText('json', cols, rows)), [{ origin: 'SEA', 'Month(date)': JAN1_2001, 'Total delay': 1200 }, { origin: 'a\tb "q"', 'Month(date)': JAN1_2001, 'Total delay': null }]);
  assert.deepEqual(JSON.parse(copyAsText('json', cols, [rows[0]])), { origin: 'SEA', 'Month(date)': JAN1_2001, 'Total delay': 1200 });
  assert.equal(copyAsText('tsv', [cols[2]], [[1200]]), '1200');
});

test('export writes the answer as sent, page after page, to CSV and JSON; hostile text stays text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-export-'));
  try {
    const names = ['name', 'when', 'n', 'flag'];
    const pages: CellValue[][][] = [
      [['<img src=x onerror=alert(1)>', JAN1_2001, 1.5, true], ['</script>', null, -2, false]],
      [],
      [['line\nbreak, "quoted"', JAN1_2001 + 86400, 0, null]],
    ];
    const csvFile = join(dir, 'a.csv');
    {
      assert.equal(await writeAnswer(csvFile, 'csv', names, pages), 3);
      const records = parse(readFileSync(csvFile, 'utf8'), { columns: false }) as string[][];
      assert.deepEqual(records, [names, ['<img src=x onerror=alert(1)>', String(JAN1_2001), '1.5', 'true'], ['</script>', '', '-2', 'false'], ['line\nbreak, "quoted"', String(JAN1_2001 + 86400), '0', '']]);
      const jsonFile = join(dir, 'a.json');
      assert.equal(await writeAnswer(jsonFile, 'json', names, pages), 3);
      assert.deepEqual(JSON.parse(readFileSync(jsonFile, 'utf8')), pages.flat().map((r) => Object.fromEntries(names.map((k, i) => [k, r[i]]))));
      const emptyFile = join(dir, 'e.json');
      assert.equal(await writeAnswer(emptyFile, 'json', names, []), 0);
      assert.deepEqual(JSON.parse(readFileSync(emptyFile, 'utf8')), []);
      await assert.rejects(writeAnswer(join(dir, 'no', 'such', 'dir.csv'), 'csv', names, pages), /ENOENT/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
