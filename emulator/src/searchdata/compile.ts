/**
 * Compiles a parsed search query (common/src/language/ast.ts) over one data source to DuckDB SQL.
 *
 * Semantics (seed 4.3, 8; field notes 1.2, 2):
 * - Listed attributes and bucketed dates group the rows; listed measures are aggregated (their default
 *   aggregation, SUM unless the catalog says otherwise, or the one written before them). Output columns:
 *   attributes first, then measures, each in query order. Names: attributes as in the catalog (a bucketed
 *   date `Month(date)`, `Day of week(date)`, …); `Total <column>` for SUM, otherwise the aggregation's
 *   name and the column (`Average delay`, `Unique Count origin`, `Max delay`, …).
 * - Filters never add output columns: plain filters act on rows (WHERE), filters written with an
 *   aggregation (`for sum [delay] > 10`) on groups (HAVING). Column names, keywords and text values
 *   match case-insensitively (seed 8.2). Several `begins with` (or `ends with`) on one column are
 *   OR-ed, everything else is AND-ed (field notes 2.4).
 * - Rows are ordered by the attributes ascending, unless `sort by` or `top N`/`bottom N` (ranked by
 *   the first measure or `ranked by`) say otherwise; the remaining columns break ties.
 * - Relative date filters use the pinned clock in UTC; weeks start on Monday; `last N <units>` covers
 *   the N whole units before the current one, `this <unit>` the current one, `<unit> to date` the
 *   current unit up to the end of today.
 * - Date values are `'YYYY-MM-DD'`, `'YYYY-MM-DD HH:MM[:SS]'`, `'MM/DD/YYYY'` (compared by day when no
 *   time is written) or a year (`[date] = 2001`, `after 2000`: compared by year).
 * - Dates come back as epoch seconds (field notes 1.2); date parts (`day of week` 1 = Monday … 7,
 *   `month of year` 1-12, …) as numbers.
 * - Anything not executed (`vs`, `in`, `near`, `for each` on date filters, …) throws a `QueryError`
 *   naming it; nothing is made up. Values are bound parameters and identifiers are quoted.
 */
import type { Aggregation, Clause, ColumnRef, DateBucket, DateUnit, FilterOperator, RelativeDate, Value } from '../../../common/src/language/ast';
import type { ColumnDataType } from '../../../common/src/model';
import type { DefaultAggr, LogicalColumn } from '../catalog';
import { isDate, isNumeric, quoteIdent } from '../engine';

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
}

/** The SQL of a query and how to read its result. */
export interface CompiledQuery {
  /** The whole ordered result: `SELECT o0, o1, … FROM … ORDER BY …`. */
  sql: string;
  /**
   * The same with one page: adds a column `__total` (rows of the whole result) and ends with
   * `LIMIT ? OFFSET ?`; bind `[...params, limit, offset]`.
   */
  pagedSql: string;
  /** One page without the total: `sql` + `LIMIT ? OFFSET ?`; bind `[...params, limit, offset]`. */
  pageSql: string;
  /** The number of rows of the whole result: `SELECT count(*) FROM (…)`; bind `params`. */
  countSql: string;
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
 * The half-open time range `[start, end)` of a relative date filter at `now` (field notes 2.5, 2.6).
 * Throws `QueryError` for forms not executed (`for each`).
 */
export function relativeRange(f: RelativeDate, now: Date): [Date, Date] {
  switch (f.type) {
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

/** Compiles a query; throws `QueryError` for an unknown column, a misuse, or a keyword not executed. */
export function compileSearch(input: CompileInput): CompiledQuery {
  const params: SqlParam[] = [];
  const items: Item[] = [];
  const where: Cond[] = [];
  const having: Cond[] = [];
  const sorts: { expr: string; dir: 'ASC' | 'DESC' }[] = [];
  const hidden: string[] = [];
  let top: Extract<Clause, { kind: 'topBottom' }> | undefined;
  let growth: Extract<Clause, { kind: 'growth' }> | undefined;
  let fiscal = false;
  const fiscalStart = input.fiscalYearStartMonth ?? 4;

  const resolve = (ref: ColumnRef): LogicalColumn => {
    if (!ref.closed) throw new QueryError(`The column [${ref.name} is missing its closing ]`);
    const k = ref.name.trim().toLowerCase();
    const c = input.columns.find((x) => x.name.toLowerCase() === k) ?? input.columns.find((x) => x.synonyms.some((s) => s.toLowerCase() === k));
    if (!c) throw new QueryError(`Unknown column [${ref.name}] in this data source`);
    return c;
  };
  const colSql = (c: LogicalColumn): string => quoteIdent(c.physicalName);
  const ts = (c: LogicalColumn): string => (c.dataType === 'DATE_TIME' ? colSql(c) : `CAST(${colSql(c)} AS TIMESTAMP)`);

  const bucketOf = (ref: ColumnRef): DateBucket | undefined => {
    if (!ref.bucket) return undefined;
    if (!ref.bucket.known) throw new QueryError(`Unknown date bucket .${ref.bucket.name} on [${ref.name}]`);
    return ref.bucket.known;
  };
  const bucketExpr = (c: LogicalColumn, b: DateBucket): { expr: string; kind: OutputKind } => {
    if (!isDate(c.dataType)) throw new QueryError(`The date bucket ${b} needs a date column; [${c.name}] is ${c.dataType}`);
    const x = ts(c);
    const shifted = (unit: string): string => `date_trunc('${unit}', ${x} - INTERVAL ${fiscalStart - 1} MONTH) + INTERVAL ${fiscalStart - 1} MONTH`;
    switch (b) {
      case 'detailed':
        return { expr: colSql(c), kind: 'date' };
      case 'hourly':
        return { expr: `date_trunc('hour', ${x})`, kind: 'date' };
      case 'daily':
        return { expr: `date_trunc('day', ${x})`, kind: 'date' };
      case 'weekly':
        return { expr: `date_trunc('week', ${x})`, kind: 'date' };
      case 'monthly':
        return { expr: `date_trunc('month', ${x})`, kind: 'date' };
      case 'quarterly':
        return { expr: fiscal ? shifted('quarter') : `date_trunc('quarter', ${x})`, kind: 'date' };
      case 'yearly':
        return { expr: fiscal ? shifted('year') : `date_trunc('year', ${x})`, kind: 'date' };
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
        return { expr: fiscal ? `quarter(${x} - INTERVAL ${fiscalStart - 1} MONTH)` : `quarter(${x})`, kind: 'number' };
      case 'hour of day':
        return { expr: `hour(${x})`, kind: 'number' };
    }
  };
  const aggExpr = (agg: Aggregation, c: LogicalColumn): { expr: string; kind: OutputKind } => {
    const numericOnly = agg === 'sum' || agg === 'average' || agg === 'standard deviation' || agg === 'variance';
    if (numericOnly && !isNumeric(c.dataType)) throw new QueryError(`The aggregation ${agg} needs a numeric column; [${c.name}] is ${c.dataType}`);
    const x = colSql(c);
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
  };
  const defaultAgg = (c: LogicalColumn): Aggregation => DEFAULT_AGG[c.aggregation] ?? 'sum';

  const addItem = (it: Omit<Item, 'alias'>): Item => {
    const found = items.find((x) => x.key === it.key);
    if (found) return found;
    const item = { ...it, alias: `c${items.length}` };
    items.push(item);
    return item;
  };
  const attributeItem = (c: LogicalColumn, bucket: DateBucket | undefined, forEach?: boolean): Item => {
    if (bucket) {
      const b = bucketExpr(c, bucket);
      const name = bucket === 'detailed' ? c.name : `${BUCKET_LABELS[bucket]}(${c.name})`;
      return addItem({ name, expr: b.expr, measure: false, kind: b.kind, key: `a:${c.id}:${bucket}`, column: c, bucket, forEach });
    }
    return addItem({ name: c.name, expr: colSql(c), measure: false, kind: kindOf(c.dataType), key: `a:${c.id}`, column: c, forEach });
  };
  const measureItem = (c: LogicalColumn, agg: Aggregation): Item => {
    const a = aggExpr(agg, c);
    return addItem({ name: `${AGG_NAMES[agg]} ${c.name}`, expr: a.expr, measure: true, kind: a.kind, key: `m:${c.id}:${agg}`, column: c, aggregation: agg });
  };

  // Calendars apply to the whole query, wherever they are written.
  for (const cl of input.clauses) {
    if (cl.kind !== 'calendar') continue;
    const n = cl.name.toLowerCase();
    if (n === 'fiscal') fiscal = true;
    else if (n !== 'gregorian' && n !== 'calendar' && n !== 'standard') throw new QueryError(`Unknown calendar ${cl.name}; the emulator knows calendar.gregorian and calendar.fiscal`);
  }

  // Filter target: a column, its bucket, or an aggregate.
  const filterTarget = (cl: Extract<Clause, { kind: 'filter' }>): { expr: string; type: ColumnDataType | 'NUMBER'; c: LogicalColumn } => {
    const c = resolve(cl.column);
    if (cl.aggregation) return { expr: aggExpr(cl.aggregation, c).expr, type: cl.aggregation === 'min' || cl.aggregation === 'max' ? c.dataType : 'NUMBER', c };
    const b = bucketOf(cl.column);
    if (b && b !== 'detailed') {
      const be = bucketExpr(c, b);
      return { expr: be.expr, type: be.kind === 'date' ? 'DATE_TIME' : 'NUMBER', c };
    }
    return { expr: colSql(c), type: c.dataType, c };
  };

  const textOps = new Set<FilterOperator>(['contains', 'not contains', 'begins with', 'not begins with', 'ends with', 'not ends with', 'similar to', 'not similar to']);

  const filterCond = (cl: Extract<Clause, { kind: 'filter' }>): Cond => {
    const { expr, type, c } = filterTarget(cl);
    const op = cl.operator;
    const p: SqlParam[] = [];
    const values = cl.values;
    if (values.length === 0) throw new QueryError(`The filter on [${c.name}] has no value`);
    const isText = type === 'VARCHAR' || type === 'CHAR';
    const isDateT = type === 'DATE' || type === 'DATE_TIME';
    // A value on the right-hand side: returns SQL with `?` and pushes its parameter.
    let dayGranularity = false;
    let yearGranularity = false;
    const rhs = (v: Value): string => {
      if (v.kind === 'null' || v.kind === 'empty') throw new QueryError(`{${v.kind}} can only be used with = and != (on [${c.name}])`);
      if (isText) {
        p.push(v.kind === 'number' ? v.raw : v.value);
        return 'lower(?)';
      }
      if (type === 'NUMBER' || isNumeric(type as ColumnDataType)) {
        const n = v.kind === 'number' ? v.value : Number(v.value.trim());
        if (v.kind === 'text' && (v.value.trim() === '' || !Number.isFinite(n))) throw new QueryError(`'${v.value}' is not a number, and [${c.name}] is numeric`);
        p.push(n);
        return '?';
      }
      if (isDateT) {
        const raw = (v.kind === 'number' ? v.raw : v.value).trim();
        if (/^\d{4}$/.test(raw)) {
          // A year (`[date] = 2001`, `after 2000`) compares the column's year (field notes 2.5).
          yearGranularity = true;
          p.push(Number(raw));
          return '?';
        }
        const d = parseDateValue(raw);
        if (!d) throw new QueryError(`'${v.kind === 'number' ? v.raw : v.value}' is not a date (use 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS', 'MM/DD/YYYY' or a year) for [${c.name}]`);
        p.push(d.hasTime ? d.ts : d.ts.slice(0, 10));
        if (!d.hasTime) {
          dayGranularity = true;
          return 'CAST(? AS DATE)';
        }
        return 'CAST(? AS TIMESTAMP)';
      }
      if (type === 'BOOL') {
        const t = (v.kind === 'number' ? v.raw : v.value).trim().toLowerCase();
        if (!['true', 'false', 't', 'f', 'yes', 'no', '1', '0'].includes(t)) throw new QueryError(`'${t}' is not a boolean for [${c.name}]`);
        p.push(['true', 't', 'yes', '1'].includes(t));
        return '?';
      }
      p.push(v.kind === 'number' ? v.raw : v.value);
      return `CAST(? AS TIME)`;
    };
    if (textOps.has(op)) {
      if (cl.aggregation) throw new QueryError(`${op} cannot be used with an aggregation`);
      const lhs = `lower(CAST(${expr} AS VARCHAR))`;
      const fn: Record<string, string> = { contains: 'contains', 'begins with': 'starts_with', 'ends with': 'ends_with' };
      const base = op.replace(/^not /, '');
      const negated = op.startsWith('not ');
      const parts = values.map((v) => {
        if (v.kind === 'null' || v.kind === 'empty') throw new QueryError(`{${v.kind}} cannot be used with ${op}`);
        p.push(v.kind === 'number' ? v.raw : v.value);
        return base === 'similar to' ? `${lhs} LIKE lower(?)` : `${fn[base]}(${lhs}, lower(?))`;
      });
      const sql = negated ? `(${expr} IS NULL OR NOT (${parts.join(' OR ')}))` : `(${parts.join(' OR ')})`;
      const group = !negated && (base === 'begins with' || base === 'ends with') ? `${base}:${c.id}:${expr}` : undefined;
      return { sql, params: p, group };
    }
    const lhsFor = (): string => {
      if (yearGranularity && (dayGranularity || p.some((x) => typeof x === 'string'))) throw new QueryError(`Compare [${c.name}] with years or with dates, not both`);
      return isText ? `lower(${expr})` : yearGranularity ? `year(${expr})` : dayGranularity ? `CAST(${expr} AS DATE)` : expr;
    };
    if (op === '=' || op === '!=') {
      const parts: string[] = [];
      const rhsList: string[] = [];
      for (const v of values) {
        if (v.kind === 'null') parts.push(op === '=' ? `${expr} IS NULL` : `${expr} IS NOT NULL`);
        else if (v.kind === 'empty') parts.push(op === '=' ? `trim(CAST(${expr} AS VARCHAR)) = ''` : `trim(CAST(${expr} AS VARCHAR)) <> ''`);
        else rhsList.push(rhs(v));
      }
      if (rhsList.length) parts.unshift(`${lhsFor()} ${op === '=' ? 'IN' : 'NOT IN'} (${rhsList.join(', ')})`);
      return { sql: `(${parts.join(op === '=' ? ' OR ' : ' AND ')})`, params: p };
    }
    if (op === 'between') {
      if (values.length !== 2) throw new QueryError(`between needs two values: [${c.name}] between x and y`);
      const a = rhs(values[0]!);
      const b = rhs(values[1]!);
      return { sql: `(${lhsFor()} BETWEEN ${a} AND ${b})`, params: p };
    }
    if (values.length !== 1) throw new QueryError(`${op} takes one value (on [${c.name}])`);
    if ((op === 'after' || op === 'before') && !isDateT) throw new QueryError(`${op} needs a date column; [${c.name}] is ${c.dataType}`);
    const sqlOp = op === 'after' ? '>' : op === 'before' ? '<' : op;
    if (!['<', '<=', '>', '>='].includes(sqlOp)) throw new QueryError(`The operator ${op} is not supported by the emulator`);
    const r = rhs(values[0]!);
    return { sql: `(${lhsFor()} ${sqlOp} ${r})`, params: p };
  };

  let lastDateItem: { item: Item; c: LogicalColumn } | undefined;
  for (const cl of input.clauses) {
    switch (cl.kind) {
      case 'column': {
        const c = resolve(cl.column);
        const bucket = bucketOf(cl.column);
        let it: Item;
        if (cl.aggregation) it = measureItem(c, cl.aggregation);
        else if (c.kind === 'MEASURE' && !cl.by && !bucket && !cl.forEach) it = measureItem(c, defaultAgg(c));
        else it = attributeItem(c, bucket, cl.forEach);
        if (!it.measure && isDate(c.dataType)) lastDateItem = { item: it, c };
        break;
      }
      case 'bucket': {
        if (!lastDateItem) throw new QueryError(`The bucket ${cl.bucket} needs a date column before it`);
        const { item, c } = lastDateItem;
        const b = bucketExpr(c, cl.bucket);
        Object.assign(item, { expr: b.expr, kind: b.kind, bucket: cl.bucket, key: `a:${c.id}:${cl.bucket}`, name: cl.bucket === 'detailed' ? c.name : `${BUCKET_LABELS[cl.bucket]}(${c.name})` });
        break;
      }
      case 'filter': {
        const cond = filterCond(cl);
        (cl.aggregation ? having : where).push(cond);
        break;
      }
      case 'dateFilter': {
        let c: LogicalColumn;
        if (cl.column) c = resolve(cl.column);
        else {
          const d = input.columns.find((x) => isDate(x.dataType));
          if (!d) throw new QueryError('This data source has no date column for a date filter');
          c = d;
        }
        if (!isDate(c.dataType)) throw new QueryError(`Date filters need a date column; [${c.name}] is ${c.dataType}`);
        const [s, e] = relativeRange(cl.filter, input.now);
        where.push({ sql: `(${ts(c)} >= CAST(? AS TIMESTAMP) AND ${ts(c)} < CAST(? AS TIMESTAMP))`, params: [tsText(s), tsText(e)] });
        break;
      }
      case 'topBottom':
        if (top) throw new QueryError('A query can have only one top or bottom');
        top = cl;
        break;
      case 'sort':
        break;
      case 'growth':
        if (growth) throw new QueryError('A query can have only one growth of');
        growth = cl;
        break;
      case 'calendar':
        break;
      case 'keyword':
        throw new QueryError(`The keyword "${cl.keyword}" is not supported by the emulator`);
      case 'error':
        throw new QueryError(`Cannot understand "${cl.text}"`);
    }
  }

  let growthItem: { alias: string; name: string; measure: Item; date: Item } | undefined;
  if (growth) {
    const d = resolve(growth.by);
    if (!isDate(d.dataType)) throw new QueryError(`growth of … by needs a date column; [${d.name}] is ${d.dataType}`);
    const bucket = growth.bucket ?? bucketOf(growth.by) ?? 'monthly';
    const date = attributeItem(d, bucket);
    const m = resolve(growth.measure);
    const measure = measureItem(m, defaultAgg(m));
    growthItem = { alias: 'g0', name: `Growth of ${measure.name}`, measure, date };
  }

  // Sorting keys (after the items exist, so `sort by` can name a listed column).
  const keyFor = (ref: ColumnRef, agg: Aggregation | undefined): string => {
    const c = resolve(ref);
    const b = bucketOf(ref);
    if (agg) {
      const it = items.find((x) => x.key === `m:${c.id}:${agg}`);
      if (it) return it.alias;
      hidden.push(aggExpr(agg, c).expr);
      return `k${hidden.length - 1}`;
    }
    const attr = items.find((x) => !x.measure && x.column?.id === c.id && (b === undefined || x.bucket === b));
    if (attr) return attr.alias;
    const meas = items.find((x) => x.measure && x.column?.id === c.id);
    if (meas) return meas.alias;
    if (c.kind === 'MEASURE') {
      hidden.push(aggExpr(defaultAgg(c), c).expr);
      return `k${hidden.length - 1}`;
    }
    throw new QueryError(`Cannot sort by [${c.name}]: it is an attribute that is not listed in the query`);
  };
  for (const cl of input.clauses) if (cl.kind === 'sort') sorts.push({ expr: keyFor(cl.column, cl.aggregation), dir: cl.direction === 'ascending' ? 'ASC' : cl.direction === 'descending' ? 'DESC' : cl.column && resolve(cl.column).kind === 'MEASURE' ? 'DESC' : 'ASC' });

  if (items.length === 0) throw new QueryError('The query lists no column to show');
  // `ranked by` may name a measure that is not listed: resolve it before the SELECT list is built.
  const rankedByKey = top?.rankedBy ? keyFor(top.rankedBy, undefined) : undefined;

  const attrs = items.filter((x) => !x.measure);
  const measures = items.filter((x) => x.measure);
  const ordered = [...attrs, ...measures];

  // Layer 1: filter, group, aggregate.
  const allParams: SqlParam[] = [];
  const whereSql = combine(where, allParams);
  const selectList = [...items.map((x) => `${x.expr} AS ${x.alias}`), ...hidden.map((h, i) => `${h} AS k${i}`)];
  let sql = `SELECT ${selectList.join(', ')} FROM ${input.table}${whereSql ? ` WHERE ${whereSql}` : ''}`;
  if (measures.length && attrs.length) sql += ` GROUP BY ${attrs.map((a) => a.expr).join(', ')}`;
  else if (!measures.length) sql += ` GROUP BY ${attrs.map((a) => a.expr).join(', ')}`;
  const havingSql = combine(having, allParams);
  if (havingSql) {
    if (!measures.length && !attrs.length) throw new QueryError('An aggregate filter needs columns to group by');
    sql += ` HAVING ${havingSql}`;
  }
  params.push(...allParams);

  // Layer 2: growth (a window over the grouped rows).
  const cols = [...ordered.map((x) => x.alias)];
  const outNames = ordered.map((x) => x.name);
  const outKinds = ordered.map((x) => x.kind);
  if (growthItem) {
    const part = attrs.filter((a) => a !== growthItem!.date).map((a) => a.alias);
    if (growth!.yearOverYear) {
      const b = growthItem.date.bucket;
      const within = b === 'daily' ? `dayofyear(${growthItem.date.alias})` : b === 'weekly' ? `weekofyear(${growthItem.date.alias})` : b === 'monthly' ? `month(${growthItem.date.alias})` : b === 'quarterly' ? `quarter(${growthItem.date.alias})` : undefined;
      if (within) part.push(within);
    }
    const w = `OVER (${part.length ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${growthItem.date.alias})`;
    const v = growthItem.measure.alias;
    sql = `SELECT *, (${v} - lag(${v}) ${w}) * 100.0 / abs(NULLIF(lag(${v}) ${w}, 0)) AS g0 FROM (${sql})`;
    cols.push('g0');
    outNames.push(growthItem.name);
    outKinds.push('number');
  }

  // Default order: attributes ascending, then the other columns (ties broken deterministically).
  const tie = [...attrs.map((a) => `${a.alias} ASC`), ...measures.map((m) => `${m.alias} ASC`)];
  let order: string[];
  if (top) {
    const dir = top.direction === 'top' ? 'DESC' : 'ASC';
    let rank: string;
    if (rankedByKey) rank = rankedByKey;
    else if (growthItem) rank = 'g0';
    else rank = (measures[0] ?? attrs[0])!.alias;
    const n = Math.max(0, Math.floor(top.n));
    const forEach = attrs.filter((a) => a.forEach).map((a) => a.alias);
    const rankOrder = [`${rank} ${dir} NULLS LAST`, ...tie];
    if (forEach.length) sql = `SELECT * FROM (${sql}) QUALIFY row_number() OVER (PARTITION BY ${forEach.join(', ')} ORDER BY ${rankOrder.join(', ')}) <= ${n}`;
    else sql = `SELECT * FROM (${sql}) ORDER BY ${rankOrder.join(', ')} LIMIT ${n}`;
    order = sorts.length ? [...sorts.map((s) => `${s.expr} ${s.dir}`), ...tie] : forEach.length ? [...forEach.map((f) => `${f} ASC`), ...rankOrder] : rankOrder;
  } else {
    order = sorts.length ? [...sorts.map((s) => `${s.expr} ${s.dir}`), ...tie] : tie;
  }

  const outExpr = (alias: string, kind: OutputKind): string => (kind === 'date' ? `epoch(${alias})` : kind === 'time' ? `CAST(${alias} AS VARCHAR)` : alias);
  const outList = cols.map((a, i) => `${outExpr(a, outKinds[i]!)} AS o${i}`);
  const from = `(${sql})`;
  const orderSql = order.length ? ` ORDER BY ${order.join(', ')}` : '';
  return {
    sql: `SELECT ${outList.join(', ')} FROM ${from}${orderSql}`,
    pagedSql: `SELECT ${outList.join(', ')}, count(*) OVER () AS __total FROM ${from}${orderSql} LIMIT ? OFFSET ?`,
    pageSql: `SELECT ${outList.join(', ')} FROM ${from}${orderSql} LIMIT ? OFFSET ?`,
    countSql: `SELECT count(*) FROM ${from}`,
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
