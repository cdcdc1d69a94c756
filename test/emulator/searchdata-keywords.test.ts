// The keywords of the reference the emulator now executes (issue: bare tokens or a 400 before), each
// answer compared with rows computed apart from compile.ts: plain DuckDB SQL over the demo's flights
// table, written from the keyword reference's wording. The clock is pinned at 2001-06-15T12:00:00Z
// (core-support.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { parseQuery } from '../../common/src/language/parser';
import { DATE_BUCKETS, bucketAppliesTo } from '../../common/src/language/keywords';
import type { LogicalColumn } from '../../emulator/src/metadataStore';
import { compileSearch, QueryError } from '../../emulator/src/searchdata/compile';
import { adminCore } from './core-support';

const T = '"demo.engine_default_schema"."flights"';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

const core = adminCore();

const answer = (query: string) => core.answer(query, FLIGHTS);

test('a date keyword after a measure filters the data source\'s date column (last_n_days.adoc: visitors last 7 days)', async () => {
  const a = await answer('[delay] last 7 days');
  const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-06-08' AND date < TIMESTAMP '2001-06-15'`);
  assert.deepEqual(a.data, [[want]]);
  const byOrigin = await answer('[delay] 2 months ago by [origin]');
  const rows = await core.sql(`SELECT origin, sum(delay) FROM ${T} WHERE date >= TIMESTAMP '2001-04-01' AND date < TIMESTAMP '2001-05-01' GROUP BY origin ORDER BY origin`);
  assert.deepEqual(byOrigin.data, rows);
});

test('named days, months, month and year, a bare year (day_name.adoc, january.adoc, month_year_name.adoc)', async () => {
  const cases: [string, string][] = [
    ['[delay] [date] monday', 'dayofweek(date) = 1'],
    ['[delay] march', 'month(date) = 3'],
    ['[delay] february 2001', 'month(date) = 2 AND year(date) = 2001'],
    ['[delay] 2001', 'year(date) = 2001'],
  ];
  for (const [q, where] of cases) {
    const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE ${where}`);
    assert.deepEqual((await answer(q)).data, [[want]], q);
  }
});

test('by <unit> groups the data source\'s date column; period functions are date parts (list-date.adoc, list-period.adoc)', async () => {
  const weeks = await core.sql(`SELECT epoch(date_trunc('week', date)), sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer('[delay] by week')).data, weeks);
  const moq = await core.sql(`SELECT (month(date) + 2) % 3 + 1, sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer('month of quarter ([date]) [delay]')).data, moq);
  const doq = await core.sql(`SELECT CAST(date AS DATE) - CAST(date_trunc('quarter', date) AS DATE) + 1 AS d, sum(delay) FROM ${T} GROUP BY 1 ORDER BY 1`);
  assert.deepEqual((await answer("[delay] [date].'day of quarter'")).data, doq);
});

test('last n days for each month keeps the last n days of every month (last_n_days_for_each_month.adoc)', async () => {
  const [[want]] = await core.sql(`SELECT sum(delay) FROM ${T} WHERE CAST(date AS DATE) > last_day(date) - 2`);
  assert.deepEqual((await answer('[delay] [date] last 2 days for each month')).data, [[want]]);
});

test('the Search data API page\'s example lists no column: the measure it compares is shown, the attribute it filters is not', async () => {
  const a = await answer("[distance] > 1000 [origin] = 'SEA'");
  assert.deepEqual(a.columnNames, ['Total distance']);
  assert.deepEqual(a.data, await core.sql(`SELECT sum(distance) FROM ${T} WHERE distance > 1000 AND lower(origin) = 'sea'`));
});

test('a bucket on a TIME, DATE or DATE_TIME column: the emulator refuses exactly what the catalogue says does not apply', async () => {
  await core.sql('CREATE TABLE times (n INTEGER, t TIME, d DATE, dt TIMESTAMP)');
  await core.sql("INSERT INTO times VALUES (1, TIME '08:15:00', DATE '2001-02-03', TIMESTAMP '2001-02-03 08:15:00'), (2, TIME '08:45:00', DATE '2001-05-06', TIMESTAMP '2001-05-06 09:05:00'), (4, TIME '17:00:00', DATE '2001-05-07', TIMESTAMP '2001-05-07 17:00:00')");
  const col = (name: string, dataType: LogicalColumn['dataType'], kind: LogicalColumn['kind'] = 'ATTRIBUTE'): LogicalColumn => ({ id: name, name, dataType, kind, aggregation: kind === 'MEASURE' ? 'SUM' : 'NONE', synonyms: [], physicalName: name });
  const columns = [col('n', 'INT32', 'MEASURE'), col('t', 'TIME'), col('d', 'DATE'), col('dt', 'DATE_TIME')];
  const run = async (query: string) => {
    const compiled = compileSearch({ clauses: parseQuery(query).query!.clauses, columns, table: 'times', now: new Date('2001-06-15T12:00:00Z') });
    return core.sql(compiled.sql, compiled.params as (string | number)[]);
  };
  for (const [name, type] of [['t', 'TIME'], ['d', 'DATE'], ['dt', 'DATE_TIME']] as const) {
    for (const b of DATE_BUCKETS) {
      const query = `[n] [${name}].'${b}'`;
      if (bucketAppliesTo(b, type)) await run(query);
      else assert.throws(() => compileSearch({ clauses: parseQuery(query).query!.clauses, columns, table: 'times', now: new Date() }), QueryError, query);
    }
  }
  // [t].hourly on TIME: the hour of each time (the issue: the language service passed it, the emulator refused it).
  assert.deepEqual(await run('[n] [t].hourly'), [['08:00:00', 3], ['17:00:00', 4]]);
  assert.deepEqual(await run("[n] [t].'hour of day'"), [[8, 3], [17, 4]]);
});
