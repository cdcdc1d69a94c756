/**
 * Query text written from a data source's columns (common/src/language/queryText.ts): the starter query
 * of New Query on This Data Source and the query of Preview Data. Each text is read back by the real
 * lexer and parser: the columns it names are exactly the columns it meant, with no diagnostic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ParseDiagnostic } from '../../common/src/language/ast';
import { tokenize } from '../../common/src/language/lexer';
import { parseDocument } from '../../common/src/language/parser';
import { columnText, datasourceLine, isWritableColumnName, previewQuery, starterQuery } from '../../common/src/language/queryText';
import type { Column } from '../../common/src/model';

const col = (name: string, kind: Column['kind'], dataType: Column['dataType'] = kind === 'MEASURE' ? 'INT64' : 'VARCHAR'): Column => ({ name, kind, dataType });

/** The column names the lexer reads in `text`, and its diagnostics. */
function readBack(text: string): { columns: string[]; diagnostics: ParseDiagnostic[] } {
  const diagnostics: ParseDiagnostic[] = [];
  const tokens = tokenize(text, diagnostics);
  return { columns: tokens.filter((t) => t.kind === 'column').map((t) => t.value), diagnostics };
}

test('the starter query is the @datasource line, then the first attribute and the first measure', () => {
  const columns = [col('delay', 'MEASURE'), col('origin', 'ATTRIBUTE'), col('distance', 'MEASURE'), col('destination', 'ATTRIBUTE')];
  const text = starterQuery({ id: 'g-1', name: 'Flights' }, columns);
  assert.equal(text, "@datasource 'Flights'\n[origin] [delay]");
  const doc = parseDocument(text);
  assert.deepEqual(doc.diagnostics, []);
  assert.equal(doc.queries.length, 1);
  assert.equal(doc.queries[0]!.dataSource, 'Flights');
});

test('the starter query has what the data source has: only attributes, only measures, nothing', () => {
  assert.equal(starterQuery({ id: 'g', name: 'T' }, [col('a', 'ATTRIBUTE'), col('b', 'ATTRIBUTE')]), "@datasource 'T'\n[a]");
  assert.equal(starterQuery({ id: 'g', name: 'T' }, [col('m', 'MEASURE')]), "@datasource 'T'\n[m]");
  assert.equal(starterQuery({ id: 'g', name: 'T' }, []), "@datasource 'T'\n");
});

test("a data source whose name holds a quote is named by its GUID (quoted text cannot hold quotes)", () => {
  assert.equal(datasourceLine("Bob's sales", '0a1b-2c'), "@datasource '0a1b-2c'");
  assert.equal(starterQuery({ id: '0a1b-2c', name: "Bob's sales" }, [col('x', 'ATTRIBUTE')]), "@datasource '0a1b-2c'\n[x]");
});

test("a column name with ' is written as it is; one with [ or ] is never written (it would break the query)", () => {
  assert.equal(columnText("driver's license"), "[driver's license]");
  assert.ok(!isWritableColumnName('a]b'));
  assert.ok(!isWritableColumnName('[x'));
  assert.ok(!isWritableColumnName('two\nlines'));
  assert.ok(!isWritableColumnName('  '));
  assert.throws(() => columnText('a]b'), /cannot contain \[, \]/);

  const columns = [col('a]b', 'ATTRIBUTE'), col("driver's license", 'ATTRIBUTE'), col('[x]', 'MEASURE'), col('fare', 'MEASURE')];
  const starter = starterQuery({ id: 'g', name: 'T' }, columns);
  assert.equal(starter, "@datasource 'T'\n[driver's license] [fare]");
  const back = readBack(starter.split('\n')[1]!);
  assert.deepEqual(back.columns, ["driver's license", 'fare']);
  assert.deepEqual(back.diagnostics, []);
});

test('the preview query names every writable column once, in catalog order, and reads back the same', () => {
  const columns = [col('origin', 'ATTRIBUTE'), col("it's", 'ATTRIBUTE'), col('odd]name', 'ATTRIBUTE'), col('delay', 'MEASURE'), col('date', 'ATTRIBUTE', 'DATE')];
  const { query, skipped } = previewQuery(columns);
  assert.equal(query, "[origin] [it's] [delay] [date]");
  assert.deepEqual(skipped, ['odd]name']);
  const back = readBack(query);
  assert.deepEqual(back.columns, ['origin', "it's", 'delay', 'date']);
  assert.deepEqual(back.diagnostics, []);
  assert.deepEqual(parseDocument(query).diagnostics, []);
});

test('a preview of a data source with no writable column says why', () => {
  assert.throws(() => previewQuery([]), /no columns/);
  assert.throws(() => previewQuery([col('[a]', 'ATTRIBUTE')]), /No column of this data source can be written/);
});
