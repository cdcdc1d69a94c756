// Pure parts of the searchdata compiler: relative date ranges at a pinned clock (docs/service-notes.md §2.5, 2.6),
// date values, and SQL built from a hand-made AST (values bound, identifiers quoted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clause, ColumnRef } from '../../common/src/language/ast';
import type { LogicalColumn } from '../../emulator/src/metadataStore';
import { compileSearch, parseDateValue, QueryError, relativeRange } from '../../emulator/src/searchdata/compile';

const now = new Date('2024-05-15T10:30:00Z'); // a Wednesday
const iso = (r: [Date, Date]) => r.map((d) => d.toISOString().slice(0, 16));

test('relative date ranges', () => {
  assert.deepEqual(iso(relativeRange({ type: 'today' }, now)), ['2024-05-15T00:00', '2024-05-16T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'yesterday' }, now)), ['2024-05-14T00:00', '2024-05-15T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'period', which: 'this', n: 1, unit: 'week' }, now)), ['2024-05-13T00:00', '2024-05-20T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'period', which: 'last', n: 1, unit: 'quarter' }, now)), ['2024-01-01T00:00', '2024-04-01T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'period', which: 'last', n: 2, unit: 'year' }, now)), ['2022-01-01T00:00', '2024-01-01T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'period', which: 'next', n: 3, unit: 'day' }, now)), ['2024-05-16T00:00', '2024-05-19T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'period', which: 'last', n: 30, unit: 'minute' }, now)), ['2024-05-15T10:00', '2024-05-15T10:30']);
  assert.deepEqual(iso(relativeRange({ type: 'ago', n: 2, unit: 'month' }, now)), ['2024-03-01T00:00', '2024-04-01T00:00']);
  assert.deepEqual(iso(relativeRange({ type: 'toDate', unit: 'month' }, now)), ['2024-05-01T00:00', '2024-05-16T00:00']);
  assert.throws(() => relativeRange({ type: 'period', which: 'last', n: 2, unit: 'day', forEach: 'month' }, now), QueryError);
});

test('date values', () => {
  assert.deepEqual(parseDateValue('2024-02-29'), { ts: '2024-02-29 00:00:00', hasTime: false });
  assert.deepEqual(parseDateValue('12/31/2023 23:59'), { ts: '2023-12-31 23:59:00', hasTime: true });
  assert.deepEqual(parseDateValue('2024-01-02T03:04:05Z'), { ts: '2024-01-02 03:04:05', hasTime: true });
  for (const bad of ['2023-02-29', '13/01/2024', 'yesterday', '2024-01-01 25:00', '']) assert.equal(parseDateValue(bad), undefined, bad);
});

const col = (name: string, dataType: LogicalColumn['dataType'], kind: LogicalColumn['kind'] = 'ATTRIBUTE'): LogicalColumn => ({ id: name, name, dataType, kind, aggregation: kind === 'MEASURE' ? 'SUM' : 'NONE', synonyms: [], physicalName: `phys "${name}"` });
const span = { start: 0, end: 0 };
const ref = (name: string): ColumnRef => ({ kind: 'column', name, closed: true, ...span });

test('a hand-built AST compiles to SQL with quoted identifiers and bound values', () => {
  const clauses: Clause[] = [
    { kind: 'column', column: ref('Region'), ...span },
    { kind: 'column', column: ref('amount'), ...span },
    { kind: 'filter', column: ref('region'), operator: '=', operatorStart: 0, operatorEnd: 0, values: [{ kind: 'text', value: "x'); DROP TABLE t; --", terminated: true, ...span }], ...span },
  ];
  const c = compileSearch({ clauses, columns: [col('Region', 'VARCHAR'), col('amount', 'DOUBLE', 'MEASURE')], table: '"d.s"."t"', now });
  assert.deepEqual(c.columnNames, ['Region', 'Total amount']);
  assert.deepEqual(c.params, ["x'); DROP TABLE t; --"]);
  assert.ok(!c.sql.includes('DROP'));
  assert.match(c.sql, /"phys ""Region"""/);
  assert.match(c.sql, /lower\("phys ""Region"""\) IN \(lower\(\?\)\)/);
});

test('keywords without a structured form are refused by name', () => {
  const clauses: Clause[] = [{ kind: 'column', column: ref('Region'), ...span }, { kind: 'keyword', keyword: 'near', ...span }];
  assert.throws(() => compileSearch({ clauses, columns: [col('Region', 'VARCHAR')], table: 't', now }), /"near"/);
});
