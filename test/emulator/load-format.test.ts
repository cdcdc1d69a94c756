// Every option of the load definition's format (docs/service-interface.md §2.2) over HTTP, read back from DuckDB: csv vs
// delimited, separators, enclosing and escape characters, null_value, header rows, flexible, the date and
// time formats, converted_to_epoch, skip_second_fraction, boolean formats and bit values; and the
// parsing errors and bad records file of rejected rows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LOADER, def, session, startLoadLive, type LoadLive, type LoadSession } from './load-support';

let live: LoadLive;
let s: LoadSession;
before(async () => {
  live = await startLoadLive();
  s = await session(live.emu.loadUrl as string, LOADER);
});
after(async () => {
  await live?.stop();
});

/**
 * Loads `chunks` into `typed` (replacing its rows) with `format` and `extra` load options; returns the final status.
 * Dates are epoch seconds unless `format` has its own `date_time` (the service's default is text dates).
 */
async function loadTyped(format: Record<string, unknown>, chunks: string[], loadOptions: Record<string, unknown> = {}, advanced: Record<string, unknown> = {}) {
  const f = 'date_time' in format ? format : { ...format, date_time: { converted_to_epoch: true } };
  return s.load(def('typed', { format: f, load_options: { empty_target: true, ...loadOptions }, advanced_options: advanced }), ...chunks);
}

const FULL_ROW = { i64: 1, i32: 2, txt: 'hello', chr: 'c', flag: true, f: 1.5, d: 2.25, day: '1970-01-02', ts: '2023-11-14 22:13:20', t: '01:02:03' };

test('csv defaults: comma, double-quote enclosing, %Y%m%d dates (converted_to_epoch false), T/F booleans, %H:%M:%S times', async () => {
  const { status } = await loadTyped({ date_time: {} }, ['1,2,hello,c,T,1.5,2.25,19700102,20231114 22:13:20,01:02:03\n2,-3,"a,b ""q""\nline",,F,-0.5,1e3,19700101,19700101 00:00:00,23:59:59\n']);
  assert.deepEqual(status.status, { code: 'OK' });
  assert.equal(status.rows_written, '2');
  assert.deepEqual(await live.typedRows(), [
    FULL_ROW,
    { i64: 2, i32: -3, txt: 'a,b "q"\nline', chr: null, flag: false, f: -0.5, d: 1000, day: '1970-01-01', ts: '1970-01-01 00:00:00', t: '23:59:59' },
  ]);
});

test('converted_to_epoch true reads epoch seconds; left out, an epoch value is a bad record (the default is false)', async () => {
  const epoch = await loadTyped({ date_time: { converted_to_epoch: true } }, ['1,2,hello,c,T,1.5,2.25,86400,1700000000,01:02:03\n']);
  assert.deepEqual(epoch.status.status, { code: 'OK' });
  assert.deepEqual(await live.typedRows(), [FULL_ROW]);
  // the reference client sends converted_to_epoch only when it is true (community-tools data_importer_client.py makeLoadParams)
  const omitted = await loadTyped({ date_time: {} }, ['1,2,hello,c,T,1.5,2.25,86400,1700000000,01:02:03\n'], { max_ignored_rows: 1 });
  assert.equal(omitted.status.ignored_row_count, '1');
  assert.deepEqual(await live.typedRows(), []);
});

test('csv: an unenclosed empty field is null; an enclosed empty field is the empty string; null_value does not apply', async () => {
  await loadTyped({}, ['1,,"",(null),,,,,,\n']);
  const [row] = await live.typedRows();
  assert.deepEqual(row, { i64: 1, i32: null, txt: '', chr: '(null)', flag: null, f: null, d: null, day: null, ts: null, t: null });
});

test('field_separator, enclosing_character, trailing_field_separator, has_header_row (a repeated header in a later chunk is skipped)', async () => {
  const header = "i64;i32;txt;chr;flag;f;d;day;ts;t;\n";
  const { status } = await loadTyped({ field_separator: ';', enclosing_character: "'", trailing_field_separator: true, has_header_row: true }, [
    `${header}1;2;'x;y';'it''s';T;1;2;0;0;00:00:01;\n`,
    `${header}2;3;"q";z;F;1;2;0;0;00:00:02;\n`,
    `3;4;w;v;T;1;2;0;0;00:00:03;\n`,
  ]);
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  const rows = await live.typedRows();
  assert.deepEqual(rows.map((r) => [r.i64, r.txt, r.chr]), [[1, 'x;y', "it's"], [2, '"q"', 'z'], [3, 'w', 'v']]);
});

test('delimited: escape_character and null_value apply, enclosing characters are plain text', async () => {
  const { status } = await loadTyped({ type: 'delimited', field_separator: '|', escape_character: '\\', null_value: 'NULL' }, [
    '1|2|a\\|b|"q"|T|1|2|0|0|00:00:00\n2|NULL|NULL|line\\\nbreak|NULL|NULL|NULL|NULL|NULL|NULL\n3|4||back\\\\slash|F|1|2|0|0|00:00:00\n',
  ]);
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  const rows = await live.typedRows();
  assert.deepEqual(rows.map((r) => [r.i64, r.i32, r.txt, r.chr, r.flag]), [
    [1, 2, 'a|b', '"q"', true],
    [2, null, null, 'line\nbreak', null],
    [3, 4, '', 'back\\slash', false],
  ]);
});

test('delimited: the default null_value is (null)', async () => {
  await loadTyped({ type: 'delimited' }, ['1,(null),(null),,T,1,2,0,0,00:00:00\n']);
  const [row] = await live.typedRows();
  assert.deepEqual([row?.i32, row?.txt, row?.chr], [null, null, '']);
});

test('flexible: extra fields are dropped and missing ones are nulls; without it such records are rejected', async () => {
  const text = '1,2,a,b,T,1,2,0,0,00:00:00,extra,more\n2,3,c\n';
  const flex = await loadTyped({ flexible: true }, [text]);
  assert.deepEqual(flex.status.status, { code: 'OK' });
  const rows = await live.typedRows();
  assert.deepEqual(rows.map((r) => [r.i64, r.txt, r.t]), [[1, 'a', '00:00:00'], [2, 'c', null]]);
  const strict = await loadTyped({}, [text], { max_ignored_rows: 5 });
  assert.deepEqual(strict.status.status, { code: 'OK' });
  assert.equal(strict.status.ignored_row_count, '2');
  assert.deepEqual(strict.status.parsing_errors, [
    { chunk: 1, row: 1, reason: 'expected 10 fields, found 12 (set format.flexible to fill or drop columns)' },
    { chunk: 1, row: 2, reason: 'expected 10 fields, found 3 (set format.flexible to fill or drop columns)' },
  ]);
  assert.deepEqual(await live.typedRows(), []);
});

test('date_time: converted_to_epoch false with strptime formats; skip_second_fraction', async () => {
  const format = { date_time: { converted_to_epoch: false, date_format: '%d/%m/%Y', date_time_format: '%Y-%m-%dT%H:%M:%S', time_format: '%I:%M:%S %p' } };
  await loadTyped(format, ['1,0,,,,,,29/02/2024,2024-03-01T12:34:56.789,01:02:03.5 PM\n']);
  const [row] = await live.typedRows();
  assert.deepEqual([row?.day, row?.ts, row?.t], ['2024-02-29', '2024-03-01 12:34:56.789', '13:02:03.5']);
  await loadTyped({ date_time: { ...format.date_time, skip_second_fraction: true } }, ['1,0,,,,,,29/02/2024,2024-03-01T12:34:56.789,01:02:03.5 PM\n']);
  const [cut] = await live.typedRows();
  assert.deepEqual([cut?.ts, cut?.t], ['2024-03-01 12:34:56', '13:02:03']);
  const defaults = await loadTyped({ date_time: { converted_to_epoch: false } }, ['1,0,,,,,,20240131,20240131 08:09:10,11:12:13\n']);
  assert.deepEqual(defaults.status.status, { code: 'OK' });
  const [d] = await live.typedRows();
  assert.deepEqual([d?.day, d?.ts, d?.t], ['2024-01-31', '2024-01-31 08:09:10', '11:12:13']);
});

test('boolean: true_format/false_format, and bit values', async () => {
  await loadTyped({ boolean: { true_format: 'yes', false_format: 'no' } }, ['1,0,,,YES,,,,,\n2,0,,,no,,,,,\n']);
  assert.deepEqual((await live.typedRows()).map((r) => r.flag), [true, false]);
  await loadTyped({ boolean: { use_bit_values: true } }, ['1,0,,,0x1,,,,,\n2,0,,,0x0,,,,,\n3,0,,,\u0001,,,,,\n']);
  assert.deepEqual((await live.typedRows()).map((r) => r.flag), [true, false, true]);
});

test('rejected rows: parsing_errors with chunk, row and reason, bounded by max_reported_parsing_errors; the bad records file holds the raw records', async () => {
  const good = '1,2,ok,,T,1,2,0,0,00:00:00\n';
  const bad1 = '2,x,"multi\nline",,T,1,2,0,0,00:00:00';
  const bad2 = '3,2,a,,maybe,1,2,0,0,00:00:00';
  const bad3 = '4,2,a,,T,1,2,0,0,99:00:00';
  const bad4 = '5,99999999999,a,,T,1,2,0,0,00:00:00';
  const { cycleId, status } = await loadTyped({}, [`${good}${bad1}\n${bad2}\n`, `${bad3}\r\n${bad4}\n`], { max_ignored_rows: 4 }, { max_reported_parsing_errors: 3 });
  assert.deepEqual(status.status, { code: 'OK' });
  assert.equal(status.rows_written, '1');
  assert.equal(status.ignored_row_count, '4');
  assert.deepEqual(status.parsing_errors, [
    { chunk: 1, row: 2, reason: "column i32: 'x' is not a whole number (INT32)" },
    { chunk: 1, row: 4, reason: "column flag: 'maybe' is neither 'T' (true) nor 'F' (false) for BOOL" },
    { chunk: 2, row: 1, reason: "column t: '99:00:00' does not match the time_format '%H:%M:%S' (TIME)" },
  ]);
  const file = await s.badRecords(cycleId);
  assert.equal(file.status, 200);
  assert.match(file.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(file.text, `${bad1}\n${bad2}\n${bad3}\n${bad4}\n`);
  assert.deepEqual((await live.typedRows()).map((r) => r.i64), [1]);
});

test('malformed csv records (text after a closing quote, an enclosed field never closed) are bad records, not a failed parse', async () => {
  const { cycleId, status } = await loadTyped({}, ['1,2,"a"b,,T,1,2,0,0,00:00:00\n2,2,ok,,T,1,2,0,0,00:00:00\n3,2,"open,,T,1,2,0,0,00:00:00\n'], { max_ignored_rows: 2 });
  assert.deepEqual(status.status, { code: 'OK' });
  assert.equal(status.ignored_row_count, '2');
  assert.equal((await s.badRecords(cycleId)).text, '1,2,"a"b,,T,1,2,0,0,00:00:00\n3,2,"open,,T,1,2,0,0,00:00:00\n');
  assert.deepEqual((await live.typedRows()).map((r) => r.i64), [2]);
});

test('large values: a 3 MB text field and a UTF-8 multi-byte text survive the staged round trip', async () => {
  const big = 'x'.repeat(3 * 1024 * 1024);
  const { status } = await loadTyped({}, [`1,0,"${big}",é😀,,,,,,\n`]);
  assert.deepEqual(status.status, { code: 'OK' }, JSON.stringify(status));
  const [row] = await live.typedRows();
  assert.equal((row?.txt as string).length, big.length);
  assert.equal(row?.chr, 'é😀');
});
