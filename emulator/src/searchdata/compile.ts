/**
 * Compiles a parsed search query (common/src/language/ast.ts) over one data source to DuckDB SQL
 * (docs/service-interface.md §4.3, §8; docs/service-notes.md §1.2, §2).
 * - Attributes and bucketed dates group; measures are aggregated (default SUM); output in that order.
 * - Filters add no columns: plain ones are WHERE, aggregated ones HAVING. Names, keywords and text values
 *   match case-insensitively (§8.2); several `begins with`/`ends with` on one column are OR-ed.
 * - Order: attributes ascending unless `sort by`, `top N`/`bottom N` say otherwise. Relative dates: the
 *   pinned clock in UTC, weeks from Monday, `last N` whole units before the current one. Date values:
 *   `'YYYY-MM-DD'`, with a time, `'MM/DD/YYYY'`, or a year.
 * - `near`/`farther than` filter by distance (geo.ts), `in` by a subsearch, `vs` stacks its sides. Dates
 *   as epoch seconds; values bound, identifiers quoted; a keyword not run (`month-over-month`) is a QueryError.
 */
import type { Aggregation, Clause, ColumnRef, DateBucket, DateUnit, FilterOperator, RelativeDate, Value } from '../../../common/src/language/ast';
import { isFamily, type ColumnDataType } from '../../../common/src/model';
import type { DefaultAggr, LogicalColumn } from '../metadataStore';
import { isNumeric, quoteIdent } from '../engine';
import { formulaSql, type GroupCall, type GroupListItem } from './formulaSql';
import { NEAR_DEFAULT, geoColumnsOf, locationConditionSql, toKm } from './geo';
import {
  calendarNumberSql, calendarOrdinalColumn, calendarOrdinalSql, calendarOrdinalsSelect, calendarPeriodEndSql, calendarPeriodStartSql, calendarShiftedStartSql, DEMO_CALENDARS, findCalendar, knownCalendarNames,
  type CalendarPeriod, type CustomCalendar,
} from '../customCalendar';
import {
  CALENDAR_TYPES, DATE_UNITS, FISCAL_CALENDAR_NAME, GROWTH_DEFAULT_BUCKET, PERIOD_OVER_PERIOD, periodOverPeriodBucketError, type GrowthPeriod, type PeriodOverPeriod, isCustomCalendarName, isNamedPeriodComparison, isYearValue, isRollingPeriod, NUMERIC_AGGREGATIONS, ORDER_OPERATORS, TEXT_OPERATORS as TEXT_OPERATOR_LIST, UNIT_BUCKETS, bucketAppliesTo, bucketsFor, dataSourceDateColumn, dotReading, splitColumnPath, unitAppliesTo,
} from '../../../common/src/language/keywords';
import { isOneOf, messageOf } from '../../../common/src/guards';

/** DATE and DATE_TIME: the calendar dates (keywords.ts `CALENDAR_TYPES`, one fact with the language service). */
const isDate = (t: ColumnDataType): boolean => CALENDAR_TYPES.has(t);

/** A query the emulator cannot answer: a 400 naming the problem. */
export class QueryError extends Error {}

/** How an output column's values are encoded in the response. */
export type OutputKind = 'number' | 'text' | 'bool' | 'date' | 'time';

/** A bound SQL parameter. */
export type SqlParam = string | number | boolean;

/** The input of `compileSearch`. */
export interface CompileInput {
  clauses: readonly Clause[];
  /** The data source's columns. */
  columns: readonly LogicalColumn[];
  /** Quoted DuckDB table name (`"db.schema"."table"`). */
  table: string;
  /** The clock of relative date filters. */
  now: Date;
  /** First month (1-12) of the fiscal year for `calendar.fiscal` (default 4, April). */
  fiscalYearStartMonth?: number;
  /** The custom calendars whose tables exist (`calendar.<name>`); default the demo's (customCalendar.ts `DEMO_CALENDARS`). */
  calendars?: readonly CustomCalendar[];
  /** The query text the clauses were parsed from (their offsets are in it): labels a `vs` side that is a date filter as written. */
  text?: string;
  /**
   * The tables behind a worksheet, each with its own columns: a column written with its table path
   * (`[flights_1::origin]`, keywords.ts `splitColumnPath`) is the worksheet's column of that table's column.
   * Absent for a table: the column of that name.
   */
  tablePaths?: readonly TablePath[];
}

/** A table behind a worksheet (`CompileInput.tablePaths`): its name and its own columns. */
export interface TablePath {
  table: string;
  columns: readonly LogicalColumn[];
}

/** The SQL of a query and how to read its result. */
export interface CompiledQuery {
  /** The whole ordered result: `SELECT o0, o1, … FROM … ORDER BY …`. */
  sql: string;
  /** One page: `sql` as `… LIMIT ? OFFSET ?`; bind `pageParams(compiled, limit, offset)`. */
  pageSql: string;
  /** The number of rows of the whole result: `SELECT count(*) FROM (…)`; bind `params`. */
  countSql: string;
  /**
   * N of a `top N`/`bottom N` in its own order (no `for each`, no `sort by`): a page is then the top
   * (offset + limit) of the grouped rows, which DuckDB keeps in a heap instead of sorting all N, and the
   * count is the grouped rows' count capped at N.
   */
  topN?: number;
  params: SqlParam[];
  columnNames: string[];
  columnKinds: OutputKind[];
}

const AGG_NAMES: Record<Aggregation, string> = {
  sum: 'Total',
  average: 'Average',
  count: 'Count',
  'total count': 'Total Count',
  'unique count': 'Unique Count',
  max: 'Max',
  min: 'Min',
  'standard deviation': 'Standard Deviation',
  variance: 'Variance',
};

const DEFAULT_AGG: Record<DefaultAggr, Aggregation | undefined> = {
  SUM: 'sum',
  AVERAGE: 'average',
  MIN: 'min',
  MAX: 'max',
  COUNT: 'count',
  COUNT_DISTINCT: 'unique count',
  STD_DEVIATION: 'standard deviation',
  VARIANCE: 'variance',
  NONE: undefined,
};

const BUCKET_LABELS: Record<Exclude<DateBucket, 'detailed'>, string> = {
  hourly: 'Hour',
  daily: 'Day',
  weekly: 'Week',
  monthly: 'Month',
  quarterly: 'Quarter',
  yearly: 'Year',
  'day of week': 'Day of week',
  'day of month': 'Day of month',
  'day of year': 'Day of year',
  'week of year': 'Week of year',
  'month of year': 'Month of year',
  'quarter of year': 'Quarter of year',
  'hour of day': 'Hour of day',
  'month of quarter': 'Month of quarter',
  'week of quarter': 'Week of quarter',
  'week of month': 'Week of month',
  'day of quarter': 'Day of quarter',
};

interface Item {
  alias: string;
  name: string;
  expr: string;
  measure: boolean;
  kind: OutputKind;
  key: string;
  column?: LogicalColumn;
  bucket?: DateBucket;
  aggregation?: Aggregation;
  forEach?: boolean;
}

interface Cond {
  sql: string;
  params: SqlParam[];
  /** The column a search filter is on (its id): group_aggregate's `query_filters () - {column}` and `{column}` read it. */
  column?: string;
  /** Conditions with the same group key are OR-ed (begins with / ends with on one column). */
  group?: string;
}

function kindOf(t: ColumnDataType): OutputKind {
  if (isNumeric(t)) return 'number';
  if (isDate(t)) return 'date';
  if (t === 'BOOL') return 'bool';
  if (t === 'TIME') return 'time';
  return 'text';
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Formats a Date as a DuckDB TIMESTAMP literal text in UTC. */
function tsText(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * Parses a date value: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` (or with `T`), `MM/DD/YYYY` (optionally with
 * a time). Returns the timestamp text and whether a time was written; undefined when not a date.
 */
export function parseDateValue(text: string): { ts: string; hasTime: boolean } | undefined {
  const s = text.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?Z?)?$/.exec(s);
  let y: number, mo: number, d: number;
  if (m) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else {
    m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
    if (!m) return undefined;
    [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  const h = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const se = m[6] === undefined ? 0 : Number(m[6]);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || se > 59) return undefined;
  return { ts: tsText(date), hasTime: m[4] !== undefined };
}

/** Start of the unit containing `d` (UTC; weeks start on Monday). */
function truncate(d: Date, unit: DateUnit): Date {
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  switch (unit) {
    case 'second':
      return new Date(Date.UTC(y, mo, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
    case 'minute':
      return new Date(Date.UTC(y, mo, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()));
    case 'hour':
      return new Date(Date.UTC(y, mo, d.getUTCDate(), d.getUTCHours()));
    case 'day':
      return new Date(Date.UTC(y, mo, d.getUTCDate()));
    case 'week': {
      const dow = (d.getUTCDay() + 6) % 7;
      return new Date(Date.UTC(y, mo, d.getUTCDate() - dow));
    }
    case 'month':
      return new Date(Date.UTC(y, mo, 1));
    case 'quarter':
      return new Date(Date.UTC(y, mo - (mo % 3), 1));
    case 'year':
      return new Date(Date.UTC(y, 0, 1));
  }
}

/** `d` moved by `n` units (UTC calendar arithmetic). */
function addUnits(d: Date, unit: DateUnit, n: number): Date {
  const r = new Date(d.getTime());
  switch (unit) {
    case 'second':
      r.setUTCSeconds(r.getUTCSeconds() + n);
      break;
    case 'minute':
      r.setUTCMinutes(r.getUTCMinutes() + n);
      break;
    case 'hour':
      r.setUTCHours(r.getUTCHours() + n);
      break;
    case 'day':
      r.setUTCDate(r.getUTCDate() + n);
      break;
    case 'week':
      r.setUTCDate(r.getUTCDate() + 7 * n);
      break;
    case 'month':
      r.setUTCMonth(r.getUTCMonth() + n);
      break;
    case 'quarter':
      r.setUTCMonth(r.getUTCMonth() + 3 * n);
      break;
    case 'year':
      r.setUTCFullYear(r.getUTCFullYear() + n);
      break;
  }
  return r;
}

/**
 * The half-open time range `[start, end)` of a relative date filter at `now` (docs/service-notes.md §2.5, 2.6).
 * Throws `QueryError` for the forms that are no range (`for each`, a named date: dateFilterCondition reads those).
 */
export function relativeRange(f: RelativeDate, now: Date): [Date, Date] {
  switch (f.type) {
    case 'named':
      throw new QueryError('A named date is no range of the clock');
    case 'today': {
      const s = truncate(now, 'day');
      return [s, addUnits(s, 'day', 1)];
    }
    case 'yesterday': {
      const s = addUnits(truncate(now, 'day'), 'day', -1);
      return [s, addUnits(s, 'day', 1)];
    }
    case 'period': {
      if (f.forEach) throw new QueryError(`The keyword "for each ${f.forEach}" after a date filter is not supported by the emulator`);
      const cur = truncate(now, f.unit);
      if (f.which === 'this') return [cur, addUnits(cur, f.unit, 1)];
      if (f.which === 'last') return [addUnits(cur, f.unit, -f.n), cur];
      return [addUnits(cur, f.unit, 1), addUnits(cur, f.unit, 1 + f.n)];
    }
    case 'ago': {
      const s = addUnits(truncate(now, f.unit), f.unit, -f.n);
      return [s, addUnits(s, f.unit, 1)];
    }
    case 'toDate':
      return [truncate(now, f.unit), addUnits(truncate(now, 'day'), 'day', 1)];
  }
}

/** A sort key of the outer query: an output alias (`c0`, `g0`) or a hidden key (`k0`), and its direction. */
interface SortKey {
  expr: string;
  dir: 'ASC' | 'DESC';
}

/** The alias of the data source's table in the grouping layer (`QueryScope.colSql`). */
const SOURCE_ALIAS = 'tsq_source';

/**
 * The columns of one query as it is compiled: resolves column references, makes the SQL of buckets and
 * aggregations, and collects the output items (each once, by key) and the hidden sort keys.
 */
class QueryScope {
  readonly items: Item[] = [];
  /** Aggregates that only sort (`sort by sum [x]` when it is not listed): `k0`, `k1`, … */
  readonly hidden: string[] = [];
  /** `calendar.fiscal` is in force: quarters and years start at `fiscalStart`. */
  fiscal = false;
  /** The custom calendar of `calendar.<name>` in force: weeks, months, quarters and years are its periods. */
  calendar?: CustomCalendar;
  /** The calendar's ranked days (`calendarOrdinalsSelect`) joined to the data source, per date expression: its alias. */
  private readonly calendarJoins = new Map<string, string>();

  /** SQL of the place of x's calendar `unit` in its `within` period (`month of year`, …), read from a join of the calendar's ranked days. */
  calendarOrdinal(unit: CalendarPeriod, within: CalendarPeriod, x: string): string {
    let alias = this.calendarJoins.get(x);
    if (!alias) this.calendarJoins.set(x, (alias = `tsq_calendar${this.calendarJoins.size}`));
    return `${alias}.${quoteIdent(calendarOrdinalColumn(unit, within))}`;
  }

  /** The joins `calendarOrdinal` asked for, to follow the data source in FROM ('' when none). */
  calendarJoinSql(): string {
    const cal = this.calendar;
    if (!cal) return '';
    return [...this.calendarJoins].map(([x, alias]) => ` LEFT JOIN (${calendarOrdinalsSelect(cal)}) AS ${alias} ON ${alias}."date" = CAST(${x} AS DATE)`).join('');
  }

  /** The group functions' subqueries (`GroupCall`s) joined to the data source, each once: alias and call. */
  readonly groupJoins: { alias: string; key: string; call: GroupCall }[] = [];

  /**
   * A group function's value per group of the search: its subquery (`groupJoinSql`) is joined to the rows,
   * each row carrying the value of its group at the function's grain; the distinct groups of a search group
   * are re-aggregated (one when the function's grain is the search's or coarser).
   */
  groupValue(call: GroupCall): string {
    const key = JSON.stringify(call);
    let j = this.groupJoins.find((x) => x.key === key);
    if (!j) this.groupJoins.push((j = { alias: `tsq_g${this.groupJoins.length}`, key, call }));
    return `list_aggregate(list_transform(list(DISTINCT {'i': ${j.alias}.tsq_i, 'v': ${j.alias}.tsq_v}), x -> x.v), '${call.reaggregate}')`;
  }

  /** The column an item of a group_aggregate list names, or undefined for an expression. */
  listColumn(item: GroupListItem): LogicalColumn | undefined {
    return item.column ? this.formulaColumn(item.column.name, item.column.table) : undefined;
  }

  constructor(
    private readonly columns: readonly LogicalColumn[],
    private readonly fiscalStart: number,
    private readonly tablePaths?: readonly TablePath[],
  ) {}

  /**
   * The column a reference names (case-insensitively, then by synonym); throws for an unknown or unclosed
   * one. A name with a table path (`flights_1::origin`, the token form; docs/service-notes.md §2.11) is, on
   * a worksheet, its column of that table's column, the path being the table's name or a ThoughtSpot path
   * id, the name and `_N` (`flights_1`); on a table, the column of that name.
   */
  resolve(ref: ColumnRef): LogicalColumn {
    if (!ref.closed) throw new QueryError(`The column [${ref.name} is missing its closing ]`);
    const c = this.byName(ref.name) ?? this.byPath(ref.name);
    if (!c) throw new QueryError(`Unknown column [${ref.name}] in this data source`);
    return c;
  }

  private byName(name: string): LogicalColumn | undefined {
    const k = name.trim().toLowerCase();
    return this.columns.find((x) => x.name.toLowerCase() === k) ?? this.columns.find((x) => x.synonyms.some((s) => s.toLowerCase() === k));
  }

  private byPath(name: string): LogicalColumn | undefined {
    const { path, column } = splitColumnPath(name);
    if (path === undefined) return undefined;
    if (!this.tablePaths?.length) return this.byName(column);
    const p = path.trim().toLowerCase();
    const table = this.tablePaths.find((t) => t.table.toLowerCase() === p) ?? this.tablePaths.find((t) => {
      const n = t.table.toLowerCase();
      return p.startsWith(`${n}_`) && /^\d+$/.test(p.slice(n.length + 1));
    });
    if (!table) throw new QueryError(`Unknown table path ${path} in [${name}]: this worksheet's tables are ${this.tablePaths.map((t) => t.table).join(', ')}`);
    const k = column.trim().toLowerCase();
    const own = table.columns.find((x) => x.name.toLowerCase() === k);
    return own ? this.columns.find((x) => x.physicalName === own.physicalName) : undefined;
  }

  /** The date column of the data source that a date keyword without one applies to (keywords.ts `dataSourceDateColumn`), or undefined. */
  firstDateColumn(): LogicalColumn | undefined {
    return dataSourceDateColumn(this.columns).column;
  }

  /**
   * The column's SQL. With a custom calendar it is qualified by the data source's alias (`SOURCE_ALIAS`):
   * the calendar's subqueries read a table with its own `date` column, which an unqualified name would mean.
   */
  colSql(c: LogicalColumn): string {
    if (c.formula) return this.formulaExpr(c);
    return this.calendar ? `${SOURCE_ALIAS}.${quoteIdent(c.physicalName)}` : quoteIdent(c.physicalName);
  }

  /** Formulas being compiled, so that one that refers to itself fails instead of recursing. */
  private readonly formulasOpen = new Set<string>();

  /** A column a formula names: `[table::column]` by its table path (a model's), else — any other table — by its name. */
  private formulaColumn(name: string, table: string | undefined): LogicalColumn {
    if (table !== undefined) {
      try {
        return this.resolve({ name: `${table}::${name}`, closed: true } as ColumnRef);
      } catch {
        // not a table path of this data source: the column is read by its name, as the formula checker reads it
      }
    }
    return this.resolve({ name, closed: true } as ColumnRef);
  }

  /**
   * The SQL of a formula column (formulaSql.ts): the columns it names resolved in this data source
   * (another formula by its SQL; `[path::column]` by `formulaColumn`). Throws QueryError for a formula
   * that refers to itself or cannot run.
   */
  formulaExpr(c: LogicalColumn): string {
    if (this.formulasOpen.has(c.id)) throw new QueryError(`The formula [${c.name}] refers to itself`);
    this.formulasOpen.add(c.id);
    try {
      const fail = (m: string): never => { throw new QueryError(m); };
      return `(${formulaSql(c.formula!.expr, (name, table) => this.colSql(this.formulaColumn(name, table)), fail, (call) => this.groupValue(call))})`;
    } finally {
      this.formulasOpen.delete(c.id);
    }
  }

  /** The column as a TIMESTAMP (a TIME on 1970-01-01). */
  ts(c: LogicalColumn): string {
    if (c.dataType === 'TIME') return `(DATE '1970-01-01' + ${this.colSql(c)})`;
    return c.dataType === 'DATE_TIME' ? this.colSql(c) : `CAST(${this.colSql(c)} AS TIMESTAMP)`;
  }

  /** The bucket written on a reference (`[date].monthly`); throws for an unknown one. */
  bucketOf(ref: ColumnRef): DateBucket | undefined {
    if (!ref.bucket) return undefined;
    if (!ref.bucket.known) throw new QueryError(`Unknown date bucket .${ref.bucket.name} on [${ref.name}]`);
    return ref.bucket.known;
  }

  /** The start of the hour, day, week (Monday), month, quarter or year holding the TIMESTAMP `x`; quarters and years follow `calendar.fiscal`. */
  periodStart(grain: 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year', x: string): string {
    if (this.calendar && grain !== 'hour' && grain !== 'day') return calendarPeriodStartSql(this.calendar, grain, x);
    if (this.fiscal && (grain === 'quarter' || grain === 'year')) return `(date_trunc('${grain}', ${x} - INTERVAL ${this.fiscalStart - 1} MONTH) + INTERVAL ${this.fiscalStart - 1} MONTH)`;
    return `date_trunc('${grain}', ${x})`;
  }

  bucketExpr(c: LogicalColumn, b: DateBucket): { expr: string; kind: OutputKind } {
    if (!bucketAppliesTo(b, c.dataType)) {
      const fits = bucketsFor(c.dataType);
      throw new QueryError(`The date bucket ${b} does not apply to [${c.name}], which is ${c.dataType}${fits.length ? ` (on ${c.dataType}: ${fits.join(', ')})` : ''}`);
    }
    const x = this.ts(c);
    if (c.dataType === 'TIME' && b === 'hourly') return { expr: `CAST(date_trunc('hour', ${x}) AS TIME)`, kind: 'time' };
    if (this.calendar) {
      const cal = calendarBucketExpr(this.calendar, b, x, (unit, within) => this.calendarOrdinal(unit, within, x));
      if (cal) return cal;
    }
    const fiscalStart = this.fiscalStart;
    const shifted = (unit: string): string => `date_trunc('${unit}', ${x} - INTERVAL ${fiscalStart - 1} MONTH) + INTERVAL ${fiscalStart - 1} MONTH`;
    switch (b) {
      case 'detailed':
        return { expr: this.colSql(c), kind: 'date' };
      case 'hourly':
        return { expr: `date_trunc('hour', ${x})`, kind: 'date' };
      case 'daily':
        return { expr: `date_trunc('day', ${x})`, kind: 'date' };
      case 'weekly':
        return { expr: `date_trunc('week', ${x})`, kind: 'date' };
      case 'monthly':
        return { expr: `date_trunc('month', ${x})`, kind: 'date' };
      case 'quarterly':
        return { expr: this.fiscal ? shifted('quarter') : `date_trunc('quarter', ${x})`, kind: 'date' };
      case 'yearly':
        return { expr: this.fiscal ? shifted('year') : `date_trunc('year', ${x})`, kind: 'date' };
      case 'day of week':
        return { expr: `isodow(${x})`, kind: 'number' };
      case 'day of month':
        return { expr: `dayofmonth(${x})`, kind: 'number' };
      case 'day of year':
        return { expr: `dayofyear(${x})`, kind: 'number' };
      case 'week of year':
        return { expr: `weekofyear(${x})`, kind: 'number' };
      case 'month of year':
        return { expr: `month(${x})`, kind: 'number' };
      case 'quarter of year':
        return { expr: this.fiscal ? `quarter(${x} - INTERVAL ${fiscalStart - 1} MONTH)` : `quarter(${x})`, kind: 'number' };
      case 'hour of day':
        return { expr: `hour(${x})`, kind: 'number' };
      // The period parts of list-period.adoc: counted from 1 within their period (weeks as days 1–7, 8–14, …).
      case 'month of quarter':
        return { expr: `((month(${x}) - 1) % 3 + 1)`, kind: 'number' };
      case 'day of quarter':
        return { expr: `(date_diff('day', date_trunc('quarter', ${x}), ${x}) + 1)`, kind: 'number' };
      case 'week of quarter':
        return { expr: `(date_diff('day', date_trunc('quarter', ${x}), ${x}) // 7 + 1)`, kind: 'number' };
      case 'week of month':
        return { expr: `((dayofmonth(${x}) - 1) // 7 + 1)`, kind: 'number' };
    }
  }

  aggExpr(agg: Aggregation, c: LogicalColumn): { expr: string; kind: OutputKind } {
    // an aggregate formula is computed per group as it is written: the search's aggregation does not apply
    if (c.formula?.aggregate) return { expr: this.formulaExpr(c), kind: kindOf(c.dataType) };
    if (NUMERIC_AGGREGATIONS.has(agg) && !isNumeric(c.dataType)) throw new QueryError(`The aggregation ${agg} needs a numeric column; [${c.name}] is ${c.dataType}`);
    const x = this.colSql(c);
    switch (agg) {
      case 'sum':
        return { expr: `sum(${x})`, kind: 'number' };
      case 'average':
        return { expr: `avg(${x})`, kind: 'number' };
      case 'count':
        return { expr: `count(${x})`, kind: 'number' };
      case 'total count':
        return { expr: 'count(*)', kind: 'number' };
      case 'unique count':
        return { expr: `count(DISTINCT ${x})`, kind: 'number' };
      case 'max':
        return { expr: `max(${x})`, kind: kindOf(c.dataType) };
      case 'min':
        return { expr: `min(${x})`, kind: kindOf(c.dataType) };
      case 'standard deviation':
        return { expr: `stddev_samp(${x})`, kind: 'number' };
      case 'variance':
        return { expr: `var_samp(${x})`, kind: 'number' };
    }
  }

  defaultAgg(c: LogicalColumn): Aggregation {
    return DEFAULT_AGG[c.aggregation] ?? 'sum';
  }

  private addItem(it: Omit<Item, 'alias'>): Item {
    const found = this.items.find((x) => x.key === it.key);
    if (found) return found;
    const item = { ...it, alias: `c${this.items.length}` };
    this.items.push(item);
    return item;
  }

  attributeItem(c: LogicalColumn, bucket: DateBucket | undefined, forEach?: boolean): Item {
    if (bucket) {
      const b = this.bucketExpr(c, bucket);
      const name = bucket === 'detailed' ? c.name : `${BUCKET_LABELS[bucket]}(${c.name})`;
      return this.addItem({ name, expr: b.expr, measure: false, kind: b.kind, key: `a:${c.id}:${bucket}`, column: c, bucket, forEach });
    }
    return this.addItem({ name: c.name, expr: this.colSql(c), measure: false, kind: kindOf(c.dataType), key: `a:${c.id}`, column: c, forEach });
  }

  measureItem(c: LogicalColumn, agg: Aggregation): Item {
    const a = this.aggExpr(agg, c);
    // an aggregate formula is named as it is: the search's aggregation does not apply to it
    return this.addItem({ name: c.formula?.aggregate ? c.name : `${AGG_NAMES[agg]} ${c.name}`, expr: a.expr, measure: true, kind: a.kind, key: `m:${c.id}:${agg}`, column: c, aggregation: agg });
  }

  /** A hidden sort key for an expression that is not an output column. */
  private hiddenKey(expr: string): string {
    this.hidden.push(expr);
    return `k${this.hidden.length - 1}`;
  }

  /**
   * The alias a sort (or `ranked by`) names: a listed measure or attribute, else a hidden aggregate. Call
   * it once every item exists, so that `sort by` can name a listed column.
   */
  keyFor(ref: ColumnRef, agg: Aggregation | undefined): string {
    const c = this.resolve(ref);
    const b = this.bucketOf(ref);
    if (agg) return this.items.find((x) => x.key === `m:${c.id}:${agg}`)?.alias ?? this.hiddenKey(this.aggExpr(agg, c).expr);
    const attr = this.items.find((x) => !x.measure && x.column?.id === c.id && (b === undefined || x.bucket === b));
    if (attr) return attr.alias;
    const meas = this.items.find((x) => x.measure && x.column?.id === c.id);
    if (meas) return meas.alias;
    if (c.kind === 'MEASURE') return this.hiddenKey(this.aggExpr(this.defaultAgg(c), c).expr);
    throw new QueryError(`Cannot sort by [${c.name}]: it is an attribute that is not listed in the query`);
  }
}

const TEXT_OPERATORS = new Set<FilterOperator>(TEXT_OPERATOR_LIST);

type FilterClause = Extract<Clause, { kind: 'filter' }>;

/** What a filter compares: a column, its bucket, or an aggregate, with the type its values are read as. */
function filterTarget(scope: QueryScope, cl: FilterClause): { expr: string; type: ColumnDataType | 'NUMBER'; c: LogicalColumn } {
  const c = scope.resolve(cl.column);
  if (cl.aggregation) return { expr: scope.aggExpr(cl.aggregation, c).expr, type: cl.aggregation === 'min' || cl.aggregation === 'max' ? c.dataType : 'NUMBER', c };
  const b = scope.bucketOf(cl.column);
  if (b && b !== 'detailed') {
    const be = scope.bucketExpr(c, b);
    return { expr: be.expr, type: be.kind === 'date' ? 'DATE_TIME' : 'NUMBER', c };
  }
  return { expr: scope.colSql(c), type: c.dataType, c };
}

/**
 * The right-hand values of one comparison filter: each value as SQL with `?`, its parameters pushed in
 * order, and the granularity dates were written in (a year, or a day without a time).
 */
class FilterValues {
  readonly params: SqlParam[] = [];
  dayGranularity = false;
  yearGranularity = false;
  readonly isText: boolean;
  readonly isDate: boolean;

  constructor(
    private readonly type: ColumnDataType | 'NUMBER',
    private readonly c: LogicalColumn,
    /** The query's custom calendar: a year is its year (filterCondition). */
    private readonly calendar?: CustomCalendar,
  ) {
    this.isText = isFamily(type, 'text');
    this.isDate = isFamily(type, 'date');
  }

  /** A value on the right-hand side: returns SQL with `?` and pushes its parameter. */
  rhs(v: Value): string {
    const c = this.c;
    if (v.kind === 'null' || v.kind === 'empty') throw new QueryError(`{${v.kind}} can only be used with = and != (on [${c.name}])`);
    // a bare boolean (`= true`) is its word as written: a value of a BOOL column, a text elsewhere
    const raw = v.kind === 'number' || v.kind === 'boolean' ? v.raw : v.value;
    if (this.isText) {
      this.params.push(raw);
      return 'lower(?)';
    }
    if (this.type === 'NUMBER' || isNumeric(this.type)) {
      const n = v.kind === 'number' ? v.value : Number(raw.trim());
      if (v.kind !== 'number' && (raw.trim() === '' || !Number.isFinite(n))) throw new QueryError(`'${raw}' is not a number, and [${c.name}] is numeric`);
      this.params.push(n);
      return '?';
    }
    if (this.isDate) return this.dateRhs(raw);
    if (this.type === 'BOOL') {
      const t = raw.trim().toLowerCase();
      if (!['true', 'false', 't', 'f', 'yes', 'no', '1', '0'].includes(t)) throw new QueryError(`'${t}' is not a boolean for [${c.name}]`);
      this.params.push(['true', 't', 'yes', '1'].includes(t));
      return '?';
    }
    this.params.push(raw);
    return `CAST(? AS TIME)`;
  }

  private dateRhs(written: string): string {
    const raw = written.trim();
    if (isYearValue(raw)) {
      // A year (`[date] = 2001`, `after 2000`) compares the column's year (docs/service-notes.md §2.5).
      this.yearGranularity = true;
      this.params.push(Number(raw));
      return '?';
    }
    const d = parseDateValue(raw);
    if (!d) throw new QueryError(`'${written}' is not a date (use 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS', 'MM/DD/YYYY' or a year) for [${this.c.name}]`);
    this.params.push(d.hasTime ? d.ts : d.ts.slice(0, 10));
    if (!d.hasTime) {
      this.dayGranularity = true;
      return 'CAST(? AS DATE)';
    }
    return 'CAST(? AS TIMESTAMP)';
  }

  /** The left-hand side for the values read so far: lower-cased text, the year, the day, or as is. */
  lhs(expr: string): string {
    if (this.yearGranularity && (this.dayGranularity || this.params.some((x) => typeof x === 'string'))) throw new QueryError(`Compare [${this.c.name}] with years or with dates, not both`);
    if (this.yearGranularity && this.calendar) return `TRY_CAST(${calendarNumberSql(this.calendar, 'year', expr)} AS INTEGER)`;
    return this.isText ? `lower(${expr})` : this.yearGranularity ? `year(${expr})` : this.dayGranularity ? `CAST(${expr} AS DATE)` : expr;
  }
}

/**
 * A text filter (`contains`, `begins with`, …, and their negations), case-insensitive. `similar to` is a
 * LIKE pattern (`%` any run of characters, `_` one character) found anywhere in the text: `similar to
 * 'jacket'` matches "jean jacket men's", and two `similar to` on one column are OR-ed; `not similar to`
 * keeps the text with no match of any of its patterns (docs.thoughtspot.com cloud/latest/keywords-en-US
 * #similar-to, #not-similar-to; docs/service-notes.md §2.4).
 */
function textCondition(cl: FilterClause, expr: string, c: LogicalColumn): Cond {
  const op = cl.operator;
  if (cl.aggregation) throw new QueryError(`${op} cannot be used with an aggregation`);
  const p: SqlParam[] = [];
  const lhs = `lower(CAST(${expr} AS VARCHAR))`;
  const fn: Record<string, string> = { contains: 'contains', 'begins with': 'starts_with', 'ends with': 'ends_with' };
  const base = op.replace(/^not /, '');
  const negated = op.startsWith('not ');
  const parts = cl.values.map((v) => {
    if (v.kind === 'null' || v.kind === 'empty') throw new QueryError(`{${v.kind}} cannot be used with ${op}`);
    p.push(v.kind === 'number' || v.kind === 'boolean' ? v.raw : v.value);
    return base === 'similar to' ? `${lhs} LIKE '%' || lower(?) || '%'` : `${fn[base]}(${lhs}, lower(?))`;
  });
  const sql = negated ? `(${expr} IS NULL OR NOT (${parts.join(' OR ')}))` : `(${parts.join(' OR ')})`;
  const group = !negated && (base === 'begins with' || base === 'ends with' || base === 'similar to') ? `${base}:${c.id}:${expr}` : undefined;
  return { sql, params: p, group };
}

/**
 * The condition of a filter clause (WHERE, or HAVING when written with an aggregation). Under a custom
 * calendar (docs.thoughtspot.com cloud/latest/connections-cust-cal) a plain date stays a date; a year, a
 * named period, is the calendar's year with `=` and `!=` ("date keywords" follow the calendar, "Search
 * features"), and an order comparison with one is refused as the page's Limitations say ("Custom calendar
 * does not support a filter such as order date >= august 2025").
 */
function filterCondition(scope: QueryScope, cl: FilterClause): Cond {
  const { expr, type, c } = filterTarget(scope, cl);
  const op = cl.operator;
  const values = cl.values;
  if (values.length === 0) throw new QueryError(`The filter on [${c.name}] has no value`);
  if (TEXT_OPERATORS.has(op)) return textCondition(cl, expr, c);
  const v = new FilterValues(type, c, cl.aggregation ? undefined : scope.calendar);
  if (v.isDate && scope.calendar && !cl.aggregation && isNamedPeriodComparison(op, values.map((x) => (x.kind === 'number' ? x.raw : x.kind === 'text' ? x.value : '')))) {
    throw new QueryError(`[${c.name}] ${op} a year with calendar.${scope.calendar.name}: a custom calendar does not support comparing a date with a named period such as a year (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations: "order date >= august 2025"); compare with a date ('YYYY-MM-DD') or a date keyword, as the page suggests: order date after 12 months ago`);
  }
  if (op === '=' || op === '!=') {
    const parts: string[] = [];
    const rhsList: string[] = [];
    for (const value of values) {
      if (value.kind === 'null') parts.push(op === '=' ? `${expr} IS NULL` : `${expr} IS NOT NULL`);
      else if (value.kind === 'empty') parts.push(op === '=' ? `trim(CAST(${expr} AS VARCHAR)) = ''` : `trim(CAST(${expr} AS VARCHAR)) <> ''`);
      else rhsList.push(v.rhs(value));
    }
    if (rhsList.length) parts.unshift(`${v.lhs(expr)} ${op === '=' ? 'IN' : 'NOT IN'} (${rhsList.join(', ')})`);
    return { sql: `(${parts.join(op === '=' ? ' OR ' : ' AND ')})`, params: v.params };
  }
  if (op === 'between') {
    if (values.length !== 2) throw new QueryError(`between needs two values: [${c.name}] between x and y`);
    const a = v.rhs(values[0]!);
    const b = v.rhs(values[1]!);
    return { sql: `(${v.lhs(expr)} BETWEEN ${a} AND ${b})`, params: v.params };
  }
  if (values.length !== 1) throw new QueryError(`${op} takes one value (on [${c.name}])`);
  if ((op === 'after' || op === 'before') && !v.isDate) throw new QueryError(`${op} needs a date column; [${c.name}] is ${c.dataType}`);
  const sqlOp = op === 'after' ? '>' : op === 'before' ? '<' : op;
  if (!isOneOf(ORDER_OPERATORS, sqlOp)) throw new QueryError(`The operator ${op} is not supported by the emulator`);
  const r = v.rhs(values[0]!);
  return { sql: `(${v.lhs(expr)} ${sqlOp} ${r})`, params: v.params };
}

/**
 * A date bucket in the custom calendar `cal` (docs.thoughtspot.com cloud/latest/connections-cust-cal: "choose
 * when the year, quarter, or week starts, and search using date-related keywords"): the weekly … yearly
 * buckets are the calendar's period starts; the date parts count within its periods (`day of week` is its
 * `day_number_of_week`, `week of year` its `week_number_of_year`, `month of year` the calendar month's place
 * in its year, `day of quarter` the days since the calendar quarter's start plus one). Undefined for the
 * buckets no calendar changes (`detailed`, `hourly`, `daily`, `hour of day`).
 */
function calendarBucketExpr(cal: CustomCalendar, b: DateBucket, x: string, ordinal: (unit: CalendarPeriod, within: CalendarPeriod) => string): { expr: string; kind: OutputKind } | undefined {
  const grain: Partial<Record<DateBucket, CalendarPeriod>> = { weekly: 'week', monthly: 'month', quarterly: 'quarter', yearly: 'year' };
  const g = grain[b];
  if (g) return { expr: calendarPeriodStartSql(cal, g, x), kind: 'date' };
  const dayOf = (p: CalendarPeriod): string => `(datediff('day', ${calendarPeriodStartSql(cal, p, x)}, date_trunc('day', ${x})) + 1)`;
  const number = (expr: string): { expr: string; kind: OutputKind } => ({ expr, kind: 'number' });
  switch (b) {
    case 'day of week':
      return number(calendarNumberSql(cal, 'day_number_of_week', x));
    case 'day of month':
      return number(dayOf('month'));
    case 'day of quarter':
      return number(dayOf('quarter'));
    case 'day of year':
      return number(dayOf('year'));
    case 'week of month':
      return number(calendarNumberSql(cal, 'week_number_of_month', x));
    case 'week of quarter':
      return number(calendarNumberSql(cal, 'week_number_of_quarter', x));
    case 'week of year':
      return number(calendarNumberSql(cal, 'week_number_of_year', x));
    case 'month of quarter':
      return number(ordinal('month', 'quarter'));
    case 'month of year':
      return number(ordinal('month', 'year'));
    case 'quarter of year':
      return number(ordinal('quarter', 'year'));
    default:
      return undefined;
  }
}

/**
 * Calendars apply to the whole query, wherever they are written: `calendar` alone (or `calendar.gregorian`)
 * the Gregorian calendar, `calendar.fiscal` the fiscal offset, `calendar.<name>` a custom calendar
 * (customCalendar.ts `findCalendar`). An unknown name, or two different calendars in one query (the
 * connections-cust-cal page allows "a single calendar per clause"), is a `QueryError` naming the known ones.
 */
function applyCalendars(scope: QueryScope, clauses: readonly Clause[], calendars: readonly CustomCalendar[]): void {
  let chosen: string | undefined;
  for (const cl of clauses) {
    if (cl.kind !== 'calendar') continue;
    const n = cl.name.trim().toLowerCase();
    const key = isCustomCalendarName(n) || n === FISCAL_CALENDAR_NAME ? n : 'gregorian';
    if (chosen !== undefined && chosen !== key) throw new QueryError(`A query can use one calendar; it names calendar.${chosen} and calendar.${cl.name}`);
    chosen = key;
    if (key === FISCAL_CALENDAR_NAME) scope.fiscal = true;
    else if (key !== 'gregorian') {
      const cal = findCalendar(n, calendars);
      if (!cal) throw new QueryError(`Unknown calendar ${cl.name}; the emulator knows ${knownCalendarNames(calendars)}`);
      scope.calendar = cal;
    }
  }
}

/** The calendar periods of a custom calendar; the other units (days and shorter) are the same in every calendar. */
function calendarPeriodOf(scope: QueryScope, unit: DateUnit): CalendarPeriod | undefined {
  return scope.calendar && (unit === 'week' || unit === 'month' || unit === 'quarter' || unit === 'year') ? unit : undefined;
}

/**
 * A relative date filter in the periods of the query's custom calendar (`this quarter`, `last month`,
 * `next week`, `2 months ago`, `month to date`, …; connections-cust-cal "Search features": "date keywords,
 * like this quarter"): the rows whose calendar period is the one `k` periods from today's; a to-date filter
 * keeps today's period up to yesterday: with a custom calendar the current date is excluded (keywords-to-date,
 * "Using period to date keywords with a calendar", for every database and column type). `last N` / `next N` with N > 1
 * are rolling filters, which the page's Limitations say are not supported with a custom calendar: a
 * `QueryError` citing it. Undefined when the filter is not in calendar periods.
 */
function calendarDateCondition(scope: QueryScope, c: LogicalColumn, f: RelativeDate, now: Date): Cond | undefined {
  if (f.type !== 'period' && f.type !== 'ago' && f.type !== 'toDate') return undefined;
  const cal = scope.calendar!;
  const grain = calendarPeriodOf(scope, f.unit);
  if (!grain) return undefined;
  const x = scope.ts(c);
  const today = 'CAST(CAST(? AS TIMESTAMP) AS DATE)';
  const params: SqlParam[] = [tsText(now)];
  let k = 0;
  if (f.type === 'period') {
    if (isRollingPeriod(f)) {
      throw new QueryError(`"${f.which} ${f.n} ${f.unit}s" is a rolling date filter, which a custom calendar does not support (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations): use ${f.which} ${f.unit}, this ${f.unit} or ${f.unit} to date with calendar.${cal.name}`);
    }
    k = f.which === 'this' ? 0 : f.which === 'last' ? -1 : 1;
  } else if (f.type === 'ago') k = -f.n;
  const inPeriod = `${calendarPeriodStartSql(cal, grain, x)} = ${calendarShiftedStartSql(cal, grain, today, k)}`;
  if (f.type !== 'toDate') return { sql: `(${inPeriod})`, params };
  params.push(tsText(now));
  return { sql: `(${inPeriod} AND CAST(${x} AS DATE) < ${today})`, params };
}

/** What the clauses of a query say, once read: the row and group conditions, and the one top and growth. */
interface ReadClauses {
  where: Cond[];
  having: Cond[];
  top?: Extract<Clause, { kind: 'topBottom' }>;
  growth?: Extract<Clause, { kind: 'growth' }>;
  /** Relative date filters, made conditions once every bucket of the query is known (a to-date filter depends on them). */
  dateFilters: Extract<Clause, { kind: 'dateFilter' }>[];
}

/** Reads the clauses in order: adds the output items to the scope and collects the filters; throws for what is not executed. */
function readClauses(scope: QueryScope, input: CompileInput): ReadClauses {
  const read: ReadClauses = { where: [], having: [], dateFilters: [] };
  let lastDateItem: { item: Item; c: LogicalColumn } | undefined;
  for (const cl of input.clauses) {
    switch (cl.kind) {
      case 'column': {
        const c = scope.resolve(cl.column);
        const b = cl.column.bucket;
        if (b?.known && !cl.aggregation && !cl.by && !cl.forEach && !isDate(c.dataType) && dotReading(b.name, b.known, c.dataType) === 'value') {
          // `[origin].monthly`: no bucket applies to the column, so the word is its value (the token form, docs/service-notes.md §2.11)
          read.where.push(filterCondition(scope, { kind: 'filter', column: { ...cl.column, bucket: undefined }, operator: '=', operatorStart: b.start, operatorEnd: b.start, values: [{ kind: 'text', value: b.name, terminated: true, start: b.start, end: b.end }], dotted: true, start: cl.start, end: cl.end }));
          break;
        }
        const bucket = scope.bucketOf(cl.column);
        let it: Item;
        if (cl.aggregation) it = scope.measureItem(c, cl.aggregation);
        else if (c.kind === 'MEASURE' && !cl.by && !bucket && !cl.forEach) it = scope.measureItem(c, scope.defaultAgg(c));
        else it = scope.attributeItem(c, bucket, cl.forEach);
        if (!it.measure && isDate(c.dataType)) lastDateItem = { item: it, c };
        break;
      }
      case 'bucket': {
        if (!lastDateItem) {
          // `[revenue] weekly`, `[revenue] by week` (list-date.adoc): the data source's date column, bucketed.
          const d = scope.firstDateColumn();
          if (!d) throw new QueryError(`The bucket ${cl.bucket} needs a date column, and this data source has none`);
          lastDateItem = { item: scope.attributeItem(d, cl.bucket), c: d };
          break;
        }
        const { item, c } = lastDateItem;
        const b = scope.bucketExpr(c, cl.bucket);
        Object.assign(item, { expr: b.expr, kind: b.kind, bucket: cl.bucket, key: `a:${c.id}:${cl.bucket}`, name: cl.bucket === 'detailed' ? c.name : `${BUCKET_LABELS[cl.bucket]}(${c.name})` });
        break;
      }
      case 'filter':
        // a filter on an aggregating formula compares its value per group, as one with an aggregation
        (cl.aggregation || scope.resolve(cl.column).formula?.aggregate ? read.having : read.where).push({ ...filterCondition(scope, cl), column: scope.resolve(cl.column).id });
        break;
      case 'location':
        read.where.push({ ...locationCondition(scope, cl, input), ...(cl.column ? { column: scope.resolve(cl.column).id } : {}) });
        break;
      case 'subsearch':
        read.where.push({ ...subsearchCondition(scope, cl, input), ...(cl.column ? { column: scope.resolve(cl.column).id } : {}) });
        break;
      case 'dateFilter': {
        // A date keyword after a column that is no date (`[sales] last 7 days`): the column is listed, the
        // keyword applies to the data source's date column (keywords.ts `dataSourceDateColumn`). The
        // conditions are made once every column is read (a to-date filter looks at the buckets).
        const c = cl.column ? scope.resolve(cl.column) : undefined;
        if (c && !isDate(c.dataType)) {
          const bucket = scope.bucketOf(cl.column!);
          if (c.kind === 'MEASURE' && !bucket) scope.measureItem(c, scope.defaultAgg(c));
          else scope.attributeItem(c, bucket);
          read.dateFilters.push({ ...cl, column: undefined });
        } else read.dateFilters.push(cl);
        break;
      }
      case 'topBottom':
        if (read.top) throw new QueryError('A query can have only one top or bottom');
        read.top = cl;
        break;
      case 'growth':
        if (read.growth) throw new QueryError('A query can have only one growth of');
        read.growth = cl;
        break;
      case 'sort':
      case 'calendar':
        break;
      case 'versus':
        throw new QueryError('vs cannot be used inside an in subsearch (in.adoc)');
      case 'keyword':
        // a value, number or ( … ) alone (the parser's tsq.bareValue): the API syntax gives values only after an operator
        if (/^['{(\d-]/.test(cl.keyword)) throw new QueryError(`${cl.keyword} stands alone: a value needs a column and an operator before it ([column] = value)`);
        throw new QueryError(`The keyword "${cl.keyword}" is not supported by the local emulator`);
      case 'error':
        throw new QueryError(`Cannot understand "${cl.text}"`);
    }
  }
  return read;
}

/**
 * A location filter (list-location.adoc, near.adoc, near_within_distance.adoc, farther_than_distance_from.adoc;
 * docs.thoughtspot.com cloud/9.10.5.cl/search-proximity): `[city] near 'seattle' within 50 miles` keeps the
 * rows less than 50 miles from Seattle, `[city] farther than 80 km from 'seattle'` those more than 80 km away.
 * The column is the one the place is a value of ("the name of the column that tokyo falls under in the
 * data"); the rows' location is the data source's latitude/longitude ("you can only use the near and farther
 * than keywords on data sources that have latitude and longitude data"); the place is the locations (up to 30)
 * of the rows whose column is it (geo.ts `locationConditionSql`). A bare `near` is within `NEAR_DEFAULT`.
 * Throws QueryError without a column, on a data source with no location columns, or for a bad distance.
 */
function locationCondition(scope: QueryScope, cl: Extract<Clause, { kind: 'location' }>, input: CompileInput): Cond {
  const kw = cl.relation === 'near' ? 'near' : 'farther than';
  if (!cl.column) throw new QueryError(`${kw} needs the column the place is a value of before it: [city] ${kw === 'near' ? "near 'seattle'" : "farther than 80 km from 'seattle'"}`);
  const c = scope.resolve(cl.column);
  if (!geoColumnsOf(input.columns)) throw new QueryError(`${kw} needs a data source with latitude and longitude columns, and this one has none (search-proximity: "you can only use the near and farther than keywords on data sources that have latitude and longitude data")`);
  const d = cl.distance ?? NEAR_DEFAULT;
  let km: number;
  try {
    km = toKm(d.n, d.unit);
  } catch (e) {
    throw new QueryError(`The distance of ${kw} on [${c.name}]: ${messageOf(e)}`);
  }
  return locationConditionSql({ columns: input.columns, table: input.table, placeColumn: c, place: cl.place, relation: cl.relation === 'near' ? 'within' : 'farther', km });
}

/**
 * `[a] in (subsearch)` / `[a] not in (subsearch)` (in.adoc, not_in.adoc; docs/service-notes.md §2.8): the
 * subsearch is a query of the same data source, compiled as one (its own filters, top and order); "the last
 * attribute before in must match the first attribute inside the parentheses", so its first output column
 * must be `[a]` itself, unbucketed. `in` keeps the rows whose value it returns ("intersection"; `{null}` is
 * never in it, as the results of in exclude null since 6.2); `not in` keeps the other values ("relative
 * complement"); a row with no value is in neither (keywords-in.adoc, the note over both keywords: "searches
 * with the in keyword do not include {null} values"; to keep them, a formula turning null into a word). Throws QueryError
 * without a column before the keyword or when the subsearch starts with another column.
 */
function subsearchCondition(scope: QueryScope, cl: Extract<Clause, { kind: 'subsearch' }>, input: CompileInput): Cond {
  const kw = cl.negated ? 'not in' : 'in';
  if (!cl.column) throw new QueryError(`${kw} needs the column it filters before it: [origin] ${kw} (top 10 [origin] [delay])`);
  const c = scope.resolve(cl.column);
  if (scope.bucketOf(cl.column)) throw new QueryError(`${kw} filters a column's values, not a date bucket ([${cl.column.name}].${cl.column.bucket!.name})`);
  // a subsearch that lists no column starts with the column of its first filter (`in ([Major Genre] = 'Drama')`):
  // it is the first attribute inside the parentheses, which in.adoc has it return, though it is no answer column
  const first = cl.clauses.find((k) => k.kind === 'filter');
  const listsNone = !cl.clauses.some((k) => k.kind === 'column');
  const clauses: readonly Clause[] = listsNone && first?.kind === 'filter' ? [{ kind: 'column', column: first.column, start: first.start, end: first.end }, ...cl.clauses] : cl.clauses;
  const sub = compileSearch({ ...input, clauses });
  if (sub.columnNames[0] !== c.name) {
    throw new QueryError(`The subsearch of ${kw} must start with [${c.name}], the column before ${kw} (in.adoc: the last attribute before in must match the first attribute inside the parentheses), not with ${sub.columnNames[0]}`);
  }
  const x = scope.colSql(c);
  // the subsearch's first output is the column as it is returned (dates as epoch seconds): compare alike
  const v = sub.columnKinds[0] === 'date' ? `epoch(${x})` : sub.columnKinds[0] === 'time' ? `CAST(${x} AS VARCHAR)` : x;
  const values = `SELECT o0 FROM (${sub.sql}) WHERE o0 IS NOT NULL`;
  // {null} is in neither answer (keywords-in.adoc: "searches with the in keyword do not include {null} values")
  const sql = `(${x} IS NOT NULL AND ${v} ${cl.negated ? 'NOT IN' : 'IN'} (${values}))`;
  return { sql, params: [...sub.params] };
}

/** A relative date filter (`last 7 days`, `this year`, …) on its column, or on the first date column. */
function dateFilterCondition(scope: QueryScope, cl: Extract<Clause, { kind: 'dateFilter' }>, now: Date): Cond {
  let c: LogicalColumn;
  if (cl.column) c = scope.resolve(cl.column);
  else {
    const d = scope.firstDateColumn();
    if (!d) throw new QueryError('This data source has no date column for a date filter');
    c = d;
  }
  if (!isDate(c.dataType)) throw new QueryError(`Date filters need a date column; [${c.name}] is ${c.dataType}`);
  const f = cl.filter;
  if (f.type === 'named') {
    // `monday`, `january`, `february 2014`, `2014` (day_name.adoc, january.adoc, month_year_name.adoc), `q1`, `q3 2024` (q1.adoc …).
    if (f.quarter !== undefined) return namedQuarterCondition(scope, c, f.quarter, f.year);
    const x = scope.ts(c);
    const parts: string[] = [];
    const params: SqlParam[] = [];
    if (f.dayOfWeek !== undefined) {
      parts.push(`isodow(${x}) = ?`);
      params.push(f.dayOfWeek);
    }
    // with a custom calendar a month or year name is the calendar's (its text columns `month`, `year`)
    const cal = scope.calendar;
    if (f.month !== undefined) {
      parts.push(cal ? `lower(${calendarNumberSql(cal, 'month', x)}) = lower(monthname(make_date(2000, ?, 1)))` : `month(${x}) = ?`);
      params.push(f.month);
    }
    if (f.year !== undefined) {
      parts.push(cal ? `${calendarNumberSql(cal, 'year', x)} = CAST(? AS VARCHAR)` : `year(${x}) = ?`);
      params.push(f.year);
    }
    return { sql: `(${parts.join(' AND ')})`, params };
  }
  if ((f.type === 'period' || f.type === 'ago') && !unitAppliesTo(f.unit, c.dataType)) throw new QueryError(`A date filter in ${f.unit}s needs a DATE_TIME column; [${c.name}] is ${c.dataType}`);
  if (f.type === 'period' && f.forEach) return forEachCondition(scope, c, f.which, f.n, f.unit, f.forEach);
  if (f.type === 'toDate') {
    const each = forEachPeriodCondition(scope, c, f.unit, now, f.forEach);
    if (each) return each;
  }
  if (scope.calendar) {
    const inCalendar = calendarDateCondition(scope, c, f, now);
    if (inCalendar) return inCalendar;
  }
  const [s, e] = relativeRange(f, now);
  return { sql: `(${scope.ts(c)} >= CAST(? AS TIMESTAMP) AND ${scope.ts(c)} < CAST(? AS TIMESTAMP))`, params: [tsText(s), tsText(e)] };
}

/**
 * A named quarter (`q1` … `q4`, q1.adoc …; `q3 2024` with a year) on the date column `c`, in the calendar in force
 * (connections-cust-cal "Search features": date keywords "like this quarter and q3" follow the calendar):
 * - Gregorian: the quarter of the date (January–March is q1), and its year when written.
 * - `calendar.fiscal`: the fiscal quarter (the `quarter of year` bucket: q1 starts in the fiscal start month); the
 *   year is that of the fiscal year's first day, as the `yearly` bucket keys a fiscal year by its first day.
 * - a custom calendar `calendar.<name>`: the calendar's `quarter` text (`Q1` … `Q4`, case-insensitive) and its
 *   `year` text (the calendar's year: for the demo's retail calendar the fiscal year it ends in); days outside
 *   the calendar's table match nothing.
 */
function namedQuarterCondition(scope: QueryScope, c: LogicalColumn, quarter: 1 | 2 | 3 | 4, year: number | undefined): Cond {
  const x = scope.ts(c);
  const cal = scope.calendar;
  const parts: string[] = [];
  const params: SqlParam[] = [];
  if (cal) {
    parts.push(`upper(${calendarNumberSql(cal, 'quarter', x)}) = ?`);
    params.push(`Q${quarter}`);
  } else {
    parts.push(`${scope.bucketExpr(c, 'quarter of year').expr} = ?`);
    params.push(quarter);
  }
  if (year !== undefined) {
    parts.push(cal ? `${calendarNumberSql(cal, 'year', x)} = CAST(? AS VARCHAR)` : `year(${scope.periodStart('year', x)}) = ?`);
    params.push(year);
  }
  return { sql: `(${parts.join(' AND ')})`, params };
}

/**
 * `last N <unit> for each <period>` (last_n_days_for_each_month.adoc, …): in every period, its last N units
 * (`next`: its first N; `this`: the unit holding the clock's position in the period is not defined, so
 * the first). `sales last 2 days for each month` keeps the last two days of each month.
 */
function forEachCondition(scope: QueryScope, c: LogicalColumn, which: 'this' | 'last' | 'next', n: number, unit: DateUnit, period: DateUnit): Cond {
  const x = scope.ts(c);
  const grain = calendarPeriodOf(scope, period);
  if (grain) {
    // in a custom calendar's periods (its period starts and ends)
    if (calendarPeriodOf(scope, unit)) throw new QueryError(`"${which} ${n} ${unit}s for each ${period}" counts ${unit}s of calendar.${scope.calendar!.name}, which the local emulator does not support; days are supported`);
    const s0 = calendarPeriodStartSql(scope.calendar!, grain, x);
    if (which === 'last') return { sql: `(${x} >= ${calendarPeriodEndSql(scope.calendar!, grain, x)} - ? * INTERVAL 1 ${unit})`, params: [n] };
    return { sql: `(${x} < ${s0} + ? * INTERVAL 1 ${unit})`, params: [n] };
  }
  const start = `date_trunc('${period}', ${x})`;
  if (which === 'last') return { sql: `(${x} >= ${start} + INTERVAL 1 ${period} - ? * INTERVAL 1 ${unit})`, params: [n] };
  return { sql: `(${x} < ${start} + ? * INTERVAL 1 ${unit})`, params: [n] };
}

/** The units that group by a bucket of their own (keywords.ts `UNIT_BUCKETS`: hour … year), smallest first. */
const GRAIN_OF_RANK = DATE_UNITS.filter((u): u is Exclude<DateUnit, 'second' | 'minute'> => UNIT_BUCKETS[u] !== 'detailed');
/** The rank of each grouping bucket and of its unit in `GRAIN_OF_RANK`; a to-date unit compares with the buckets by it. */
const GRAIN_RANK: Partial<Record<DateBucket | DateUnit, number>> = Object.fromEntries(GRAIN_OF_RANK.flatMap((u, i) => [[u, i], [UNIT_BUCKETS[u], i]]));

/**
 * A period-to-date filter under a grouping bucket of the same or a larger grain on its column: "for each
 * period" instead of the current one (docs.thoughtspot.com cloud/latest/keywords-to-date, "Date Bucket Window
 * is Equal-To or Larger than Period-To-Date"). In each period of the largest such bucket it keeps the days
 * whose place matches today's: the same week of the month/quarter/year (weeks from Monday, counted from the
 * week holding the period's first day), the same month or quarter of it, and a day of that week, month,
 * quarter or year up to today's, today included. With `[sales] [date].monthly month to date` on 23
 * September that is days 1 to 23 of every month. Quarters and years follow `calendar.fiscal`. `detailed`
 * and date parts are not grouping buckets here. Returns undefined when the current period applies.
 */
function forEachPeriodCondition(scope: QueryScope, c: LogicalColumn, unit: 'week' | 'month' | 'quarter' | 'year', now: Date, forEach?: DateUnit): Cond | undefined {
  if (forEach && GRAIN_RANK[forEach]! < GRAIN_RANK[unit]!) throw new QueryError(`"${unit} to date for each ${forEach}": a ${forEach} does not hold a ${unit}; write for each ${unit} or a longer period`);
  const ranks = scope.items.filter((x) => !x.measure && x.column?.id === c.id && x.bucket !== undefined).map((x) => GRAIN_RANK[x.bucket!] ?? -1);
  // `for each <period>` written after the to-date keyword counts as a bucket of that period (the FOR EACH the buckets trigger)
  const top = Math.max(-1, ...ranks, forEach ? GRAIN_RANK[forEach]! : -1);
  if (top < GRAIN_RANK[unit]!) return undefined;
  const grain = GRAIN_OF_RANK[top]!;
  const params: SqlParam[] = [];
  /** `f` of the pinned clock, as a scalar subquery binding the clock once. */
  const ofToday = (f: (x: string) => string): string => {
    params.push(tsText(now));
    return `(SELECT ${f('today')} FROM (SELECT CAST(? AS TIMESTAMP) AS today))`;
  };
  const start = (g: (typeof GRAIN_OF_RANK)[number], x: string): string => scope.periodStart(g, x);
  const day = (x: string): string => `date_trunc('day', ${x})`;
  /** Which `unit` of its `grain` period x falls in (0-based). */
  const cal = scope.calendar;
  const index = (x: string): string => {
    // in a custom calendar: the place of x's period in its larger period, counted on the calendar's periods
    if (cal && grain !== 'hour' && grain !== 'day') return `(${x === 'today' ? calendarOrdinalSql(cal, unit, grain, x) : scope.calendarOrdinal(unit, grain, x)} - 1)`;
    switch (unit) {
      case 'week':
        return `datediff('day', date_trunc('week', ${start(grain, x)}), date_trunc('week', ${x})) // 7`;
      case 'month':
        return `datediff('month', ${start(grain, x)}, date_trunc('month', ${x}))`;
      case 'quarter':
        return `datediff('month', ${start(grain, x)}, ${start('quarter', x)}) // 3`;
      case 'year':
        return '0';
    }
  };
  /** Days since the start of x's `unit` period. */
  const offset = (x: string): string => `datediff('day', ${start(unit, x)}, ${day(x)})`;
  const x = scope.ts(c);
  const parts: string[] = [];
  if (grain !== unit) parts.push(`${index(x)} = ${ofToday(index)}`);
  parts.push(`${offset(x)} <= ${ofToday(offset)}`);
  return { sql: `(${parts.join(' AND ')})`, params };
}

/** The output of `growth of [measure] by [date]`: the measure and the bucketed date it grows over. */
interface GrowthItem {
  alias: string;
  name: string;
  measure: Item;
  date: Item;
}

function growthItemOf(scope: QueryScope, growth: Extract<Clause, { kind: 'growth' }>): GrowthItem {
  const d = scope.resolve(growth.by);
  if (!isDate(d.dataType)) throw new QueryError(`growth of … by needs a date column; [${d.name}] is ${d.dataType}`);
  const bucket = growth.bucket ?? scope.bucketOf(growth.by) ?? GROWTH_DEFAULT_BUCKET;
  const date = scope.attributeItem(d, bucket);
  const m = scope.resolve(growth.measure);
  const measure = scope.measureItem(m, scope.defaultAgg(m));
  return { alias: 'g0', name: `Growth of ${measure.name}`, measure, date };
}

/** Layer 1: filter, group, aggregate. Appends the parameters of WHERE and HAVING to `params`. */
function groupedSql(scope: QueryScope, read: ReadClauses, table: string, params: SqlParam[]): string {
  const attrs = scope.items.filter((x) => !x.measure);
  const measures = scope.items.filter((x) => x.measure);
  // the group functions' subqueries stand in FROM, before WHERE: their parameters come first
  const groupJoins = scope.groupJoins.map((j) => groupJoinSql(scope, j, attrs, read.where, table, params)).join('');
  const whereSql = combine(read.where, params);
  const selectList = [...scope.items.map((x) => `${x.expr} AS ${x.alias}`), ...scope.hidden.map((h, i) => `${h} AS k${i}`)];
  let sql = `SELECT ${selectList.join(', ')} FROM ${table} AS ${SOURCE_ALIAS}${scope.calendarJoinSql()}${groupJoins}${whereSql ? ` WHERE ${whereSql}` : ''}`;
  if (measures.length && attrs.length) sql += ` GROUP BY ${attrs.map((a) => a.expr).join(', ')}`;
  else if (!measures.length) sql += ` GROUP BY ${attrs.map((a) => a.expr).join(', ')}`;
  const havingSql = combine(read.having, params);
  if (havingSql) {
    if (!measures.length && !attrs.length) throw new QueryError('An aggregate filter needs columns to group by');
    sql += ` HAVING ${havingSql}`;
  }
  return sql;
}

/**
 * The join of a group function's subquery (formulas-aggregation-flexible.adoc: "The group_* formulas use a
 * sub-query to perform these custom aggregations"): its aggregation per group of its groupings over the
 * rows its filters keep, numbered (`tsq_i`), each row of the data source joined to its group's value
 * (`tsq_v`) by the groupings' values (null matching null). The groupings are `{…}`, or `query_groups ()`:
 * the search's attributes as it groups them, less those whose column a `- {column}` names (its buckets
 * too) or whose SQL a `- {expr}` is, plus the `+ {…}`. The filters are `{…}` conditions, or
 * `query_filters ()`: the search's row filters (not those on aggregates), less those on a `- {column}`,
 * plus the `+ {…}` conditions; a column in a filter list (`{date}`, 9.0.0.cl) takes the search's filters on
 * that column. No groupings: one group. Appends the filters' parameters to `params`.
 */
function groupJoinSql(scope: QueryScope, j: QueryScope['groupJoins'][number], attrs: readonly Item[], where: readonly Cond[], table: string, params: SqlParam[]): string {
  const { groupings, filters } = j.call;
  const removedIds = (items: GroupListItem[]): Set<string | undefined> => new Set(items.map((i) => scope.listColumn(i)?.id).filter((x) => x !== undefined));
  const gone = removedIds(groupings.remove);
  const goneSql = new Set(groupings.remove.map((r) => r.sql));
  const keys = [...new Set([
    ...(groupings.query ? attrs.filter((a) => !gone.has(a.column?.id) && !goneSql.has(a.expr)).map((a) => a.expr) : []),
    ...groupings.add.map((a) => a.sql),
  ])];
  const noFilter = removedIds(filters.remove);
  const conds: Cond[] = [
    ...(filters.query ? where.filter((c) => !noFilter.has(c.column)) : []),
    ...filters.add.flatMap((f) => {
      const c = scope.listColumn(f);
      return c ? where.filter((w) => w.column === c.id) : [{ sql: `(${f.sql})`, params: [] }];
    }),
  ];
  const whereSql = combine([...new Set(conds)], params);
  const select = [...keys.map((k, i) => `${k} AS tsq_k${i}`), `${j.call.aggregate} AS tsq_v`, 'row_number() OVER () AS tsq_i'];
  const sub = `SELECT ${select.join(', ')} FROM ${table} AS ${SOURCE_ALIAS}${scope.calendarJoinSql()}${whereSql ? ` WHERE ${whereSql}` : ''}${keys.length ? ` GROUP BY ${keys.join(', ')}` : ''}`;
  const on = keys.length ? keys.map((k, i) => `${k} IS NOT DISTINCT FROM ${j.alias}.tsq_k${i}`).join(' AND ') : 'TRUE';
  return ` LEFT JOIN (${sub}) AS ${j.alias} ON ${on}`;
}

/** One period back, as a DuckDB interval, per period of a period-over-period keyword (keywords.ts `PERIOD_OVER_PERIOD`). */
const PERIOD_BACK: Record<GrowthPeriod, string> = { year: 'INTERVAL 1 YEAR', quarter: 'INTERVAL 3 MONTH', month: 'INTERVAL 1 MONTH', week: 'INTERVAL 7 DAY', day: 'INTERVAL 1 DAY' };

/**
 * Layer 2: growth (`g0`) over the grouped rows, per combination of the other attributes: (value − previous
 * value) × 100 / previous value, the previous value as it is, negative or not, and null for the first period
 * and after a 0 (docs.thoughtspot.com cloud/latest/search-growth: "the difference … is divided by the value
 * of the earlier date"). Without a period-over-period keyword the previous value is the period before in the
 * series. With one (search-growth, "Display periods (daily) over time": `growth of <measure> by <date>
 * <bucket> <period-over-period>`, the buckets of its table, keywords.ts `PERIOD_OVER_PERIOD`), the same place
 * one period earlier, matched by date, not by position (docs/service-notes.md §2.5; the page says only "the
 * corresponding time period", the rest follows its year-over-year rule):
 * - an hour, day, month or quarter: the bucket's start one period back, when that lands on the same day of the
 *   month (month 2 of Q3 against month 2 of Q2; 31 March month-over-month and 29 February year-over-year have
 *   no corresponding day, so their growth is null);
 * - a week (Monday to Sunday): the week of the same number in the previous period, weeks numbered as ISO 8601
 *   numbers them in a year: a week belongs to the period holding its Thursday, week 1 is the first such week
 *   (ISO weeks for year-over-year; week 5 of a month with five against a month with four is null).
 * A missing earlier period gives null. Throws QueryError for a bucket the keyword cannot follow (the
 * language service's `tsq.periodOverPeriodBucket`, one text) and under a custom calendar.
 */
function growthSql(scope: QueryScope, sql: string, attrs: Item[], growthItem: GrowthItem, periodOverPeriod: PeriodOverPeriod | undefined): string {
  const part = attrs.filter((a) => a !== growthItem.date).map((a) => a.alias);
  const v = growthItem.measure.alias;
  const formula = (cur: string, prev: string): string => `(${cur} - ${prev}) * 100.0 / NULLIF(${prev}, 0)`;
  if (!periodOverPeriod) {
    const w = `OVER (${part.length ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${growthItem.date.alias})`;
    return `SELECT *, ${formula(v, `lag(${v}) ${w}`)} AS g0 FROM (${sql})`;
  }
  const bucket = growthItem.date.bucket ?? 'detailed';
  const wrong = periodOverPeriodBucketError(periodOverPeriod, bucket);
  if (wrong) throw new QueryError(wrong);
  if (scope.calendar) throw new QueryError(`${periodOverPeriod} with calendar.${scope.calendar.name} is not supported by the local emulator (its periods are not Gregorian months apart)`);
  const d = growthItem.date.alias;
  const period = PERIOD_OVER_PERIOD[periodOverPeriod].period;
  const back = PERIOD_BACK[period];
  const same = part.map((a) => `prev.${a} IS NOT DISTINCT FROM cur.${a}`);
  if (bucket !== 'weekly') {
    const target = `(cur.${d} - ${back})`;
    // months of different lengths: a day that the month one period back does not have has no corresponding day
    const sameDay = period === 'day' || period === 'week' ? [] : [`dayofmonth(${target}) = dayofmonth(cur.${d})`];
    const on = [`prev.${d} = ${target}`, ...sameDay, ...same].join(' AND ');
    // one grouped result read twice through a CTE, so that its parameters are bound once
    return `WITH grouped AS (${sql}) SELECT cur.*, ${formula(`cur.${v}`, `prev.${v}`)} AS g0 FROM grouped cur LEFT JOIN grouped prev ON ${on}`;
  }
  // Weekly (period year, quarter or month): the period of a week is the one holding its Thursday; its number
  // counts from the period's first week, the one holding the period's fourth day (ISO 8601's week 1 of a year).
  const ofWeek = scope.periodStart(period as 'year' | 'quarter' | 'month', `(${d} + INTERVAL 3 DAY)`);
  const keyed = `SELECT *, ${ofWeek} AS gp0, datediff('day', date_trunc('week', ${ofWeek} + INTERVAL 3 DAY), ${d}) // 7 AS gn0 FROM grouped`;
  const on = ['prev.gp0 = cur.gp0 - ' + back, 'prev.gn0 = cur.gn0', ...same].join(' AND ');
  return `WITH grouped AS (${sql}), keyed AS (${keyed}) SELECT cur.* EXCLUDE (gp0, gn0), ${formula(`cur.${v}`, `prev.${v}`)} AS g0 FROM keyed cur LEFT JOIN keyed prev ON ${on}`;
}

/**
 * Layer 3: `top N`/`bottom N` (per `for each` group, or overall) and the final order. Rows are ordered by
 * `sort by`, else by the rank of a top, else by the attributes ascending; the other columns break ties.
 */
function orderedSql(sql: string, attrs: Item[], measures: Item[], sorts: SortKey[], top: ReadClauses['top'], rank: string | undefined): { sql: string; order: string[]; topOf?: { sql: string; n: number } } {
  const tie = [...attrs.map((a) => `${a.alias} ASC`), ...measures.map((m) => `${m.alias} ASC`)];
  const sorted = sorts.length ? [...sorts.map((s) => `${s.expr} ${s.dir}`), ...tie] : undefined;
  if (!top) return { sql, order: sorted ?? tie };
  const dir = top.direction === 'top' ? 'DESC' : 'ASC';
  const rankKey = rank ?? (measures[0] ?? attrs[0])!.alias;
  const n = Math.max(0, Math.floor(top.n));
  const forEach = attrs.filter((a) => a.forEach).map((a) => a.alias);
  const rankOrder = [`${rankKey} ${dir} NULLS LAST`, ...tie];
  const limited = forEach.length
    ? `SELECT * FROM (${sql}) QUALIFY row_number() OVER (PARTITION BY ${forEach.join(', ')} ORDER BY ${rankOrder.join(', ')}) <= ${n}`
    : `SELECT * FROM (${sql}) ORDER BY ${rankOrder.join(', ')} LIMIT ${n}`;
  // a top N in its own order: the whole answer is one sort with a limit (`topOf`), not a sort of a sort
  // (an N past 2^53 keeps the old shape, whose LIMIT the engine refuses: a 400 with an incident id)
  const topOf = !forEach.length && !sorted && Number.isSafeInteger(n) ? { sql, n } : undefined;
  return { sql: limited, order: sorted ?? (forEach.length ? [...forEach.map((f) => `${f} ASC`), ...rankOrder] : rankOrder), topOf };
}

/** The parameters of `pageSql` for `limit` rows from row `offset` (0-based), within a top N's N. */
export function pageParams(q: CompiledQuery, limit: number, offset: number): SqlParam[] {
  return [...q.params, q.topN === undefined ? limit : Math.max(0, Math.min(limit, q.topN - offset)), offset];
}

/**
 * The one rule for the columns of an answer (issue 38): a column that stands only in a filter — any filter:
 * `=`, `!=`, a list of values, `>`, `between`, a text operator, a date filter, an `in` subsearch, `near` — is
 * no column of the answer, as the `answer_columns` of the Answer TML that clusters export leave it out
 * (docs/service-notes.md "The columns of an answer"). Only the measure a query compares and lists nothing
 * else for (`[revenue] > 1000 [ship mode] = 'air'`, the Search data API page's own example) is shown,
 * aggregated by its default or by the aggregation written: what such a search measures. [inferred: the page
 * gives the query, not its answer.] A query that then still lists nothing is a `QueryError` saying so.
 */
function listComparedMeasures(scope: QueryScope, clauses: readonly Clause[]): void {
  for (const cl of clauses) {
    if (cl.kind !== 'filter') continue;
    const c = scope.resolve(cl.column);
    if (cl.aggregation) scope.measureItem(c, cl.aggregation);
    else if (c.kind === 'MEASURE' && !scope.bucketOf(cl.column)) scope.measureItem(c, scope.defaultAgg(c));
  }
}

/**
 * A search of attribute filters alone (`[origin] = 'SEA'`, a location filter `[city] near 'seattle'`, the keyword pages' own
 * examples) shows the filtered attributes, each once in the order written: what such a search asks about.
 * [inferred: the exported Answer TML leaves a filter's column out of `answer_columns` in most files, and
 * keeps it in the few whose search lists nothing else; docs/service-notes.md "The columns of an answer".]
 */
function listFilteredAttributes(scope: QueryScope, clauses: readonly Clause[]): void {
  // attributeItem adds a column once, however many filters name it
  for (const cl of clauses) {
    if (cl.kind === 'filter') scope.attributeItem(scope.resolve(cl.column), scope.bucketOf(cl.column));
    else if (cl.kind === 'location' && cl.column) scope.attributeItem(scope.resolve(cl.column), undefined);
  }
}

/** Compiles a query; throws `QueryError` for an unknown column, a misuse, or a keyword not executed. */
export function compileSearch(input: CompileInput): CompiledQuery {
  return input.clauses.some((c) => c.kind === 'versus') ? compileVersus(input) : compileOne(input);
}

/** What a side of a `vs` is made of: filters on one column, or a date filter (`vs last year`). */
type SideClause = FilterClause | Extract<Clause, { kind: 'dateFilter' }>;
type FilterOrVersus = SideClause | Extract<Clause, { kind: 'versus' }>;

/** A side of a `vs` as a label in the API syntax: `[origin] = 'SEA'`, a date filter as written (`[date] last year`), or `all`. */
function sideLabel(side: readonly SideClause[], text: string | undefined): string {
  if (!side.length) return 'all';
  const value = (v: Value): string => (v.kind === 'text' ? `'${v.value}'` : v.kind === 'number' || v.kind === 'boolean' ? v.raw : `{${v.kind}}`);
  return side
    .map((f) => (f.kind === 'filter' ? `[${f.column.name}] ${f.operator} ${f.values.map(value).join(f.operator === 'between' ? ' and ' : ', ')}` : (text?.slice(f.start, f.end).replace(/\s+/g, ' ').trim() ?? 'date filter')))
    .join(' ');
}

/**
 * `vs` / `versus` (vs.adoc) and `vs all` (all.adoc): the run of plain filters on one column (or one date
 * filter: `sales monthly accessory6 vs last year`, thoughtspot.github.io filtered-agg-forms) right before the
 * first `vs` is one side, the run on one column right after each `vs` another (`state name begins_with 'a'
 * state name begins_with 'c' vs state name begins_with 'd'`), `all` a side with no filter of its own; every
 * other clause (other filters included) applies to every side. Each side is answered as the query with its own filters (compiled alone:
 * several `begins with`/`ends with` on one column of a side are OR-ed, as vs.adoc says), and the answers
 * are stacked under a first column `Versus` naming the side (`[origin] = 'SEA'`, a date filter as written, `all`), sides in the order
 * written, rows of a side by their columns ascending. [inferred: the pages give the query, not the answer's
 * shape; docs/service-notes.md §2.3] Throws QueryError when a side has no filter, or on a `vs` inside `in`.
 */
function compileVersus(input: CompileInput): CompiledQuery {
  const cl = input.clauses;
  const first = cl.findIndex((c) => c.kind === 'versus');
  // a side: plain filters on one column, or a date filter (`sales monthly accessory6 vs last year`, GHIO filtered-agg-forms)
  const isFilter = (c: Clause | undefined): c is SideClause => (c?.kind === 'filter' && !c.aggregation) || c?.kind === 'dateFilter';
  const on = (c: SideClause): string => (c.kind === 'filter' ? c.column.name.trim().toLowerCase() : `\u0000date ${c.column?.name.trim().toLowerCase() ?? ''}`);
  let from = first;
  while (isFilter(cl[from - 1]) && (from === first || on(cl[from - 1] as SideClause) === on(cl[first - 1] as SideClause))) from--;
  if (from === first) throw new QueryError('vs needs a filter before it, one side of the comparison: [delay] [origin] = \'SEA\' vs [origin] = \'PDX\'');
  const sides: SideClause[][] = [cl.slice(from, first) as SideClause[]];
  const inSide = new Set<Clause>(cl.slice(from, first));
  for (let k = first; k < cl.length && cl[k]!.kind === 'versus';) {
    const vs = cl[k] as Extract<FilterOrVersus, { kind: 'versus' }>;
    inSide.add(vs);
    let j = k + 1;
    while (isFilter(cl[j]) && (j === k + 1 || on(cl[j] as SideClause) === on(cl[k + 1] as SideClause))) inSide.add(cl[j++]!);
    const side = cl.slice(k + 1, j) as SideClause[];
    if (vs.all && side.length) throw new QueryError('vs all is a whole side: write no filter after all');
    if (!vs.all && !side.length) throw new QueryError('vs needs a filter after it, or all: [origin] = \'SEA\' vs [origin] = \'PDX\'');
    sides.push(side);
    k = j;
  }
  const stray = cl.find((c) => c.kind === 'versus' && !inSide.has(c));
  if (stray) throw new QueryError('Write the sides of a vs together: [origin] = \'SEA\' vs [origin] = \'PDX\' vs all');
  // A date keyword written after a column that is no date (`[delay] last month vs …`) lists that column for
  // every side and, on its own side, filters the data source's date column (as readClauses reads it).
  const scope = new QueryScope(input.columns, input.fiscalYearStartMonth ?? 4, input.tablePaths);
  const listsItsColumn = (c: Clause): c is Extract<Clause, { kind: 'dateFilter' }> & { column: ColumnRef } => c.kind === 'dateFilter' && !!c.column && !isDate(scope.resolve(c.column).dataType);
  const common: Clause[] = [];
  for (const c of cl) {
    if (!inSide.has(c)) common.push(c);
    else if (listsItsColumn(c)) common.push({ kind: 'column', column: c.column, start: c.column.start, end: c.column.end });
  }
  for (const side of sides) side.forEach((c, i) => listsItsColumn(c) && (side[i] = { ...c, column: undefined, start: c.column.end }));
  const params: SqlParam[] = [];
  let shape: CompiledQuery | undefined;
  const parts = sides.map((side, i) => {
    const q = compileOne({ ...input, clauses: [...common, ...side] });
    shape ??= q;
    if (q.columnNames.join('\u0000') !== shape.columnNames.join('\u0000')) throw new QueryError(`The sides of vs answer different columns (${shape.columnNames.join(', ')} / ${q.columnNames.join(', ')}): list the columns to compare`);
    params.push(sideLabel(side, input.text), ...q.params);
    return `SELECT ${i} AS vs_side, CAST(? AS VARCHAR) AS vs_label, ${q.columnNames.map((_, c) => `q.o${c} AS p${c}`).join(', ')} FROM (${q.sql}) q`;
  });
  const names = shape!.columnNames;
  const union = parts.join(' UNION ALL ');
  const outList = ['vs_label AS o0', ...names.map((_, c) => `p${c} AS o${c + 1}`)].join(', ');
  const sql = `SELECT ${outList} FROM (${union}) ORDER BY vs_side, ${names.map((_, c) => `p${c} ASC`).join(', ')}`;
  return {
    sql,
    pageSql: `${sql} LIMIT ? OFFSET ?`,
    countSql: `SELECT count(*) FROM (${union})`,
    params,
    columnNames: ['Versus', ...names],
    columnKinds: ['text', ...shape!.columnKinds],
  };
}

/** Compiles a query with no `vs`. */
function compileOne(input: CompileInput): CompiledQuery {
  const scope = new QueryScope(input.columns, input.fiscalYearStartMonth ?? 4, input.tablePaths);
  applyCalendars(scope, input.clauses, input.calendars ?? DEMO_CALENDARS);
  const read = readClauses(scope, input);
  const growthItem = read.growth ? growthItemOf(scope, read.growth) : undefined;
  for (const cl of read.dateFilters) read.where.push({ ...dateFilterCondition(scope, cl, input.now), column: (cl.column ? scope.resolve(cl.column) : scope.firstDateColumn())?.id });

  // Sorting keys (after the items exist, so `sort by` can name a listed column).
  const sorts: SortKey[] = [];
  for (const cl of input.clauses) {
    if (cl.kind !== 'sort') continue;
    const dir = cl.direction === 'ascending' ? 'ASC' : cl.direction === 'descending' ? 'DESC' : cl.column && scope.resolve(cl.column).kind === 'MEASURE' ? 'DESC' : 'ASC';
    sorts.push({ expr: scope.keyFor(cl.column, cl.aggregation), dir });
  }
  if (scope.items.length === 0) listComparedMeasures(scope, input.clauses);
  if (scope.items.length === 0) listFilteredAttributes(scope, input.clauses);
  if (scope.items.length === 0) throw new QueryError('The query lists no column to show: a column named only in a filter is not a column of the answer (exported Answer TML leaves it out of answer_columns). List the columns to show: [origin] [delay] [origin] = \'SEA\'');
  // `ranked by` may name a measure that is not listed: resolve it before the SELECT list is built.
  const rankedByKey = read.top?.rankedBy ? scope.keyFor(read.top.rankedBy, read.top.rankedByAggregation) : undefined;

  const attrs = scope.items.filter((x) => !x.measure);
  const measures = scope.items.filter((x) => x.measure);
  const ordered = [...attrs, ...measures];
  const params: SqlParam[] = [];
  let sql = groupedSql(scope, read, input.table, params);
  const cols = ordered.map((x) => x.alias);
  const outNames = ordered.map((x) => x.name);
  const outKinds = ordered.map((x) => x.kind);
  if (growthItem) {
    sql = growthSql(scope, sql, attrs, growthItem, read.growth!.periodOverPeriod);
    cols.push('g0');
    outNames.push(growthItem.name);
    outKinds.push('number');
  }
  const last = orderedSql(sql, attrs, measures, sorts, read.top, rankedByKey ?? (growthItem ? 'g0' : undefined));

  const outExpr = (alias: string, kind: OutputKind): string => (kind === 'date' ? `epoch(${alias})` : kind === 'time' ? `CAST(${alias} AS VARCHAR)` : alias);
  const outList = cols.map((a, i) => `${outExpr(a, outKinds[i]!)} AS o${i}`);
  const from = `(${last.sql})`;
  const orderSql = last.order.length ? ` ORDER BY ${last.order.join(', ')}` : '';
  const top = last.topOf;
  return {
    sql: top ? `SELECT ${outList.join(', ')} FROM (${top.sql})${orderSql} LIMIT ${top.n}` : `SELECT ${outList.join(', ')} FROM ${from}${orderSql}`,
    pageSql: `SELECT ${outList.join(', ')} FROM ${top ? `(${top.sql})` : from}${orderSql} LIMIT ? OFFSET ?`,
    countSql: top ? `SELECT least(count(*), ${top.n}) FROM (${top.sql})` : `SELECT count(*) FROM ${from}`,
    topN: top?.n,
    params,
    columnNames: outNames,
    columnKinds: outKinds,
  };
}

/** AND-s conditions, OR-ing those that share a group; appends their parameters in SQL order. */
function combine(conds: Cond[], out: SqlParam[]): string {
  const groups = new Map<string, Cond[]>();
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const c of conds) {
    if (c.group) {
      const g = groups.get(c.group) ?? [];
      g.push(c);
      groups.set(c.group, g);
    }
  }
  for (const c of conds) {
    if (c.group) {
      if (seen.has(c.group)) continue;
      seen.add(c.group);
      const g = groups.get(c.group)!;
      parts.push(`(${g.map((x) => x.sql).join(' OR ')})`);
      for (const x of g) out.push(...x.params);
    } else {
      parts.push(c.sql);
      out.push(...c.params);
    }
  }
  return parts.join(' AND ');
}
