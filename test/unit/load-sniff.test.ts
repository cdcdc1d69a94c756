import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sniffCsv, detectEncoding, parseRows } from '../../common/src/load/sniff';
import { formatSummary, parseSavedDefinition, parseTargetText, previewRows, targetText, fromSaved, toSaved } from '../../common/src/load/definition';
import { fullFormat, strptimeRegExp, valueCheck } from '../../common/src/load/values';

/** vega-datasets' data folder (real CSV files). */
const DATA = join(dirname(require.resolve('vega-datasets')), '..', 'data');
const real = (name: string, bytes = 64 * 1024) => readFileSync(join(DATA, name)).subarray(0, bytes);
const FIXTURES = join(__dirname, '..', 'fixtures', 'e2e-workspace');

test('real files: separator, header and date formats of vega-datasets CSV and TSV files', () => {
  const cases: [string, string, string[] | undefined, Partial<{ date: string; dateTime: string }>][] = [
    ['stocks.csv', ',', ['symbol', 'date', 'price'], { date: '%b %d %Y' }],
    ['seattle-weather.csv', ',', ['date', 'precipitation', 'temp_max', 'temp_min', 'wind', 'weather'], { date: '%Y-%m-%d' }],
    ['github.csv', ',', ['time', 'count'], { dateTime: '%Y/%m/%d %H:%M:%S' }],
    ['seattle-weather-hourly-normals.csv', ',', ['date', 'pressure', 'temperature', 'wind'], { dateTime: '%Y-%m-%dT%H:%M:%S' }],
    ['unemployment.tsv', '\t', ['id', 'rate'], {}],
    ['airports.csv', ',', ['iata', 'name', 'city', 'state', 'country', 'latitude', 'longitude'], {}],
  ];
  for (const [name, sep, header, dates] of cases) {
    const r = sniffCsv(real(name), { fileName: name });
    assert.equal(r.encoding, 'utf-8', name);
    assert.equal(r.format.field_separator, sep, name);
    assert.equal(r.format.has_header_row, true, name);
    assert.deepEqual(r.header, header, name);
    if (dates.date) assert.equal(r.format.date_time.date_format, dates.date, name);
    if (dates.dateTime) assert.equal(r.format.date_time.date_time_format, dates.dateTime, name);
    if (dates.date || dates.dateTime) assert.equal(r.format.date_time.converted_to_epoch, false, `${name}: formatted dates keep converted_to_epoch off`);
    assert.ok(r.rows.length > 0 && r.rows.every((row) => row.length === header!.length), name);
  }
});

test('a file without a header row, with semicolons, is told apart from one with a header', () => {
  const text = readFileSync(join(DATA, 'seattle-weather.csv'), 'utf8').split('\n').slice(1, 200).join('\n').replace(/,/g, ';');
  const r = sniffCsv(Buffer.from(text), { complete: true });
  assert.equal(r.format.field_separator, ';');
  assert.equal(r.format.has_header_row, false);
  assert.equal(r.rows[0][0], '2012-01-01');
});

test('the target columns decide a header of text columns, booleans and epoch dates', () => {
  const csv = 'name,flag,day\nalpha,yes,1577836800\nbeta,no,1577923200\n';
  const target = [
    { name: 'name', dataType: 'VARCHAR' as const },
    { name: 'flag', dataType: 'BOOL' as const },
    { name: 'day', dataType: 'DATE' as const },
  ];
  const r = sniffCsv(Buffer.from(csv), { complete: true, targetColumns: target });
  assert.equal(r.format.has_header_row, true);
  assert.deepEqual([r.format.boolean.true_format, r.format.boolean.false_format], ['yes', 'no']);
  assert.equal(r.format.date_time.converted_to_epoch, true);
  const noHeader = sniffCsv(Buffer.from('alpha,yes,1\nbeta,no,2\n'), { complete: true, targetColumns: target });
  assert.equal(noHeader.format.has_header_row, false);
});

test('encodings and byte-order marks: UTF-8 with BOM, Windows-1252, UTF-16 refused', () => {
  const utf8 = Buffer.from('name,city\nJosé,Köln\nZoë,Malmö\n');
  const bom = sniffCsv(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), { complete: true });
  assert.equal(bom.encoding, 'utf-8');
  assert.equal(bom.bom, true);
  assert.deepEqual(bom.header, ['name', 'city'], 'the BOM is not part of the first name');
  // the same text in Windows-1252 (é = 0xE9, ö = 0xF6, ë = 0xEB), longer so that chardet sees enough
  const latin = Buffer.from(Array.from({ length: 40 }, () => 'José,Köln\nZoë,Malmö\nRenée,Zürich\n').join(''), 'latin1');
  const l = sniffCsv(Buffer.concat([Buffer.from('name,city\n'), latin]), { complete: true });
  assert.notEqual(l.encoding, 'utf-8');
  assert.ok(['windows-1252', 'iso-8859-2', 'iso-8859-15'].includes(l.encoding) || /^windows-125|^iso-8859/.test(l.encoding), l.encoding);
  assert.equal(l.rows[0][0], 'José');
  assert.equal(detectEncoding(Buffer.from([0xff, 0xfe, 0x61, 0x00])).encoding, 'utf-16le');
  const u16 = sniffCsv(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00]));
  assert.ok(u16.notes.some((n) => /save the file as UTF-8/.test(n)));
});

test('a null marker with nothing enclosed makes the delimited format; a trailing separator is found', () => {
  const r = sniffCsv(Buffer.from('1|\\N|x|\n2|b|\\N|\n3|c|y|\n'), { complete: true });
  assert.equal(r.format.field_separator, '|');
  assert.equal(r.format.type, 'delimited');
  assert.equal(r.format.null_value, '\\N');
  assert.equal(r.format.trailing_field_separator, true);
  assert.deepEqual(r.rows[0], ['1', null, 'x']);
});

test('a sample cut inside a quoted field leaves the cut record out of the preview', () => {
  const text = 'id,note\n1,"a\nb"\n2,"cut here';
  const r = sniffCsv(Buffer.from(text), { complete: false });
  assert.deepEqual(r.rows, [['1', 'a\nb']]);
});

test('the fixtures of the end-to-end test sniff as the demo stocks table expects', () => {
  const target = [
    { name: 'symbol', dataType: 'VARCHAR' as const },
    { name: 'date', dataType: 'DATE' as const },
    { name: 'price', dataType: 'DOUBLE' as const },
  ];
  const good = sniffCsv(readFileSync(join(FIXTURES, 'stocks-e2e.csv')), { complete: true, targetColumns: target });
  assert.equal(good.format.date_time.date_format, '%Y-%m-%d');
  assert.equal(good.format.date_time.converted_to_epoch, false);
  const p = previewRows(good.rows, good.header, target, good.format);
  assert.equal(p.badRows, 0);
  const bad = sniffCsv(readFileSync(join(FIXTURES, 'stocks-bad.csv')), { complete: true, targetColumns: target });
  const pb = previewRows(bad.rows, bad.header, target, bad.format);
  assert.equal(pb.badRows, 3, JSON.stringify(pb.rows.filter((r) => r.problems.length)));
  assert.match(pb.columnCount ?? '', /3 or 4 fields/);
  assert.deepEqual(pb.rows.filter((r) => r.problems.length).map((r) => r.record), [3, 6, 9]);
});

test('preview: flexible accepts extra and missing fields; types that will not parse are named', () => {
  const cols = [
    { name: 'id', dataType: 'INT32' as const },
    { name: 'ok', dataType: 'BOOL' as const },
  ];
  const rows = [['1', 'T'], ['2', 'maybe'], ['3', 'F', 'extra'], ['99999999999', 'T']];
  const strict = previewRows(rows, undefined, cols, { has_header_row: false });
  assert.deepEqual(strict.rows.map((r) => r.problems.length > 0), [false, true, true, true]);
  assert.match(strict.rows[1].problems[0], /neither "T" nor "F"/);
  assert.match(strict.rows[3].problems[0], /out of the range of INT32/);
  const flex = previewRows(rows, undefined, cols, { flexible: true });
  assert.deepEqual(flex.rows.map((r) => r.problems.length > 0), [false, true, false, true]);
  assert.match(flex.columnCount ?? '', /flexible is on/);
});

test('targets typed as database.schema.table, quoted parts, and refusals', () => {
  assert.deepEqual(parseTargetText('demo.engine_default_schema.flights'), { database: 'demo', schema: 'engine_default_schema', table: 'flights' });
  assert.deepEqual(parseTargetText('demo.flights'), { database: 'demo', table: 'flights' });
  assert.deepEqual(parseTargetText('"my.db"."s".t'), { database: 'my.db', schema: 's', table: 't' });
  for (const bad of ['', 'flights', 'a.b.c.d', 'a..b', 'a.b.']) assert.equal(parseTargetText(bad), undefined, bad);
  assert.equal(targetText({ database: 'my.db', schema: 's', table: 't' }), '"my.db".s.t');
});

test('saved definitions: round trip with encoding; clear errors for malformed files', () => {
  const def = { target: { database: 'demo', table: 'stocks' }, format: { field_separator: ';', has_header_row: true }, load_options: { empty_target: true, max_ignored_rows: 3 } };
  const saved = parseSavedDefinition(JSON.stringify({ $schema: 'x', ...toSaved(def, 'windows-1252') }));
  assert.deepEqual(fromSaved(saved), { definition: def, encoding: 'windows-1252' });
  assert.throws(() => parseSavedDefinition('{'), /not valid JSON/);
  assert.throws(() => parseSavedDefinition('{"format":{}}'), /target.database and target.table/);
  assert.throws(() => parseSavedDefinition('{"target":{"database":"d","table":"t"},"format":{"field_separator":";;"}}'), /one character/);
  assert.throws(() => parseSavedDefinition('{"target":{"database":"d","table":"t"},"load_options":{"max_ignored_rows":-1}}'), /whole number/);
  assert.throws(() => parseSavedDefinition('{"target":{"database":"d","table":"t"},"encoding":"klingon"}'), /not an encoding/);
});

test('strptime patterns and value checks follow the seed formats', () => {
  assert.ok(strptimeRegExp('%Y-%m-%d %H:%M:%S').test('2020-02-29 23:59:59.123'));
  assert.ok(!strptimeRegExp('%Y-%m-%d').test('2020-13-01'));
  assert.ok(strptimeRegExp('%b %d %Y').test('Jan 1 2000'));
  assert.throws(() => strptimeRegExp('%Q'), /%Q/);
  const f = fullFormat({ date_time: { converted_to_epoch: false, date_format: '%d.%m.%Y' } });
  assert.equal(valueCheck('DATE', f)('31.12.2020'), undefined);
  assert.match(valueCheck('DATE', f)('2020-12-31') ?? '', /does not match/);
  assert.equal(valueCheck('DATE', fullFormat({}))('20200131'), undefined, '%Y%m%d text dates by default (docs/service-interface.md §2.2)');
  assert.match(valueCheck('DATE', fullFormat({}))('1577836800') ?? '', /does not match %Y%m%d/, 'epoch seconds only with converted_to_epoch');
  assert.equal(valueCheck('DATE', fullFormat({ date_time: { converted_to_epoch: true } }))('1577836800'), undefined);
  assert.equal(valueCheck('DOUBLE', f)('-1.5e3'), undefined);
  assert.equal(valueCheck('INT64', f)(null), undefined);
  assert.match(formatSummary({ field_separator: '\t', has_header_row: true }), /separator tab · enclosed by " · header row/);
  assert.deepEqual(parseRows('a,"",\n', fullFormat({})), [['a', '', null]]);
});

test('one byte that is not UTF-8 in a UTF-8 sample does not switch the file to windows-1252 silently: UTF-8 with a warning naming it', () => {
  const utf8 = Buffer.from('name,city\ncafé,Zürich\nnaïve,Köln\nbroken,');
  const sample = Buffer.concat([utf8, Buffer.from([0xe9]), Buffer.from('\n')]);
  const r = sniffCsv(sample, { complete: true });
  assert.equal(r.encoding, 'utf-8');
  assert.match(r.encodingReason, /UTF-8 \(4 multi-byte characters\) with 1 byte/);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0]!, /byte 0xE9 at offset 44.*bad records/);
  assert.ok(r.notes.some((n) => n.startsWith('encoding utf-8: ')));
});

test('a sample of legacy bytes only is read in the guessed encoding, with the reason and a warning; valid UTF-8 says so', () => {
  const latin = Buffer.from('name,city\ncaf\xe9,Z\xfcrich\nna\xefve,K\xf6ln\n', 'latin1');
  const r = detectEncoding(latin, true);
  assert.notEqual(r.encoding, 'utf-8');
  assert.match(r.reason, /4 bytes of the sample are not UTF-8 \(first: byte 0xE9 at offset 13\)/);
  assert.match(r.warning ?? '', /not UTF-8.*read as/);
  assert.deepEqual(detectEncoding(Buffer.from('a,b\n'), true), { encoding: 'utf-8', bom: false, reason: 'the sample is plain ASCII, read as UTF-8' });
  // a multi-byte character cut by the end of an incomplete sample is not a bad byte
  const cut = Buffer.from('a,é').subarray(0, 3);
  assert.equal(detectEncoding(cut, false).warning, undefined);
});

test('the preview splits records as the service does: a stray quote is data, CR-only line ends end records', () => {
  const f = fullFormat({});
  assert.deepEqual(parseRows('1,12" pizza\r2,"a\rb"\r', f), [['1', '12" pizza'], ['2', 'a\rb']]);
});
