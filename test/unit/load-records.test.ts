import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { RecordSplitter, splitRecords, type RecordFormat, type RawRecord } from '../../emulator/src/load/records';

const CSV: RecordFormat = { type: 'csv', fieldSeparator: ',', enclosingCharacter: '"', escapeCharacter: '', nullValue: '(null)', trailingFieldSeparator: false };
const DELIMITED: RecordFormat = { type: 'delimited', fieldSeparator: '|', enclosingCharacter: '"', escapeCharacter: '\\', nullValue: '(null)', trailingFieldSeparator: false };

/** Splits `text` fed in pieces of `size` characters. */
function splitInPieces(text: string, format: RecordFormat, size: number): RawRecord[] {
  const out: RawRecord[] = [];
  const s = new RecordSplitter(format, (r) => out.push(r));
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
  s.end();
  return out;
}

test('csv: enclosed fields keep separators, doubled enclosing characters and line breaks', () => {
  const rs = splitRecords('1,"a,b","say ""hi""\nthere"\n2,x,y\n', CSV);
  assert.deepEqual(rs.map((r) => r.fields), [['1', 'a,b', 'say "hi"\nthere'], ['2', 'x', 'y']]);
  assert.equal(rs[0]?.raw, '1,"a,b","say ""hi""\nthere"');
  assert.deepEqual(rs.map((r) => r.line), [1, 3]);
});

test('csv: an unenclosed empty field is null, an enclosed empty field is the empty string', () => {
  assert.deepEqual(splitRecords('a,,""\n', CSV)[0]?.fields, ['a', null, '']);
});

test('csv: CRLF line ends, a byte-order mark, blank lines and a last record without a line break', () => {
  const rs = splitRecords('\uFEFFa,b\r\n\r\n\nc,d', CSV);
  assert.deepEqual(rs.map((r) => r.fields), [['a', 'b'], ['c', 'd']]);
  assert.deepEqual(rs.map((r) => r.line), [1, 4]);
  assert.equal(rs[0]?.raw, 'a,b');
});

test('csv: a custom enclosing character and separator; no enclosing character at all', () => {
  assert.deepEqual(splitRecords("'a;b';c\n", { ...CSV, fieldSeparator: ';', enclosingCharacter: "'" })[0]?.fields, ['a;b', 'c']);
  assert.deepEqual(splitRecords('"a,b"\n', { ...CSV, enclosingCharacter: '' })[0]?.fields, ['"a', 'b"']);
});

test('csv: an enclosed field never closed, and text after a closing enclosing character, are errors with the raw text', () => {
  const rs = splitRecords('1,ok\n2,"abc"x,3\n3,"open\n4,z\n', CSV);
  assert.equal(rs.length, 3);
  assert.equal(rs[0]?.error, undefined);
  assert.match(rs[1]?.error ?? '', /closing enclosing character/);
  assert.equal(rs[1]?.raw, '2,"abc"x,3');
  assert.match(rs[2]?.error ?? '', /not closed/);
  assert.equal(rs[2]?.raw, '3,"open\n4,z\n');
});

test('trailing field separator is dropped', () => {
  assert.deepEqual(splitRecords('a,b,\nc,d,\n', { ...CSV, trailingFieldSeparator: true }).map((r) => r.fields), [['a', 'b'], ['c', 'd']]);
  assert.deepEqual(splitRecords('a|b|\n', { ...DELIMITED, trailingFieldSeparator: true })[0]?.fields, ['a', 'b']);
});

test('delimited: the escape character makes the separator, a line break and itself literal', () => {
  const rs = splitRecords('a\\|b|c\\\\|d\\\ne|f\n', DELIMITED);
  assert.deepEqual(rs.map((r) => r.fields), [['a|b', 'c\\', 'd\ne', 'f']]);
  assert.equal(rs[0]?.raw, 'a\\|b|c\\\\|d\\\ne|f');
});

test('delimited: null_value is null, enclosing characters are plain text', () => {
  assert.deepEqual(splitRecords('(null)|"x"||NULL\n', DELIMITED)[0]?.fields, [null, '"x"', '', 'NULL']);
  assert.deepEqual(splitRecords('|x\n', { ...DELIMITED, nullValue: '' })[0]?.fields, [null, 'x']);
});

test('records split the same whatever the piece size', () => {
  const text = '1,"a\r\nb",""\r\n2,,"x""y"\n\n3,"",z\r\n4,"q"';
  const whole = splitRecords(text, CSV);
  for (let size = 1; size <= 7; size++) assert.deepEqual(splitInPieces(text, CSV, size), whole, `piece size ${size}`);
  const dtext = 'a\\|b|c\\\r\nd|e\r\nf|\\\\\ng';
  const dwhole = splitRecords(dtext, DELIMITED);
  for (let size = 1; size <= 5; size++) assert.deepEqual(splitInPieces(dtext, DELIMITED, size), dwhole, `piece size ${size}`);
});

test('property: csv-stringify output splits back into the same fields (any pieces)', () => {
  const field = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r', ' ', 'é', ';') , maxLength: 6 }).filter((s) => s !== '');
  fc.assert(
    fc.property(fc.array(fc.array(field, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 9 }), (rows, size) => {
      const text = stringify(rows, { quoted_match: /[\r\n]/ });
      const got = splitInPieces(text, CSV, size);
      assert.deepEqual(got.map((r) => r.fields), rows);
    }),
    { numRuns: 300 },
  );
});

test('csv: a quote inside an unquoted field is data, and does not open an enclosed field', () => {
  const rs = splitRecords('1,12" pizza\n2,"first\n7,tail"\n3,x"y\n', CSV);
  assert.deepEqual(rs.map((r) => r.fields), [['1', '12" pizza'], ['2', 'first\n7,tail'], ['3', 'x"y']]);
  assert.ok(rs.every((r) => r.error === undefined));
});

test('CR-only line ends and mixed line ends end records; a CR inside an enclosed field is data', () => {
  const text = 'a,b\r1,"x\ry"\r\n2,c\n\r3,d\r';
  for (let size = 1; size <= 6; size++) {
    const rs = splitInPieces(text, CSV, size);
    assert.deepEqual(rs.map((r) => r.fields), [['a', 'b'], ['1', 'x\ry'], ['2', 'c'], ['3', 'd']], `piece size ${size}`);
    assert.deepEqual(rs.map((r) => r.line), [1, 2, 4, 6]);
  }
});

test('delimited: an escaped CRLF is one escaped line break, also when split between pieces', () => {
  for (let size = 1; size <= 4; size++) {
    const rs = splitInPieces('1|first\\\r\nsecond\r\n2|x\r\n', { ...DELIMITED, fieldSeparator: '|' }, size);
    assert.deepEqual(rs.map((r) => r.fields), [['1', 'first\r\nsecond'], ['2', 'x']], `piece size ${size}`);
  }
});

test('bytes that are not UTF-8 make their record a bad record naming the byte and its offset; the others load', () => {
  const bytes = Buffer.concat([Buffer.from('1,café\n2,caf'), Buffer.from([0xe9]), Buffer.from('\n3,ok\n4,'), Buffer.from([0xc3]), Buffer.from('\n')]);
  for (let size = 1; size <= 5; size++) {
    const out: RawRecord[] = [];
    const s = new RecordSplitter(CSV, (r) => out.push(r));
    for (let i = 0; i < bytes.length; i += size) s.pushBytes(bytes.subarray(i, i + size));
    s.end();
    assert.deepEqual(out.map((r) => r.fields[0]), ['1', '2', '3', '4'], `piece size ${size}`);
    assert.equal(out[0]?.fields[1], 'café');
    assert.equal(out[0]?.error, undefined);
    assert.match(out[1]?.error ?? '', /byte 0xE9 at byte offset 13 .*not valid UTF-8/);
    assert.equal(out[2]?.error, undefined);
    assert.match(out[3]?.error ?? '', /byte 0xC3 at byte offset 22 /);
  }
});

test('delimited: an escaped line break at the very end of the data is data, not the record\'s line break', () => {
  assert.deepEqual(splitRecords('1|a\\\n', DELIMITED)[0]?.fields, ['1', 'a\n']);
  assert.deepEqual(splitRecords('1|a\r', DELIMITED)[0]?.fields, ['1', 'a']);
});
