/**
 * Makers of the parser's most frequent AST nodes (ast.ts), as constructors instead of object literals.
 * Why: V8 may pretenure the objects of an object-literal allocation site whose objects survive young
 * collections, as a parse tree does; old-generation allocation is slower per object and leaves young
 * children under old parents, so parse times became uneven. Objects made by `new` of a plain function
 * are allocated young (test/bench/parse.bench.ts measures it).
 * Each constructor's prototype is `Object.prototype`: its objects have the same prototype and own
 * properties, in the same order, as the literals they replace; `assert.deepStrictEqual`, spreads and
 * JSON cannot tell them apart. Pure: no `vscode`, no connection, no I/O.
 */
import type { Aggregation, Clause, ColumnRef, Comment, DataSourceDirective, DateBucket, FilterOperator, Query, RelativeDate, Span, Value } from './ast';

type Of<K extends Clause['kind']> = Extract<Clause, { kind: K }>;

/** `init` as a constructor of plain objects (see the file comment). */
function plain<A extends unknown[], T>(init: (this: T, ...args: A) => void): new (...args: A) => T {
  (init as unknown as { prototype: object }).prototype = Object.prototype;
  return init as unknown as new (...args: A) => T;
}

/** `{ start, end }`. */
export const SpanNode = plain(function (this: Span, start: number, end: number) {
  this.start = start;
  this.end = end;
});

/** `{ kind: 'comment', start, end }`. */
export const CommentNode = plain(function (this: Comment, start: number, end: number) {
  this.kind = 'comment';
  this.start = start;
  this.end = end;
});

/** A column reference without a bucket. */
export const ColumnNode = plain(function (this: ColumnRef, name: string, closed: boolean, start: number, end: number) {
  this.kind = 'column';
  this.name = name;
  this.closed = closed;
  this.start = start;
  this.end = end;
});

/** A column reference with its bucket. */
export const BucketedColumnNode = plain(function (this: ColumnRef, name: string, closed: boolean, bucket: NonNullable<ColumnRef['bucket']>, start: number, end: number) {
  this.kind = 'column';
  this.name = name;
  this.closed = closed;
  this.bucket = bucket;
  this.start = start;
  this.end = end;
});

/** The `bucket` of a column reference. */
export const BucketNode = plain(function (this: NonNullable<ColumnRef['bucket']>, name: string, known: DateBucket | null, start: number, end: number) {
  this.name = name;
  this.known = known;
  this.start = start;
  this.end = end;
});

/** A `column` clause with no aggregation and no `by`/`for each`. */
export const ColumnClauseNode = plain(function (this: Of<'column'>, column: ColumnRef, start: number, end: number) {
  this.kind = 'column';
  this.column = column;
  this.start = start;
  this.end = end;
});

/** A `column` clause after `by` (`byNotForEach`) or `for each`, without aggregation. */
export const GroupingClauseNode = plain(function (this: Of<'column'>, column: ColumnRef, byNotForEach: boolean, start: number, end: number) {
  this.kind = 'column';
  this.column = column;
  if (byNotForEach) this.by = true;
  else this.forEach = true;
  this.start = start;
  this.end = end;
});

/** `@datasource`; `value` and `valueSpan` set only when a value was written. */
export const DirectiveNode = plain(function (this: DataSourceDirective, start: number, end: number, value: string | undefined, valueSpan: Span | undefined) {
  this.kind = 'datasource';
  this.start = start;
  this.end = end;
  if (value !== undefined) {
    this.value = value;
    this.valueSpan = valueSpan;
  }
});

/** A `column` clause with an aggregation (no `by`/`for each`). */
export const AggregatedClauseNode = plain(function (this: Of<'column'>, column: ColumnRef, aggregation: Aggregation, aggregationStart: number, aggregationEnd: number, start: number, end: number) {
  this.kind = 'column';
  this.column = column;
  this.aggregation = aggregation;
  this.aggregationStart = aggregationStart;
  this.aggregationEnd = aggregationEnd;
  this.start = start;
  this.end = end;
});

/** A `filter` clause without aggregation. */
export const FilterNode = plain(function (this: Of<'filter'>, column: ColumnRef, operator: FilterOperator, operatorStart: number, operatorEnd: number, values: Value[], start: number, end: number) {
  this.kind = 'filter';
  this.column = column;
  this.operator = operator;
  this.operatorStart = operatorStart;
  this.operatorEnd = operatorEnd;
  this.values = values;
  this.start = start;
  this.end = end;
});

/** A `filter` clause with an aggregation (`for sum [x] > 5`). */
export const AggregatedFilterNode = plain(function (this: Of<'filter'>, column: ColumnRef, aggregation: Aggregation, operator: FilterOperator, operatorStart: number, operatorEnd: number, values: Value[], start: number, end: number) {
  this.kind = 'filter';
  this.column = column;
  this.aggregation = aggregation;
  this.operator = operator;
  this.operatorStart = operatorStart;
  this.operatorEnd = operatorEnd;
  this.values = values;
  this.start = start;
  this.end = end;
});

/** A quoted value (or a bare word taken as one). */
export const TextValueNode = plain(function (this: Extract<Value, { kind: 'text' }>, value: string, terminated: boolean, start: number, end: number) {
  this.kind = 'text';
  this.value = value;
  this.terminated = terminated;
  this.start = start;
  this.end = end;
});

/** A number value (`raw` as written). */
export const NumberValueNode = plain(function (this: Extract<Value, { kind: 'number' }>, value: number, raw: string, start: number, end: number) {
  this.kind = 'number';
  this.value = value;
  this.raw = raw;
  this.start = start;
  this.end = end;
});

/** A `sort` clause; `aggregation` and `direction` set only when given. */
export const SortNode = plain(function (this: Of<'sort'>, column: ColumnRef, aggregation: Aggregation | undefined, direction: 'ascending' | 'descending' | undefined, start: number, end: number) {
  this.kind = 'sort';
  this.column = column;
  if (aggregation !== undefined) this.aggregation = aggregation;
  if (direction !== undefined) this.direction = direction;
  this.start = start;
  this.end = end;
});

/** A `topBottom` clause; `nSpan` set only when N was written. */
export const TopBottomNode = plain(function (this: Of<'topBottom'>, direction: 'top' | 'bottom', n: number, nSpan: Span | undefined, start: number, end: number) {
  this.kind = 'topBottom';
  this.direction = direction;
  this.n = n;
  if (nSpan !== undefined) this.nSpan = nSpan;
  this.start = start;
  this.end = end;
});

/** A `dateFilter` clause; `column` set only when given. */
export const DateFilterNode = plain(function (this: Of<'dateFilter'>, column: ColumnRef | undefined, filter: RelativeDate, start: number, end: number) {
  this.kind = 'dateFilter';
  if (column !== undefined) this.column = column;
  this.filter = filter;
  this.start = start;
  this.end = end;
});

/** A query; `dataSource` and `dataSourceDirective` set only when a directive (with a value) is in force. */
export const QueryNode = plain(function (this: Query, start: number, end: number, text: string, directive: DataSourceDirective | undefined, clauses: Clause[]) {
  this.kind = 'query';
  this.start = start;
  this.end = end;
  this.text = text;
  if (directive !== undefined) {
    if (directive.value !== undefined) this.dataSource = directive.value;
    this.dataSourceDirective = directive;
  }
  this.clauses = clauses;
});
