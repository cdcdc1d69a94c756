import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileStrptime, makeConverter, Rejection, type ConvertOptions } from '../../emulator/src/load/convert';
import { InvalidLoadDefinition, parseLoadDefinition } from '../../emulator/src/load/definition';

const OPTS: ConvertOptions = {
  type: 'csv',
  convertedToEpoch: false,
  dateTimeFormat: '%Y%m%d %H:%M:%S',
  dateFormat: '%Y%m%d',
  timeFormat: '%H:%M:%S',
  skipSecondFraction: false,
  useBitValues: false,
  trueFormat: 'T',
  falseFormat: 'F',
};

function ok(v: ReturnType<ReturnType<typeof makeConverter>>): string | null {
  assert.ok(!(v instanceof Rejection), `expected a value, got ${JSON.stringify(v)}`);
  return v;
}
function bad(v: ReturnType<ReturnType<typeof makeConverter>>): string {
  assert.ok(v instanceof Rejection, `expected a rejection, got ${JSON.stringify(v)}`);
  return v.reason;
}

test('integers: sign, blanks, ranges of INT32 and INT64; empty is null', () => {
  const i32 = makeConverter('INT32', OPTS);
  const i64 = makeConverter('INT64', OPTS);
  assert.equal(ok(i32(' -42 ')), '-42');
  assert.equal(ok(i32('+7')), '7');
  assert.equal(ok(i32('')), null);
  assert.equal(ok(i32(null)), null);
  assert.equal(ok(i32('2147483647')), '2147483647');
  assert.match(bad(i32('2147483648')), /out of the range of INT32/);
  assert.match(bad(i32('1.5')), /not a whole number/);
  assert.equal(ok(i64('9223372036854775807')), '9223372036854775807');
  assert.match(bad(i64('9223372036854775808')), /out of the range of INT64/);
  assert.match(bad(i64('12abc')), /not a whole number/);
});

test('floating point numbers, exponents, inf and nan', () => {
  const d = makeConverter('DOUBLE', OPTS);
  assert.equal(ok(d('1.5e3')), '1.5e3');
  assert.equal(ok(d('.5')), '.5');
  assert.equal(ok(d('-Infinity')), '-inf');
  assert.match(bad(d('1,5')), /not a number/);
  assert.match(bad(d('1e400')), /out of the range of DOUBLE/);
  assert.match(bad(makeConverter('FLOAT', OPTS)('1e39')), /out of the range of FLOAT/);
  assert.equal(ok(makeConverter('FLOAT', OPTS)('3e38')), '3e38');
});

test('booleans through true_format/false_format (case-insensitive) and through bit values (csv only)', () => {
  const b = makeConverter('BOOL', { ...OPTS, trueFormat: 'yes', falseFormat: 'no' });
  assert.equal(ok(b('YES')), 'true');
  assert.equal(ok(b('no')), 'false');
  assert.match(bad(b('T')), /neither 'yes' \(true\) nor 'no' \(false\)/);
  const bits = makeConverter('BOOL', { ...OPTS, useBitValues: true });
  assert.equal(ok(bits('0x1')), 'true');
  assert.equal(ok(bits('0x0')), 'false');
  assert.equal(ok(bits('\u0001')), 'true');
  assert.equal(ok(bits('0')), 'false');
  assert.match(bad(bits('T')), /bit value/);
  const delimitedBits = makeConverter('BOOL', { ...OPTS, type: 'delimited', useBitValues: true });
  assert.equal(ok(delimitedBits('T')), 'true', 'use_bit_values is valid for csv only');
});

test('dates and date-times with the default strptime formats', () => {
  assert.equal(ok(makeConverter('DATE', OPTS)('20240229')), '2024-02-29');
  assert.match(bad(makeConverter('DATE', OPTS)('20230229')), /does not match the date_format '%Y%m%d'/);
  assert.equal(ok(makeConverter('DATE_TIME', OPTS)('20240131 23:59:58')), '2024-01-31 23:59:58');
  assert.equal(ok(makeConverter('TIME', OPTS)('07:08:09')), '07:08:09');
  assert.match(bad(makeConverter('TIME', OPTS)('25:00:00')), /time_format/);
});

test('second fractions are kept, or dropped with skip_second_fraction', () => {
  const dt = makeConverter('DATE_TIME', { ...OPTS, dateTimeFormat: '%Y-%m-%d %H:%M:%S' });
  assert.equal(ok(dt('2024-01-02 03:04:05.123456789')), '2024-01-02 03:04:05.123456');
  assert.equal(ok(dt('2024-01-02 03:04:05.5')), '2024-01-02 03:04:05.500000');
  const skip = makeConverter('DATE_TIME', { ...OPTS, dateTimeFormat: '%Y-%m-%d %H:%M:%S', skipSecondFraction: true });
  assert.equal(ok(skip('2024-01-02 03:04:05.123')), '2024-01-02 03:04:05');
  assert.equal(ok(makeConverter('TIME', { ...OPTS, skipSecondFraction: true })('01:02:03.9')), '01:02:03');
  assert.equal(ok(makeConverter('TIME', OPTS)('01:02:03.9')), '01:02:03.900000');
});

test('converted_to_epoch reads DATE and DATE_TIME as epoch seconds (UTC)', () => {
  const o = { ...OPTS, convertedToEpoch: true };
  assert.equal(ok(makeConverter('DATE', o)('86400')), '1970-01-02');
  assert.equal(ok(makeConverter('DATE_TIME', o)('1700000000')), '2023-11-14 22:13:20');
  assert.equal(ok(makeConverter('DATE_TIME', o)('1700000000.25')), '2023-11-14 22:13:20.250000');
  assert.equal(ok(makeConverter('DATE_TIME', { ...o, skipSecondFraction: true })('1700000000.25')), '2023-11-14 22:13:20');
  assert.match(bad(makeConverter('DATE', o)('2024-01-01')), /epoch value/);
  assert.equal(ok(makeConverter('TIME', o)('01:02:03')), '01:02:03', 'TIME is not an epoch type');
});

test('strptime directives: names, 12-hour clock, day of year, offsets, composites', () => {
  const p = (f: string, s: string) => compileStrptime(f)(s);
  const b = p('%d %b %Y', '5 Mar 2021');
  assert.deepEqual([b?.year, b?.month, b?.day], [2021, 3, 5]);
  assert.equal(p('%B %d, %Y', 'December 25, 2020')?.month, 12);
  const pm = p('%m/%d/%Y %I:%M %p', '01/02/2020 01:30 PM');
  assert.equal(pm?.hour, 13);
  assert.equal(p('%I %p', '12 AM')?.hour, 0);
  const j = p('%Y-%j', '2024-060');
  assert.deepEqual([j?.month, j?.day], [2, 29]);
  assert.equal(p('%F %T%z', '2024-01-01 10:00:00+02:00')?.offsetMinutes, 120);
  assert.equal(p('%D', '12/31/99')?.year, 1999);
  assert.equal(p('%y', '05')?.year, 2005);
  assert.equal(p('%Y%m%d', '20240103x'), undefined, 'the whole text must match');
  assert.equal(p('%Y%m%d', '2024-01-03'), undefined);
  assert.throws(() => compileStrptime('%Q'), /unknown strptime directive %Q/);
  const off = makeConverter('DATE_TIME', { ...OPTS, dateTimeFormat: '%Y-%m-%dT%H:%M:%S%z' });
  assert.equal(ok(off('2024-01-01T10:00:00+02:00')), '2024-01-01 08:00:00');
});

test('load definition: defaults of docs/service-interface.md §2.2 for a minimal nested body', () => {
  const d = parseLoadDefinition({ target: { database: 'db', table: 't' } });
  assert.deepEqual(d.target, { database: 'db', table: 't' });
  assert.equal(d.format.type, 'csv');
  assert.equal(d.format.fieldSeparator, ',');
  assert.equal(d.format.enclosingCharacter, '"');
  assert.equal(d.format.escapeCharacter, '');
  assert.equal(d.format.nullValue, '(null)');
  assert.equal(d.format.hasHeaderRow, false);
  assert.equal(d.format.flexible, false);
  assert.equal(d.format.convertedToEpoch, false, 'text dates unless the definition says they are epoch values (docs/service-interface.md §2.2)');
  assert.equal(d.format.dateTimeFormat, '%Y%m%d %H:%M:%S');
  assert.equal(d.format.dateFormat, '%Y%m%d');
  assert.equal(d.format.timeFormat, '%H:%M:%S');
  assert.equal(d.format.trueFormat, 'T');
  assert.equal(d.format.falseFormat, 'F');
  assert.equal(d.loadOptions.emptyTarget, false);
  assert.equal(d.loadOptions.maxIgnoredRows, 0);
  assert.equal(d.advancedOptions.maxReportedParsingErrors, 100);
});

test('load definition: the flat form and upper-case format types; form values as text', () => {
  const d = parseLoadDefinition({ target_database: 'db', target_schema: 's', target_table: 't', field_separator: '|', empty_target: 'true', format: { type: 'DELIMITED' } });
  assert.deepEqual(d.target, { database: 'db', schema: 's', table: 't' });
  assert.equal(d.format.fieldSeparator, '|');
  assert.equal(d.format.type, 'delimited');
  assert.equal(d.loadOptions.emptyTarget, true);
});

test('load definition: invalid bodies are refused with the member named', () => {
  const cases: [unknown, RegExp][] = [
    ['text', /JSON object/],
    [{}, /target.database is required/],
    [{ target: { database: 'd' } }, /target.table is required/],
    [{ target: { database: 'd', table: 't' }, format: { type: 'parquet' } }, /csv or delimited/],
    [{ target: { database: 'd', table: 't' }, format: { field_separator: '||' } }, /field_separator/],
    [{ target: { database: 'd', table: 't' }, format: { has_header_row: 'maybe' } }, /has_header_row must be true or false/],
    [{ target: { database: 'd', table: 't' }, load_options: { max_ignored_rows: 'x' } }, /max_ignored_rows must be an integer/],
    [{ target: { database: 'd', table: 't' }, load_options: { max_ignored_rows: -3 } }, /max_ignored_rows must be an integer of 0 or more/],
    [{ target: { database: 'd', table: 't' }, format: { date_time: { date_format: '%Y%Q' } } }, /date_format: unknown strptime directive/],
    [{ target: { database: 'd', table: 't' }, format: { enclosing_character: ',' } }, /must differ/],
    [{ target: 'db.t' }, /target must be an object/],
  ];
  for (const [body, re] of cases) assert.throws(() => parseLoadDefinition(body), (e: unknown) => e instanceof InvalidLoadDefinition && re.test(e.detail), JSON.stringify(body));
});
