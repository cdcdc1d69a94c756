// A CSV field as an input table's update takes it (common/src/load/inputValues.ts): dates and times read
// by the load definition's strptime formats or as epoch seconds and written ISO, booleans by its words,
// null fields as '', and a field that does not fit refused with why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inputValueConverter } from '../../common/src/load/inputValues';
import { fullFormat } from '../../common/src/load/values';

const value = (r: { value: string } | { problem: string }): string => ('value' in r ? r.value : `problem: ${r.problem}`);

test('dates and times by the strptime formats, written ISO', () => {
  const f = fullFormat({ type: 'CSV', date_time: { converted_to_epoch: false, date_format: '%d.%m.%Y', date_time_format: '%m/%d/%Y %I:%M %p', time_format: '%H:%M' } });
  assert.equal(value(inputValueConverter('DATE', f)('01.07.2001')), '2001-07-01');
  assert.equal(value(inputValueConverter('DATE_TIME', f)('07/01/2001 02:05 PM')), '2001-07-01 14:05:00');
  assert.equal(value(inputValueConverter('DATE_TIME', f)('07/01/2001 12:30 AM')), '2001-07-01 00:30:00');
  assert.equal(value(inputValueConverter('TIME', f)('9:07')), '09:07:00');
  assert.match(value(inputValueConverter('DATE', f)('31.02.2001')), /^problem: .*not a valid DATE/);
  assert.match(value(inputValueConverter('DATE', f)('2001-07-01')), /^problem: .*does not match %d\.%m\.%Y/);
  const months = fullFormat({ type: 'CSV', date_time: { converted_to_epoch: false, date_format: '%b %d %Y' } });
  assert.equal(value(inputValueConverter('DATE', months)('Jul 4 2001')), '2001-07-04');
});

test('epoch seconds (converted_to_epoch) as ISO dates in UTC', () => {
  const f = fullFormat({ type: 'CSV', date_time: { converted_to_epoch: true } });
  assert.equal(value(inputValueConverter('DATE', f)('993945600')), '2001-07-01');
  assert.equal(value(inputValueConverter('DATE_TIME', f)('993945661')), '2001-07-01 00:01:01');
});

test('booleans by the format\'s words or bit values; numbers trimmed; null fields empty; text kept', () => {
  const f = fullFormat({ type: 'CSV', boolean: { true_format: 'yes', false_format: 'no' } });
  assert.equal(value(inputValueConverter('BOOL', f)('YES')), 'true');
  assert.equal(value(inputValueConverter('BOOL', f)('no')), 'false');
  assert.match(value(inputValueConverter('BOOL', f)('maybe')), /^problem: /);
  const bits = fullFormat({ type: 'CSV', boolean: { use_bit_values: true } });
  assert.equal(value(inputValueConverter('BOOL', bits)('1')), 'true');
  assert.equal(value(inputValueConverter('INT64', f)(' 42 ')), '42');
  assert.match(value(inputValueConverter('INT32', f)('1.5')), /not an integer/);
  assert.equal(value(inputValueConverter('DOUBLE', f)(null)), '');
  assert.equal(value(inputValueConverter('VARCHAR', f)(' a b ')), ' a b ');
});
