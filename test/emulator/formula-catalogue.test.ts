// Every entry of the formula catalogue (common/src/formula/functions.ts FORMULA_FUNCTIONS: each function and
// operator of the formula reference) run on the demo's flights and airports, twice: as an answer's
// `answer.formulas` entry over the Flights Model (metadata/answer/data) and as a formula column of a model
// imported from it (searchdata), both compared with the answer hand-written DuckDB computes over the raw
// vega-datasets files (flights-3m.parquet, every 15th row, and airports.csv), never through the emulator's
// SQL. An entry without a case fails. Passthrough sql_* functions and the relevance scores (similar_to,
// similarity) are asserted refused with the documented reason (docs/service-notes.md §3.6).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parse } from 'yaml';
import { FORMULA_FUNCTIONS } from '../../common/src/formula/functions';
import { vegaDataDir } from '../../emulator/src/demo';
import { stableGuid } from '../../emulator/src/guid';
import { startCore, type Core } from './core-support';

const V2 = '/api/rest/2.0';
const MODEL = stableGuid('worksheet', 'Flights Model');
const SEA = "[Origin] = 'SEA'";

/**
 * One case: the formula, and what hand-written DuckDB over `raw` gives. `sql` is a full query, or an
 * expression: with `attr` the formula is an attribute, searched as `[F] [Delay] [Origin] = 'SEA'` (the
 * expression per group, with the total delay), else a measure (`column_type: MEASURE`), searched as
 * `[Origin State] [F]` (the expression is then the aggregate per origin state). `query` overrides the search
 * (`F` stands for the formula's column). `refused` is the error an entry the emulator does not run gives.
 */
interface Case { expr: string; sql?: string; attr?: boolean; query?: string; refused?: RegExp }

const at = (x: string): Case => ({ expr: x, attr: true });
const passthrough = /runs SQL on the data warehouse: the emulator does not run it/;
const relevance = /is not run by the emulator/;
/** The rows of a search by origin state and origin, a group function's value beside them (`g`: a query of key ostate and value v). */
const byStateAndOrigin = (g: string, where = ''): string => `WITH g AS (${g}) SELECT r.ostate, r.origin, g.v FROM (SELECT DISTINCT ostate, origin FROM raw ${where}) r LEFT JOIN g ON r.ostate IS NOT DISTINCT FROM g.ostate`;
const perState = (agg: string): string => byStateAndOrigin(`SELECT ostate, ${agg} AS v FROM raw GROUP BY ostate`);
const STATE_ORIGIN = '[Origin State] [Origin] [F]';
/** A week number counted from the period's first day, weeks from Monday (docs/service-notes.md §3.6), written apart from formulaSql.ts. */
const weekIn = (period: string): string => `(CAST(floor((extract(doy FROM dep) - extract(doy FROM date_trunc('${period}', dep)) + extract(isodow FROM date_trunc('${period}', dep)) - 1) / 7) AS INTEGER) + 1)`;
const t = (x: string): string => `CAST(${x} AS TIMESTAMP)`;

const CASES: Record<string, Case> = {
  // operators
  and: { ...at('[Delay] > 15 and [Distance] > 1000'), sql: 'delay > 15 AND distance > 1000' },
  or: { ...at('[Delay] > 15 or [Distance] > 1000'), sql: 'delay > 15 OR distance > 1000' },
  not: { ...at('not ( [Delay] > 15 )'), sql: 'NOT delay > 15' },
  if: { ...at("if ( [Delay] > 15 ) then 'late' else 'on time'"), sql: "CASE WHEN delay > 15 THEN 'late' ELSE 'on time' END" },
  ifnull: { ...at("ifnull ( [Destination State] , 'none' )"), sql: "coalesce(dstate, 'none')" },
  isnull: { ...at('isnull ( [Destination State] )'), query: '[F] [Delay]', sql: 'SELECT dstate IS NULL, sum(delay) FROM raw GROUP BY 1' },
  in: { ...at("[Destination State] in { 'CA' , 'OR' }"), sql: "dstate IN ('CA', 'OR')" },
  '+': { expr: '[Delay] + [Distance]', sql: 'sum(delay + distance)' },
  '-': { expr: '[Distance] - [Delay]', sql: 'sum(distance - delay)' },
  '*': { expr: '[Delay] * 2', sql: 'sum(delay * 2)' },
  '/': { expr: '[Distance] / [Delay]', sql: 'sum(CASE WHEN delay = 0 THEN NULL ELSE distance::DOUBLE / delay END)' },
  '^': { expr: '[Delay] ^ 2', sql: 'sum(delay::DOUBLE * delay)' },
  // aggregates
  average: { expr: 'average ( [Delay] )', sql: 'avg(delay)' },
  average_if: { expr: 'average_if ( [Distance] > 1000 , [Delay] )', sql: 'avg(delay) FILTER (WHERE distance > 1000)' },
  count: { expr: 'count ( [Delay] )', sql: 'count(delay)' },
  count_if: { expr: 'count_if ( [Delay] > 15 , [Delay] )', sql: 'count(delay) FILTER (WHERE delay > 15)' },
  cumulative_average: { expr: 'cumulative_average ( [Delay] , [Origin State] )', sql: 'SELECT ostate, sum(sum(delay)) OVER w / sum(count(delay)) OVER w FROM raw GROUP BY ostate WINDOW w AS (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)' },
  cumulative_max: { expr: 'cumulative_max ( [Delay] , [Origin State] )', sql: 'SELECT ostate, max(max(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM raw GROUP BY ostate' },
  cumulative_min: { expr: 'cumulative_min ( [Delay] , [Origin State] )', sql: 'SELECT ostate, min(min(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM raw GROUP BY ostate' },
  cumulative_sum: { expr: 'cumulative_sum ( [Delay] , [Origin State] )', sql: 'SELECT ostate, sum(sum(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM raw GROUP BY ostate' },
  group_aggregate: { expr: 'group_aggregate ( sum ( [Delay] ) , query_groups ( ) - { [Origin] } , { } )', query: `${STATE_ORIGIN} [Origin] != 'SEA'`, sql: byStateAndOrigin('SELECT ostate, sum(delay) AS v FROM raw GROUP BY ostate', "WHERE origin <> 'SEA'") },
  group_average: { expr: 'group_average ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('avg(delay)') },
  group_count: { expr: 'group_count ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('count(delay)') },
  group_max: { expr: 'group_max ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('max(delay)') },
  group_min: { expr: 'group_min ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('min(delay)') },
  group_stddev: { expr: 'group_stddev ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('stddev_samp(delay)') },
  group_sum: { expr: 'group_sum ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('sum(delay)') },
  group_unique_count: { expr: 'group_unique_count ( [Destination] , [Origin State] )', query: STATE_ORIGIN, sql: perState('count(DISTINCT destination)') },
  group_variance: { expr: 'group_variance ( [Delay] , [Origin State] )', query: STATE_ORIGIN, sql: perState('var_samp(delay)') },
  max: { expr: 'max ( [Delay] )', sql: 'max(delay)' },
  max_if: { expr: 'max_if ( [Distance] < 500 , [Delay] )', sql: 'max(delay) FILTER (WHERE distance < 500)' },
  median: { expr: 'median ( [Delay] )', sql: 'quantile_disc(delay, 0.5)' },
  min: { expr: 'min ( [Delay] )', sql: 'min(delay)' },
  min_if: { expr: 'min_if ( [Distance] > 1000 , [Delay] )', sql: 'min(delay) FILTER (WHERE distance > 1000)' },
  moving_average: { expr: 'moving_average ( [Delay] , 1 , 1 , [Origin State] )', sql: 'SELECT ostate, avg(avg(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM raw GROUP BY ostate' },
  moving_max: { expr: 'moving_max ( [Delay] , 1 , 2 , [Origin State] )', sql: 'SELECT ostate, max(max(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM raw GROUP BY ostate' },
  moving_min: { expr: 'moving_min ( [Delay] , 2 , 0 , [Origin State] )', sql: 'SELECT ostate, min(min(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM raw GROUP BY ostate' },
  moving_sum: { expr: 'moving_sum ( [Delay] , 1 , 1 , [Origin State] )', sql: 'SELECT ostate, sum(sum(delay)) OVER (ORDER BY ostate ASC NULLS LAST ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM raw GROUP BY ostate' },
  percentile: { expr: "percentile ( [Delay] , 90 , 'asc' )", sql: 'quantile_disc(delay, 0.9)' },
  rank: { expr: "rank ( sum ( [Delay] ) , 'desc' )", sql: 'SELECT ostate, rank() OVER (ORDER BY sum(delay) DESC NULLS LAST) FROM raw GROUP BY ostate' },
  rank_percentile: { expr: "rank_percentile ( sum ( [Delay] ) , 'asc' )", sql: 'SELECT ostate, 100 * percent_rank() OVER (ORDER BY sum(delay) ASC NULLS LAST) FROM raw GROUP BY ostate' },
  stddev: { expr: 'stddev ( [Delay] )', sql: 'stddev_samp(delay)' },
  stddev_if: { expr: 'stddev_if ( [Delay] > 10 , [Delay] / 10.0 )', sql: 'stddev_samp(delay / 10.0) FILTER (WHERE delay > 10)' },
  sum: { expr: 'sum ( [Delay] )', sql: 'sum(delay)' },
  sum_if: { expr: "sum_if ( [Destination State] = 'CA' , [Delay] )", sql: "sum(delay) FILTER (WHERE dstate = 'CA')" },
  'unique count': { expr: 'unique count ( [Destination] )', sql: 'count(DISTINCT destination)' },
  unique_count_if: { expr: 'unique_count_if ( [Delay] > 60 , [Destination] )', sql: 'count(DISTINCT destination) FILTER (WHERE delay > 60)' },
  variance: { expr: 'variance ( [Delay] )', sql: 'var_samp(delay)' },
  variance_if: { expr: 'variance_if ( [Delay] > 10 , [Delay] / 10.0 )', sql: 'var_samp(delay / 10.0) FILTER (WHERE delay > 10)' },
  // query_groups () + {…} at a finer grain than the search's, re-aggregated by sum; query_filters () - {column}
  query_groups: { expr: 'group_aggregate ( sum ( [Delay] ) , query_groups ( ) + { [Destination State] } , query_filters ( ) )', query: "[Origin State] [F] [Distance] > 1000", sql: "SELECT ostate, sum(v) FROM (SELECT ostate, dstate, sum(delay) AS v FROM raw WHERE distance > 1000 GROUP BY ostate, dstate) GROUP BY ostate" },
  query_filters: { expr: 'group_aggregate ( count ( [Delay] ) , { [Origin State] } , query_filters ( ) - { [Distance] } )', query: "[Origin State] [F] [Distance] > 1000 [Delay] > 0", sql: 'WITH g AS (SELECT ostate, count(delay) AS v FROM raw WHERE delay > 0 GROUP BY ostate) SELECT r.ostate, g.v FROM (SELECT DISTINCT ostate FROM raw WHERE distance > 1000 AND delay > 0) r LEFT JOIN g ON r.ostate IS NOT DISTINCT FROM g.ostate' },
  // conversion
  to_bool: { ...at('to_bool ( [Delay] )'), sql: 'delay <> 0' },
  to_date: { ...at("to_date ( to_string ( [Departure] , '%Y-%m-%d' ) , '%Y-%m-%d' )"), sql: 'epoch(CAST(dep AS DATE))' },
  to_double: { expr: 'to_double ( [Delay] )', sql: 'sum(delay::DOUBLE)' },
  to_integer: { expr: 'to_integer ( [Distance] / 7 )', sql: 'sum(trunc(distance / 7.0))' },
  to_string: { ...at('to_string ( [Delay] )'), sql: 'delay::VARCHAR' },
  // date
  add_days: { ...at('add_days ( [Departure] , 30 )'), sql: `epoch(dep + INTERVAL '30 days')` },
  add_minutes: { ...at('add_minutes ( [Departure] , 30 )'), sql: `epoch(dep + INTERVAL '30 minutes')` },
  add_months: { ...at('add_months ( [Departure] , 5 )'), sql: `epoch(dep + INTERVAL '5 months')` },
  add_seconds: { ...at('add_seconds ( [Departure] , 5 )'), sql: `epoch(dep + INTERVAL '5 seconds')` },
  add_weeks: { ...at('add_weeks ( [Departure] , 2 )'), sql: `epoch(dep + INTERVAL '14 days')` },
  add_years: { ...at('add_years ( [Departure] , 5 )'), sql: `epoch(dep + INTERVAL '5 years')` },
  date: { ...at('date ( [Departure] )'), sql: 'epoch(CAST(dep AS DATE))' },
  day: { ...at('day ( [Departure] )'), sql: 'extract(day FROM dep)' },
  day_number_of_quarter: { ...at('day_number_of_quarter ( [Departure] )'), sql: "CAST(dep AS DATE) - CAST(date_trunc('quarter', dep) AS DATE) + 1" },
  day_number_of_week: { ...at('day_number_of_week ( [Departure] )'), sql: 'extract(isodow FROM dep)' },
  day_number_of_year: { ...at('day_number_of_year ( [Departure] )'), sql: 'extract(doy FROM dep)' },
  day_of_week: { ...at('day_of_week ( [Departure] )'), sql: "strftime(dep, '%A')" },
  diff_days: { expr: 'diff_days ( [Departure] , 01/01/2001 )', sql: "sum(CAST(dep AS DATE) - DATE '2001-01-01')" },
  diff_hours: { expr: 'diff_hours ( [Departure] , 01/01/2001 )', sql: "sum(date_diff('hour', TIMESTAMP '2001-01-01', dep))" },
  diff_minutes: { expr: 'diff_minutes ( [Departure] , 01/01/2001 )', sql: "sum(date_diff('minute', TIMESTAMP '2001-01-01', dep))" },
  diff_months: { expr: 'diff_months ( [Departure] , 12/25/2000 )', sql: 'sum((year(dep) - 2000) * 12 + month(dep) - 12)' },
  diff_quarters: { expr: 'diff_quarters ( [Departure] , 12/25/2000 )', sql: 'sum((year(dep) - 2000) * 4 + quarter(dep) - 4)' },
  diff_time: { expr: 'diff_time ( [Departure] , 01/01/2001 )', sql: "sum(epoch(dep) - epoch(TIMESTAMP '2001-01-01'))" },
  diff_weeks: { expr: 'diff_weeks ( [Departure] , 01/01/2001 )', sql: "sum((CAST(dep AS DATE) - (extract(isodow FROM dep) - 1)::INTEGER - DATE '2001-01-01') // 7)" },
  diff_years: { expr: 'diff_years ( [Departure] , 12/25/2000 )', sql: 'sum(year(dep) - 2000)' },
  hour_of_day: { ...at('hour_of_day ( [Departure] )'), sql: 'extract(hour FROM dep)' },
  is_weekend: { ...at('is_weekend ( [Departure] )'), sql: "strftime(dep, '%a') IN ('Sat', 'Sun')" },
  month: { ...at('month ( [Departure] )'), sql: "strftime(dep, '%B')" },
  month_number: { ...at('month_number ( [Departure] )'), sql: 'extract(month FROM dep)' },
  month_number_of_quarter: { ...at('month_number_of_quarter ( [Departure] )'), sql: 'month(dep) - 3 * (quarter(dep) - 1)' },
  now: { ...at('now ( ) > [Departure]'), sql: 'TRUE' },
  quarter_number: { ...at('quarter_number ( [Departure] )'), sql: 'extract(quarter FROM dep)' },
  start_of_month: { ...at('start_of_month ( [Departure] )'), sql: `epoch(make_date(year(dep), month(dep), 1))` },
  start_of_quarter: { ...at('start_of_quarter ( [Departure] )'), sql: `epoch(make_date(year(dep), 3 * quarter(dep) - 2, 1))` },
  start_of_week: { ...at('start_of_week ( [Departure] )'), sql: '(epoch(CAST(dep AS DATE) - (extract(isodow FROM dep) - 1)::INTEGER))' },
  start_of_year: { ...at('start_of_year ( [Departure] )'), sql: 'epoch(make_date(year(dep), 1, 1))' },
  start_of_hour: { ...at('start_of_hour ( [Departure] )'), sql: `epoch(${t('CAST(dep AS DATE)')} + to_hours(hour(dep)))` },
  start_of_min: { ...at('start_of_min ( [Departure] )'), sql: `epoch(${t('CAST(dep AS DATE)')} + to_minutes(hour(dep) * 60 + minute(dep)))` },
  time: { ...at('time ( [Departure] )'), sql: "strftime(dep, '%H:%M:%S')" },
  today: { ...at('today ( ) > [Departure]'), sql: 'TRUE' },
  week_number_of_month: { ...at('week_number_of_month ( [Departure] )'), sql: weekIn('month') },
  week_number_of_quarter: { ...at('week_number_of_quarter ( [Departure] )'), sql: weekIn('quarter') },
  week_number_of_year: { ...at('week_number_of_year ( [Departure] )'), sql: weekIn('year') },
  year: { ...at('year ( [Departure] )'), sql: 'extract(year FROM dep)' },
  year_name: { ...at('year_name ( [Departure] )'), sql: "strftime(dep, '%Y')" },
  // mixed
  '=': { ...at('[Delay] = 0'), sql: 'delay = 0' },
  '!=': { ...at("[Destination State] != 'CA'"), sql: "dstate <> 'CA'" },
  '<': { ...at('[Delay] < 0'), sql: 'delay < 0' },
  '<=': { ...at('[Delay] <= 0'), sql: 'delay <= 0' },
  '>': { ...at('[Delay] > 30'), sql: 'delay > 30' },
  '>=': { ...at('[Delay] >= 30'), sql: 'delay >= 30' },
  greatest: { expr: 'greatest ( [Delay] , 0 )', sql: 'sum(CASE WHEN delay > 0 THEN delay ELSE 0 END)' },
  least: { expr: 'least ( [Delay] , 0 )', sql: 'sum(CASE WHEN delay < 0 THEN delay ELSE 0 END)' },
  // number (angles in degrees)
  abs: { expr: 'abs ( [Delay] )', sql: 'sum(abs(delay))' },
  acos: { expr: 'acos ( [Delay] / 10000 )', sql: 'sum(acos(delay / 10000.0) * 180 / pi())' },
  asin: { expr: 'asin ( [Delay] / 10000 )', sql: 'sum(asin(delay / 10000.0) * 180 / pi())' },
  atan: { expr: 'atan ( [Delay] )', sql: 'sum(atan(delay) * 180 / pi())' },
  atan2: { expr: 'atan2 ( [Delay] , [Distance] )', sql: 'sum(atan2(delay, distance) * 180 / pi())' },
  cbrt: { expr: 'cbrt ( [Distance] )', sql: 'sum(pow(distance, 1 / 3.0))' },
  ceil: { expr: 'ceil ( [Distance] / 7 )', sql: 'sum(ceiling(distance / 7.0))' },
  cos: { expr: 'cos ( [Delay] )', sql: 'sum(cos(delay * pi() / 180))' },
  cube: { expr: 'cube ( [Delay] )', sql: 'sum(delay::DOUBLE * delay * delay)' },
  exp: { expr: 'exp ( [Delay] / 100 )', sql: 'sum(pow(exp(1), delay / 100.0))' },
  exp2: { expr: 'exp2 ( [Delay] / 100 )', sql: 'sum(pow(2, delay / 100.0))' },
  floor: { expr: 'floor ( [Distance] / 7 )', sql: 'sum(floor(distance / 7.0))' },
  ln: { expr: 'ln ( [Distance] )', sql: 'sum(log(distance) / log(exp(1)))' },
  log10: { expr: 'log10 ( [Distance] )', sql: 'sum(log(distance) / log(10))' },
  log2: { expr: 'log2 ( [Distance] )', sql: 'sum(log(distance) / log(2))' },
  mod: { expr: 'mod ( [Distance] , 7 )', sql: 'sum(distance - 7 * (distance // 7))' },
  pow: { expr: 'pow ( [Delay] , 2 )', sql: 'sum(delay::DOUBLE * delay)' },
  random: { ...at('random ( ) < 1 and random ( ) >= 0'), sql: 'TRUE' },
  round: { expr: 'round ( [Distance] , 10 )', sql: 'sum(10 * round(distance / 10.0))' },
  safe_divide: { expr: 'safe_divide ( [Distance] , [Delay] )', sql: 'sum(CASE WHEN delay = 0 THEN 0 ELSE distance::DOUBLE / delay END)' },
  sign: { expr: 'sign ( [Delay] )', sql: 'sum(CASE WHEN delay > 0 THEN 1 WHEN delay < 0 THEN -1 ELSE 0 END)' },
  sin: { expr: 'sin ( [Delay] )', sql: 'sum(sin(delay * pi() / 180))' },
  spherical_distance: { expr: 'spherical_distance ( 47.45 , -122.31 , [Delay] / 10 , -100 )', sql: 'sum(6371 * acos(least(1, sin(radians(47.45)) * sin(radians(delay / 10.0)) + cos(radians(47.45)) * cos(radians(delay / 10.0)) * cos(radians(-100 + 122.31)))))' },
  sq: { expr: 'sq ( [Delay] )', sql: 'sum(delay::DOUBLE * delay)' },
  sqrt: { expr: 'sqrt ( [Distance] )', sql: 'sum(pow(distance, 0.5))' },
  tan: { expr: 'tan ( [Delay] / 1000 )', sql: 'sum(tan(delay / 1000.0 * pi() / 180))' },
  // text
  concat: { ...at("concat ( [Origin] , '-' , [Destination] )"), sql: "origin || '-' || destination" },
  contains: { ...at("contains ( [Destination City] , 'San' )"), sql: "position('San' IN dcity) > 0" },
  edit_distance: { expr: 'edit_distance ( [Origin] , [Destination] )', sql: 'sum(levenshtein(origin, destination))' },
  edit_distance_with_cap: { expr: 'edit_distance_with_cap ( [Origin City] , [Destination City] , 5 )', sql: 'sum(CASE WHEN levenshtein(ocity, dcity) > 5 THEN 6 ELSE levenshtein(ocity, dcity) END)' },
  left: { ...at('left ( [Destination City] , 3 )'), sql: 'substring(dcity, 1, 3)' },
  right: { ...at('right ( [Destination City] , 3 )'), sql: 'substring(dcity, length(dcity) - 2)' },
  similar_to: { expr: "similar_to ( [Destination City] , 'San' )", refused: relevance },
  similarity: { expr: "similarity ( [Destination City] , 'San' )", refused: relevance },
  sounds_like: { ...at("sounds_like ( [Destination City] , 'Sand Hosay' )"), sql: 'TS:soundex' },
  spells_like: { ...at("spells_like ( [Destination City] , 'San Franciso' )"), sql: 'TS:spells' },
  strlen: { expr: 'strlen ( [Destination City] )', sql: 'sum(length(dcity))' },
  strpos: { expr: "strpos ( [Destination City] , 'a' )", sql: "sum(instr(dcity, 'a') - 1)" },
  substr: { ...at('substr ( [Destination City] , 1 , 3 )'), sql: 'substring(dcity, 2, 3)' },
};
for (const f of FORMULA_FUNCTIONS.filter((x) => x.category === 'passthrough')) CASES[f.name] = { expr: `${f.name} ( "abs ({0})" , [Delay] )`, refused: passthrough };

/** American Soundex (letters only), written apart from the emulator's SQL. */
function soundex(s: string): string {
  const w = s.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return '';
  const code = (c: string): string => ['aeiouy', 'bfpv', 'cgjkqsxz', 'dt', 'l', 'mn', 'r'].findIndex((g) => g.includes(c)).toString().replace('-1', '');
  let out = w[0]!.toUpperCase();
  let last = code(w[0]!);
  for (const c of w.slice(1)) {
    const d = code(c);
    if (d === '') continue; // h, w: no code, and no separation
    if (d !== last && d !== '0') out += d;
    last = d;
  }
  return (out + '000').slice(0, 4);
}

/** Damerau–Levenshtein distance (optimal string alignment), written apart. */
function swapsAndEdits(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

let core: Core;
let token = '';
let raw: DuckDBInstance;
let conn: DuckDBConnection;
/** Each catalogue entry's formula column name (`F<index>`), by entry name. */
const names = new Map(FORMULA_FUNCTIONS.map((f, i) => [f.name, `F${i}`]));
/** The imported answers by entry name, and the catalogue model's GUID. */
const answers = new Map<string, string>();
const answerErrors = new Map<string, string>();
let catalogueModel = '';

async function v2(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** Imports TML objects (as JSON) in one call, creating new objects, taking what can be: each object's `response` (`status`, `header`). */
async function importNew(objects: unknown[]): Promise<{ status: { status_code: string; error_message?: string }; header: { id_guid: string } }[]> {
  const r = await v2('/metadata/tml/import', { metadata_tmls: objects.map((o) => JSON.stringify(o)), import_policy: 'PARTIAL', create_new: true });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { response: { status: { status_code: string; error_message?: string }; header: { id_guid: string } } }[]).map((x) => x.response);
}

const formulaOf = (name: string, c: Case) => ({ id: `formula_${names.get(name)}`, name: names.get(name)!, expr: c.expr, properties: { column_type: c.attr || c.refused ? 'ATTRIBUTE' : 'MEASURE' } });
const queryOf = (name: string, c: Case): string => (c.query ?? (c.attr ? `[F] [Delay] ${SEA}` : '[Origin State] [F]')).replace('[F]', `[${names.get(name)}]`);

before(async () => {
  core = await startCore();
  const auth = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await auth.json()) as { token: string }).token;
  raw = await DuckDBInstance.create(':memory:');
  conn = await raw.connect();
  const f = (n: string): string => `'${join(vegaDataDir(), n).replace(/'/g, "''")}'`;
  const airports = `read_csv(${f('airports.csv')}, header = true, all_varchar = true)`;
  await conn.run(`CREATE TABLE raw AS SELECT CAST(x."date" AS TIMESTAMP) AS dep, CAST(x.delay AS INTEGER) AS delay, CAST(x.distance AS INTEGER) AS distance, x.origin, x.destination, o.city AS ocity, o.state AS ostate, d.city AS dcity, d.state AS dstate
    FROM (SELECT * FROM read_parquet(${f('flights-3m.parquet')}, file_row_number = true) WHERE file_row_number % 15 = 0) x LEFT JOIN ${airports} o ON x.origin = o.iata LEFT JOIN ${airports} d ON x.destination = d.iata`);
  // each entry's formula: in an answer of its own over the Flights Model (imported in one call), and as a column of one model
  const entries = Object.entries(CASES);
  const formulas = entries.map(([name, c]) => formulaOf(name, c));
  const imported = await importNew(entries.map(([name, c], i) => ({ guid: null, answer: { name: `Catalogue ${names.get(name)}`, tables: [{ id: 'Flights Model', name: 'Flights Model' }], formulas: [formulas[i]], search_query: queryOf(name, c) } })));
  entries.forEach(([name], i) => {
    const r = imported[i]!;
    if (r.status.status_code === 'OK') answers.set(name, r.header.id_guid);
    else answerErrors.set(name, r.status.error_message ?? '');
  });
  const exported = await v2('/metadata/tml/export', { metadata: [{ identifier: MODEL }], edoc_format: 'YAML' });
  const w = parse(exported.body[0].edoc).worksheet as { name: string; formulas: unknown[]; worksheet_columns: unknown[] } & Record<string, unknown>;
  const columnsKey = Object.keys(w).find((k) => /columns$/.test(k) && Array.isArray(w[k]))!;
  const model = { worksheet: { ...w, name: 'Catalogue Model', formulas: [...w.formulas, ...formulas], [columnsKey]: [...(w[columnsKey] as unknown[]), ...entries.map(([name]) => ({ name: names.get(name), formula_id: `formula_${names.get(name)}` }))] } };
  const [m] = await importNew([model]);
  assert.equal(m!.status.status_code, 'OK', JSON.stringify(m));
  catalogueModel = m!.header.id_guid;
});
after(async () => {
  conn?.closeSync();
  raw?.closeSync();
  await core?.stop();
});

/** Rows as compared: bigints as numbers, other objects as text, numbers to 6 significant digits; sorted by their JSON. */
function normal(rows: unknown[][]): string[] {
  const v = (x: unknown): unknown => {
    if (typeof x === 'bigint') return Number(x);
    if (typeof x === 'number') return Number.isInteger(x) ? x : Number(x.toPrecision(6));
    if (x !== null && typeof x === 'object') return String(x);
    return x;
  };
  return rows.map((r) => JSON.stringify(r.map((x) => { const n = v(x); return typeof n === 'number' && !Number.isInteger(n) ? Number(n.toPrecision(6)) : n; }))).sort();
}

/** What hand-written DuckDB (or TypeScript, for the sound and spelling of words) gives for a case over the raw files. */
async function expected(c: Case): Promise<unknown[][]> {
  const sql = c.sql!;
  if (sql.startsWith('TS:')) {
    const rows = (await conn.runAndReadAll("SELECT dcity, delay FROM raw WHERE origin = 'SEA'")).getRows() as [string | null, number | null][];
    const other = /'([^']+)' \)$/.exec(c.expr)![1]!;
    const alike = (city: string): boolean => (sql === 'TS:soundex' ? soundex(city) === soundex(other) : swapsAndEdits(city.toLowerCase(), other.toLowerCase()) <= Math.max(1, Math.floor(Math.max(city.length, other.length) / 5)));
    const groups = new Map<string, number | null>();
    for (const [city, delay] of rows) {
      const k = JSON.stringify(city === null ? null : alike(city));
      const s = groups.get(k) ?? null;
      groups.set(k, delay === null ? s : (s ?? 0) + delay);
    }
    return [...groups].map(([k, s]) => [JSON.parse(k), s]);
  }
  const full = /^(SELECT|WITH) /.test(sql) ? sql : c.attr ? `SELECT ${sql} AS k, sum(delay) FROM raw WHERE origin = 'SEA' GROUP BY k` : `SELECT ostate, ${sql} FROM raw GROUP BY ostate`;
  return (await conn.runAndReadAll(full)).getRows() as unknown[][];
}

test('every entry of the catalogue has a case, and every case an entry', () => {
  assert.deepEqual(FORMULA_FUNCTIONS.map((f) => f.name).filter((n) => !(n in CASES)), []);
  assert.deepEqual(Object.keys(CASES).filter((n) => !names.has(n)), []);
});

describe('each function and operator, as an answer formula and as a model formula column, against hand-written DuckDB', () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(`${name}: ${c.expr}`, async () => {
      const search = await v2('/searchdata', { query_string: queryOf(name, c), logical_table_identifier: catalogueModel, record_size: -1 });
      if (c.refused) {
        assert.match(answerErrors.get(name) ?? 'imported', c.refused);
        assert.equal(search.status, 400, JSON.stringify(search.body));
        assert.match(JSON.stringify(search.body), c.refused);
        return;
      }
      assert.ok(answers.has(name), answerErrors.get(name));
      const want = normal(await expected(c));
      assert.ok(want.length > 0, 'the case has rows to compare');
      const data = await v2('/metadata/answer/data', { metadata_identifier: answers.get(name), record_size: -1 });
      for (const [what, r] of [['the answer formula', data], ['the model formula column', search]] as const) {
        assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
        assert.deepEqual(normal(r.body.contents[0].data_rows), want, what);
      }
    });
  }
});
