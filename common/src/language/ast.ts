/**
 * The abstract syntax tree of `.tsq` documents and of search query strings (docs/service-interface.md §4.3; the keyword
 * catalogue of docs/service-notes.md section 2).
 *
 * This is the contract between the parser, the language service and the emulator's searchdata, which
 * compiles a `Query` to SQL without re-parsing. Every node carries `start`/`end`: offsets in UTF-16 code
 * units into the text that was parsed (`end` exclusive). For a document these are document offsets; for
 * a lone query string (the emulator) they are offsets into that string.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */

/** A half-open span `[start, end)` of UTF-16 offsets into the parsed text. */
export interface Span {
  start: number;
  end: number;
}

// The unions of the language's words are the keyword catalogue's lists (`typeof LIST[number]`): a keyword
// is added there, once.
import type { Aggregation, DateBucket, DateUnit, DistanceUnit, FilterOperator, PeriodOverPeriod, ToDateUnit } from './keywords';
export type { Aggregation, DateBucket, DateUnit, DistanceUnit, FilterOperator, PeriodOverPeriod, ToDateUnit };

/** A column reference: `[name]`, optionally with a date bucket (`[date].monthly`). */
export interface ColumnRef extends Span {
  kind: 'column';
  /**
   * The name between the brackets, exactly as written (not trimmed, not case-folded). It spans
   * `[start + 1, start + 1 + name.length)`: right after the `[` (no separate span object, one less per
   * column for the tree to hold).
   */
  name: string;
  /** False when the closing `]` is missing. */
  closed: boolean;
  /** The bucket after `.`, when written; `bucketName` keeps the raw text so an unknown bucket can be reported. */
  bucket?: { name: string; known: DateBucket | null } & Span;
}

/**
 * A literal value. `text` is a quoted value ('...'); dates are quoted texts too. In the token form ThoughtSpot
 * writes (`[origin].SEA`, `[date].01/15/2001`, docs/service-notes.md §2.11) the word after the dot is a `text`
 * value too, spanning the word; `boolean` is `true` / `false` written without quotes (`[is delayed] = true`,
 * `[is delayed].true`), `raw` as written.
 */
export type Value =
  | ({ kind: 'text'; value: string; terminated: boolean } & Span)
  | ({ kind: 'number'; value: number; raw: string } & Span)
  | ({ kind: 'boolean'; value: boolean; raw: string } & Span)
  | ({ kind: 'null' } & Span) // {null}
  | ({ kind: 'empty' } & Span); // {empty}

/** A relative date filter (docs/service-notes.md §2.5): `today`, `last 7 days`, `this month`, `2 weeks ago`, `year to date`. */
export type RelativeDate =
  | { type: 'today' }
  | { type: 'yesterday' }
  /** `this|last|next <unit>` (n = 1) or `last|next N <units>`. */
  | { type: 'period'; which: 'this' | 'last' | 'next'; n: number; unit: DateUnit; /** `for each <unit>` after it */ forEach?: DateUnit }
  /** `N <units> ago`. */
  | { type: 'ago'; n: number; unit: DateUnit }
  /**
   * `<unit> to date` (`year to date`, …); `forEach` for `<unit> to date for each <period>` (month_to_date_for_each_quarter.adoc,
   * week_to_date_for_each_month.adoc, …): in every such period, the same window as today's (keywords-to-date "FOR EACH").
   */
  | { type: 'toDate'; unit: ToDateUnit; forEach?: ToDateUnit }
  /**
   * A named date (docs/service-notes.md §2.5; day_name.adoc, january.adoc, month_year_name.adoc): `monday`
   * (`dayOfWeek` 1–7, Monday = 1), `january` (`month` 1–12), `february 2014` (`month` and `year`), a bare
   * year `2014` (`year`), `q1` … `q4` (`quarter` 1–4, of the calendar in force: Gregorian, `calendar.fiscal` or a
   * custom calendar; q1.adoc …) and `q3 2024` (`quarter` and `year`).
   */
  | { type: 'named'; dayOfWeek?: number; month?: number; quarter?: 1 | 2 | 3 | 4; year?: number };

/**
 * One clause of a query, in source order. A query is a flat sequence of clauses; the emulator and the
 * language service read the meaning from their kinds:
 *
 * - `column`: a listed column (an output column), possibly aggregated (`sum [delay]`) and/or bucketed
 *   (`[date].monthly`); `by` when written after the keyword `by`, `forEach` after `for each`.
 * - `filter`: `[col] op values`; never adds an output column. `aggregation` set for aggregate filters
 *   introduced by `for` (`for sum [revenue] > 5000`, acting like HAVING). `dotted` when written in the token
 *   form, a value after the column's dot (`[origin].SEA`: operator `=`, its span the dot's); which reading a
 *   word after the dot has is the column type's (keywords.ts `dotReading`, docs/service-notes.md §2.11).
 * - A column written with its table path (`[flights_1::origin]`, the token form's qualified column) keeps
 *   the whole name; keywords.ts `splitColumnPath` gives the path and the column.
 * - `dateFilter`: a relative date filter, on `column` or (when omitted) on the data source's date column.
 * - `topBottom`: `top N` / `bottom N` (N defaults to 10), optionally `ranked by` a column, aggregated when
 *   `rankedByAggregation` is set (`ranked by count [destination]`).
 * - `sort`: `sort by [col]` with an optional direction; `sort by [date] [date].daily descending` (the token
 *   form) is the column with that bucket.
 * - `growth`: `growth of [measure] by [date]` (+ bucket, + a period-over-period keyword, `periodOverPeriod`:
 *   keywords.ts `PERIOD_OVER_PERIOD` gives its period and the buckets it may follow; search-growth).
 * - `calendar`: `calendar.name`.
 * - `bucket`: a bare bucket keyword (`monthly`) that applies to the previous date column.
 * - `location`: `[column] near 'place'`, `… near 'place' within N miles|km|meters`, `[column] farther than N
 *   miles|km|meters from 'place'` (list-location.adoc): keeps the rows within (or farther than) the
 *   distance from the place, a value of `column`; never adds an output column. `distance` is absent for a
 *   bare `near`; `column` is absent when none was written before the keyword.
 * - `subsearch`: `[column] in (subsearch)` / `[column] not in (subsearch)` (in.adoc, not_in.adoc): keeps the
 *   rows whose `column` value the subsearch's first column returns (or does not); `clauses` is the
 *   subsearch, parsed as a query of the same data source; never adds an output column.
 * - `versus`: `vs` / `versus` (vs.adoc), `all` when `vs all` (all.adoc): the run of filters right before the
 *   first `vs` is one side, the run right after each `vs` another (`all`: the side with no filter of its own).
 * - `keyword`: a catalogue keyword that has no structured form here (`vs`, `all`, `in`, `near`, …); the
 *   emulator answers 400 naming it rather than making up a result.
 * - `error`: text the parser could not make sense of (a diagnostic was reported for it).
 *
 * The spans of a column clause's aggregation keyword (`aggregationStart`/`aggregationEnd`, present with
 * `aggregation`) and of a filter's operator (`operatorStart`/`operatorEnd`) are offsets on the clause,
 * not `Span` objects: a document of thousands of queries holds one object fewer per clause for the
 * garbage collector to copy.
 */
export type Clause =
  | ({ kind: 'column'; column: ColumnRef; aggregation?: Aggregation; aggregationStart?: number; aggregationEnd?: number; by?: boolean; forEach?: boolean } & Span)
  | ({ kind: 'filter'; column: ColumnRef; aggregation?: Aggregation; operator: FilterOperator; operatorStart: number; operatorEnd: number; values: Value[]; dotted?: boolean } & Span)
  | ({ kind: 'dateFilter'; column?: ColumnRef; filter: RelativeDate } & Span)
  | ({ kind: 'topBottom'; direction: 'top' | 'bottom'; n: number; nSpan?: Span; rankedBy?: ColumnRef; rankedByAggregation?: Aggregation } & Span)
  | ({ kind: 'sort'; column: ColumnRef; aggregation?: Aggregation; direction?: 'ascending' | 'descending' } & Span)
  | ({ kind: 'growth'; measure: ColumnRef; by: ColumnRef; bucket?: DateBucket; periodOverPeriod: PeriodOverPeriod | undefined } & Span)
  | ({ kind: 'calendar'; name: string } & Span)
  | ({ kind: 'bucket'; bucket: DateBucket } & Span)
  | ({ kind: 'location'; column?: ColumnRef; relation: 'near' | 'farther'; place: string; distance?: { n: number; unit: DistanceUnit } } & Span)
  | ({ kind: 'subsearch'; column?: ColumnRef; negated: boolean; clauses: Clause[] } & Span)
  | ({ kind: 'versus'; all: boolean } & Span)
  | ({ kind: 'keyword'; keyword: string } & Span)
  | ({ kind: 'error'; text: string } & Span);

/** Severity of a syntax diagnostic found by the parser. */
export type ParseSeverity = 'error' | 'warning';

/** A problem found by the lexer or the parser, with a stable code (see `diagnosticCodes.ts`). */
export interface ParseDiagnostic extends Span {
  code: string;
  message: string;
  severity: ParseSeverity;
}

/** One query: ends at `;`, a blank line or the end of the file. */
export interface Query extends Span {
  kind: 'query';
  /** The query text with comments removed, whitespace runs kept, trimmed: what is sent to searchdata. */
  text: string;
  /** The data source in force (name or GUID from the last `@datasource` before it), or undefined when none was written. */
  dataSource?: string;
  /** The directive that set `dataSource`, if any. */
  dataSourceDirective?: DataSourceDirective;
  clauses: Clause[];
}

/** `@datasource 'name or GUID'`. Applies to every following query until the next directive. */
export interface DataSourceDirective extends Span {
  kind: 'datasource';
  /** The value (unquoted), or undefined when missing. */
  value?: string;
  valueSpan?: Span;
}

/** A `--` comment running to the end of its line. */
export interface Comment extends Span {
  kind: 'comment';
}

/** A parsed `.tsq` document (or, for the emulator, a single query string). */
export interface TsqDocument {
  queries: Query[];
  directives: DataSourceDirective[];
  comments: Comment[];
  /** Lexer and parser diagnostics (syntax only; semantic checks need a catalog and live in validation). */
  diagnostics: ParseDiagnostic[];
}
