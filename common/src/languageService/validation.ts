/**
 * Diagnostics of a `.tsq` document (LSP `doValidation`): the parser's syntax diagnostics, plus semantic
 * checks against the catalog (data sources and columns) when it is known. Without a catalog, or when it
 * cannot answer (not connected, a null or malformed answer, an error), no semantic diagnostic is
 * reported: never a false error. After an edit only the queries it touched are checked again: each
 * query's diagnostics are kept by its part of the syntax tree (`checkQueryKept`, `syntaxChecksKept`)
 * with the answers they came from; the result is always that of a whole validation (test/unit/validationCache.property.test.ts).
 * Pure: no `vscode`, no connection, no I/O (the catalog is injected); the kept checks are weakly held
 * memos of pure functions, not state.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { isKnownDataType, type Column, type DataSource } from '../model';
import type { Clause, ColumnRef, Query, Span, Value } from '../language/ast';
import type { SyntaxDocument } from '../language/parser';
import type { GreenPart } from '../language/tree';
import * as codes from '../language/diagnosticCodes';
import { CALENDAR_TYPES, DATE_TYPES, GROWTH_DEFAULT_BUCKET, KEYWORDS, NUMERIC_TYPES, ORDER_OPERATORS, TEXT_OPERATORS, bucketAppliesTo, bucketsFor, dataSourceDateColumn, dotReading, isCustomCalendarName, isNamedPeriodComparison, isRollingPeriod, locationColumnsOf, periodOverPeriodBucketError, unitAppliesTo } from '../language/keywords';
import { columnsOfPath, indexPaths, pathNameOf } from './tablePaths';
import type { CancellationLike, CatalogProvider, LanguageSettings, ServiceContext } from './types';

/** `data` of a `tsq.unknownColumn` diagnostic: the closest column names, best first (at most 3). */
export interface UnknownColumnData {
  /** The column name as written. */
  column: string;
  /** The data source it was looked up in. */
  dataSource: string;
  /** Closest existing names (edit distance, case-insensitive), best first; may be empty. */
  suggestions: string[];
}

/** Keywords the local emulator does not execute (keywords.ts `emulator`), with their reference page. */
const NOT_IN_EMULATOR = new Map(KEYWORDS.filter((k) => k.emulator === 'unsupported').map((k) => [k.name, k.page]));
const TEXT_OPS = new Set<string>(TEXT_OPERATORS);
const ORDER_OPS = new Set<string>([...ORDER_OPERATORS, 'between']);
/** A column name that is really an expression: a function call or arithmetic (docs/service-interface.md §8.6). */
const FORMULA_RE = /[()]|[^\s]\s*[+*/^]\s*[^\s]|^\s*(if|sum|average|count|max|min|safe_divide|concat|diff_days)\s*\(/i;

/**
 * Computes the diagnostics of a document.
 *
 * - Syntax: every parse diagnostic (codes of diagnosticCodes.ts), severity error or warning.
 * - With a catalog that answers: `tsq.unknownDataSource` (an `@datasource` not among the data sources),
 *   `tsq.noDataSource` (a query with neither `@datasource` nor `settings.defaultDataSource`),
 *   `tsq.unknownColumn` (with `data: UnknownColumnData`), `tsq.ambiguousColumn` (docs/service-interface.md §8.3),
 *   `tsq.bucketOnNonDate`, `tsq.dateFilterOnNonDate` (no date column to apply to), `tsq.severalDateColumns`, `tsq.textOperatorOnNumber`, `tsq.textComparedToNumber`,
 *   `tsq.namedPeriodWithCustomCalendar` (a date ordered against a year under a custom calendar), `tsq.formulaInQuery`
 *   (docs/service-interface.md §8.6).
 * - Without a catalog too: `tsq.notInEmulator` (Information) on a keyword the local emulator does not execute;
 *   `tsq.periodOverPeriodBucket` (Error) on a period-over-period keyword after a bucket it cannot follow;
 *   `tsq.rollingWithCustomCalendar` (Warning) on `last N months` in a query naming a custom calendar.
 * - An `in`/`not in` subsearch is checked as a query of its own on the same data source, every check above
 *   included, its findings at their places inside the parentheses; a `vs` inside it is `tsq.misplacedKeyword` (in.adoc).
 * - Codes listed in `settings.disabledDiagnostics` are dropped.
 * - When `token` is cancelled, answers [] (the caller re-asks).
 *
 * Never throws: a catalog that throws or answers malformed data counts as unknown.
 */
export async function doValidation(ctx: ServiceContext, document: TextDocument, settings: LanguageSettings = {}, token?: CancellationLike): Promise<Diagnostic[]> {
  const doc = ctx.parse(document);
  const out: Diagnostic[] = [];
  const disabled = new Set(Array.isArray(settings.disabledDiagnostics) ? settings.disabledDiagnostics : []);
  const add = (s: Span, code: string, message: string, severity: DiagnosticSeverity, data?: unknown) => {
    if (disabled.has(code)) return;
    const d: Diagnostic = { range: { start: document.positionAt(s.start), end: document.positionAt(s.end) }, severity, code, source: 'tsq', message };
    if (data !== undefined) d.data = data;
    out.push(d);
  };
  for (const p of doc.diagnostics) add(p, p.code, p.message, p.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning);
  const n = doc.queryCount;
  for (let i = 0; i < n; i++) {
    const start = doc.partStart(doc.queryPartIndex(i));
    for (const f of syntaxChecksKept(ctx.memo.validation.keptSyntax, doc, i).found) add({ start: start + f.start, end: start + f.end }, f.code, f.message, f.severity);
  }

  const catalog = ctx.catalog;
  if (!catalog || token?.isCancellationRequested) return token?.isCancellationRequested ? [] : sortByPosition(out);

  // Data sources (directives, queries without one).
  const sources = await catalog.getDataSources(token);
  if (token?.isCancellationRequested) return [];
  const defaultDs = typeof settings.defaultDataSource === 'string' && settings.defaultDataSource.trim() ? settings.defaultDataSource.trim() : undefined;
  if (sources) {
    for (const d of doc.directives) {
      if (d.value === undefined || !d.valueSpan) continue;
      if (!findSource(sources, d.value)) {
        const names = closest(d.value, sources.map((s) => s.name));
        add(d.valueSpan, codes.UNKNOWN_DATA_SOURCE, `Unknown data source "${d.value}": no data source of the connection has this name or GUID.${names.length ? ` Did you mean ${names.map((n) => `'${n}'`).join(', ')}?` : ''}`, DiagnosticSeverity.Error, { dataSource: d.value, suggestions: names });
      }
    }
    for (let i = 0; i < n; i++) {
      if (doc.directiveOf(i)?.value === undefined && !defaultDs) {
        const start = doc.partStart(doc.queryPartIndex(i));
        const first = syntaxChecksKept(ctx.memo.validation.keptSyntax, doc, i).first;
        add({ start: start + first.start, end: start + first.end }, codes.NO_DATA_SOURCE, 'This query has no data source: add a line @datasource \'name or GUID\' above it, or set tsq.defaultDataSource (a query uses exactly one data source, docs/service-interface.md §8.1).', DiagnosticSeverity.Error);
      }
    }
  }

  // Columns, per data source in force.
  // Asked once per data source; no `await` for the others (a tick each, for 2,000 queries).
  const columnsBySource = new Map<string, CheckedColumns | undefined>();
  for (let i = 0; i < n; i++) {
    const ds = doc.directiveOf(i)?.value ?? defaultDs;
    if (!ds) continue;
    let cols = columnsBySource.get(ds);
    if (cols === undefined && !columnsBySource.has(ds)) {
      columnsBySource.set(ds, (cols = await checkedColumns(ctx.memo.validation.indexedColumns, catalog, ds, token)));
      if (token?.isCancellationRequested) return [];
    }
    if (!cols) continue;
    const found = checkQueryKept(ctx.memo.validation.keptChecks, doc, i, ds, cols);
    if (!found.length) continue;
    const start = doc.partStart(doc.queryPartIndex(i));
    for (const f of found) {
      add({ start: start + f.start, end: start + f.end }, f.code, f.message, f.severity, f.data === undefined ? undefined : { ...f.data });
    }
  }
  return sortByPosition(out);
}

/**
 * The checks that need no catalog, on a query's clauses and, as queries of their own, on those of its
 * `in`/`not in` subsearches (`inSubsearch`): a rolling date filter under the (sub)query's custom calendar
 * (`tsq.rollingWithCustomCalendar`), a keyword the local emulator does not execute (`tsq.notInEmulator`), a
 * period-over-period keyword after a bucket it cannot follow, the bucket written or the default one
 * (`tsq.periodOverPeriodBucket`, the emulator's text; keywords.ts `periodOverPeriodBucketError`), and
 * a `vs` inside a subsearch (in.adoc: "vs is not supported", `tsq.misplacedKeyword`; the emulator answers 400).
 */
function checkKeywords(clauses: readonly Clause[], inSubsearch: boolean, add: Add): void {
  const custom = clauses.find((c) => c.kind === 'calendar' && isCustomCalendarName(c.name));
  for (const c of clauses) {
    if (custom && custom.kind === 'calendar' && c.kind === 'dateFilter' && isRollingPeriod(c.filter)) {
      add(c, codes.ROLLING_WITH_CUSTOM_CALENDAR, `A rolling date filter is not supported with the custom calendar ${custom.name} (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations): use this, last or next with one period, N periods ago, or a to-date keyword.`, DiagnosticSeverity.Warning);
    }
    if (c.kind === 'subsearch') checkKeywords(c.clauses, true, add);
    if (c.kind === 'growth' && c.periodOverPeriod) {
      const wrong = periodOverPeriodBucketError(c.periodOverPeriod, c.bucket ?? GROWTH_DEFAULT_BUCKET);
      if (wrong) add(c, codes.PERIOD_OVER_PERIOD_BUCKET, `${wrong}.`, DiagnosticSeverity.Error);
    }
    if (c.kind === 'versus' && inSubsearch) add(c, codes.MISPLACED_KEYWORD, 'vs is not supported inside an in or not in subsearch (in.adoc): compare outside the parentheses.', DiagnosticSeverity.Warning);
    if (c.kind !== 'keyword') continue;
    const page = NOT_IN_EMULATOR.get(c.keyword);
    if (page) add(c, codes.NOT_IN_EMULATOR, `"${c.keyword}" is a keyword of the service (${page}) that is not supported by the local emulator: the emulator answers 400 for this query.`, DiagnosticSeverity.Information);
  }
}

/** Most diagnostics answered for one document (the first ones in document order are kept). */
export const MAX_DIAGNOSTICS = 1000;

/** Diagnostics in document order (stable: equal starts keep their order), at most `MAX_DIAGNOSTICS`. */
function sortByPosition(list: Diagnostic[]): Diagnostic[] {
  return list
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.range.start.line - b.d.range.start.line || a.d.range.start.character - b.d.range.start.character || a.i - b.i)
    .slice(0, MAX_DIAGNOSTICS)
    .map((x) => x.d);
}

type Add = (s: Span, code: string, message: string, severity: DiagnosticSeverity, data?: unknown) => void;

/** Columns of a data source, indexed for the checks. */
interface CheckedColumns {
  /** Lower-case name (and synonyms) → columns. */
  byLower: Map<string, Column[]>;
  names: string[];
  suggestionCache: Map<string, string[]>;
  /** The date column a date keyword without one applies to (keywords.ts `dataSourceDateColumn`). */
  dateColumn: { column: Column | undefined; several: boolean };
  /** Whether the location keywords apply: the data source has latitude and longitude (keywords.ts `locationColumnsOf`). */
  location: boolean;
  /** A model's lower-case `path::column` names → columns (tablePaths.ts `indexPaths`); empty without paths. */
  byPath: Map<string, Column[]>;
  /** A model's `path::column` names, for a did-you-mean on a name with a path. */
  pathNames: string[];
}

/**
 * The indexed columns of each answer, by the identity of its `columns` array: a catalog answers the same
 * array until its cache is dropped (server/src/protocolCatalog.ts: `tsq/catalogChanged`, a new answer
 * after a refresh), so a new array means new columns. Answers are never changed in place.
 */
type IndexedColumns = WeakMap<readonly Column[], CheckedColumns>;

/** The columns of a data source indexed for the checks (`ValidationMemo.indexedColumns`); undefined when unknown, missing or empty. */
async function checkedColumns(indexedColumns: IndexedColumns, catalog: CatalogProvider, ds: string, token?: CancellationLike): Promise<CheckedColumns | undefined> {
  const answer = await catalog.getColumns(ds, token);
  const columns = answer?.columns;
  if (!columns || columns.length === 0) return undefined; // an empty answer says nothing reliable
  let checked = indexedColumns.get(columns);
  if (!checked) indexedColumns.set(columns, (checked = indexColumns(columns)));
  return checked;
}

function indexColumns(columns: readonly Column[]): CheckedColumns {
  const byLower = new Map<string, Column[]>();
  const addKey = (k: string, c: Column) => {
    const l = k.toLowerCase();
    const list = byLower.get(l);
    if (!list) byLower.set(l, [c]);
    else if (!list.includes(c)) list.push(c);
  };
  for (const c of columns) addKey(c.name, c);
  for (const c of columns) for (const s of c.synonyms ?? []) if (!byLower.has(s.toLowerCase())) addKey(s, c);
  const pathNames = columns.map(pathNameOf).filter((n): n is string => n !== undefined);
  return { byLower, names: columns.map((c) => c.name), suggestionCache: new Map(), dateColumn: dataSourceDateColumn(columns), location: !!locationColumnsOf(columns), byPath: indexPaths(columns), pathNames };
}

function findSource(sources: DataSource[], value: string): DataSource | undefined {
  const v = value.toLowerCase();
  return sources.find((s) => s.id.toLowerCase() === v) ?? sources.find((s) => s.name.toLowerCase() === v);
}

/** Every column reference of a clause. */
function refsOf(c: Clause): ColumnRef[] {
  switch (c.kind) {
    case 'column': case 'filter': case 'sort': return [c.column];
    case 'dateFilter': case 'location': return c.column ? [c.column] : [];
    case 'topBottom': return c.rankedBy ? [c.rankedBy] : [];
    case 'growth': return [c.measure, c.by];
    case 'subsearch': return c.column ? [c.column] : []; // its own clauses are checked as a query (checkClauses)
    default: return [];
  }
}

/** A semantic diagnostic of one query, its offsets relative to the query's start. */
interface Found {
  start: number;
  end: number;
  code: string;
  message: string;
  severity: DiagnosticSeverity;
  data?: object;
}

/** The semantic diagnostics of a query, and what they were found from (besides the query itself). */
interface QueryCheck {
  /** The data source in force (it is named in messages and `data`). */
  ds: string;
  /** The indexed columns of the catalog's answer for `ds`. */
  cols: CheckedColumns;
  found: readonly Found[];
}

/**
 * Kept checks by the query's part of the syntax tree (tree.ts `GreenPart`): a reparse keeps the parts
 * of the queries it does not parse again as the same objects (incremental.ts), wherever they moved. A
 * check depends only on the query's clauses relative to its start, its data source in force and the
 * columns answered for it, so a kept check is the check anew while `ds` and `cols` are the same; a new
 * answer (a new `columns` array) is a miss.
 */
type KeptChecks = WeakMap<GreenPart, QueryCheck>;

/** The findings of most queries: none (shared, never changed). */
const NONE: readonly Found[] = [];

/**
 * The semantic diagnostics of query `i` of `doc` (offsets relative to its start, disabled codes not yet
 * dropped), kept per tree part so that after an edit only the queries it touched are checked again (and
 * only their AST is made). Equal to `checkQuery` on the query.
 */
function checkQueryKept(keptChecks: KeptChecks, doc: SyntaxDocument, i: number, ds: string, cols: CheckedColumns): readonly Found[] {
  const part = doc.queryPart(i);
  const kept = keptChecks.get(part);
  if (kept && kept.ds === ds && kept.cols === cols) return kept.found;
  const q = doc.query(i);
  let list: Found[] | undefined;
  checkQuery(q, ds, cols, (s, code, message, severity, data) => {
    const f: Found = { start: s.start - q.start, end: s.end - q.start, code, message, severity };
    if (data !== undefined) f.data = data as object;
    (list ??= []).push(f);
  });
  const found = list ?? NONE;
  keptChecks.set(part, { ds, cols, found });
  return found;
}

/** What a query's own clauses give, without a catalog: its findings and its first clause's span, both relative to its start. */
interface SyntaxCheck {
  found: readonly Found[];
  first: Span;
}

/** `SyntaxCheck`s by tree part (see `KeptChecks`). */
type KeptSyntax = WeakMap<GreenPart, SyntaxCheck>;

/**
 * What validation keeps between the requests of one language service (`ServiceContext.memo`): the
 * indexed columns by answer, and the checks kept by tree part (both WeakMaps: an answer or a part
 * dropped drops its entry). Never shared with another service.
 */
export interface ValidationMemo {
  readonly indexedColumns: IndexedColumns;
  readonly keptChecks: KeptChecks;
  readonly keptSyntax: KeptSyntax;
}

/** An empty `ValidationMemo`, for a new language service. */
export function validationMemo(): ValidationMemo {
  return { indexedColumns: new WeakMap(), keptChecks: new WeakMap(), keptSyntax: new WeakMap() };
}

/**
 * The checks of query `i` that need no catalog (`checkKeywords`), kept per tree part.
 */
function syntaxChecksKept(keptSyntax: KeptSyntax, doc: SyntaxDocument, i: number): SyntaxCheck {
  const part = doc.queryPart(i);
  const kept = keptSyntax.get(part);
  if (kept) return kept;
  const q = doc.query(i);
  let list: Found[] | undefined;
  const add = (s: Span, code: string, message: string, severity: DiagnosticSeverity): void => {
    (list ??= []).push({ start: s.start - q.start, end: s.end - q.start, code, message, severity });
  };
  checkKeywords(q.clauses, false, add);
  const f = q.clauses[0] ?? q;
  const check: SyntaxCheck = { found: list ?? NONE, first: { start: f.start - q.start, end: f.end - q.start } };
  keptSyntax.set(part, check);
  return check;
}

function checkQuery(q: Query, ds: string, cols: CheckedColumns, add: Add): void {
  checkClauses(q.clauses, ds, cols, add);
}

/**
 * The semantic checks of a query's clauses against the columns of its data source; an `in`/`not in`
 * subsearch is checked the same way as a query of its own on the same data source (in.adoc: the subsearch
 * is a search of the data source; the emulator compiles it as one), its findings at their places inside
 * the parentheses.
 */
function checkClauses(clauses: readonly Clause[], ds: string, cols: CheckedColumns, add: Add): void {
  let dateListed = false;
  const custom = clauses.find((c) => c.kind === 'calendar' && isCustomCalendarName(c.name));
  for (const clause of clauses) {
    if (clause.kind === 'subsearch') checkClauses(clause.clauses, ds, cols, add);
    // A bare bucket (`[sales] weekly`, `by week`) buckets the date column listed before it, else the data source's.
    if ((clause.kind === 'dateFilter' && !clause.column) || (clause.kind === 'bucket' && !dateListed)) checkDataSourceDate(clause, ds, cols, add);
    if (clause.kind === 'location' && !cols.location) add(clause, codes.NO_LOCATION_DATA, `"${ds}" has no latitude and longitude columns: ${clause.relation === 'near' ? 'near' : 'farther than'} needs a data source with location data (search-proximity).`, DiagnosticSeverity.Error);
    for (const ref of refsOf(clause)) {
      const col = resolve(ref, ds, cols, add);
      if (!col || !isKnownDataType(col.dataType)) continue;
      if (clause.kind === 'column' && DATE_TYPES.has(col.dataType)) dateListed = true;
      // `[origin].monthly`: on a column no bucket applies to, the word is the token form's value (docs/service-notes.md §2.11)
      const bucketIsValue = clause.kind === 'column' && !clause.aggregation && !clause.by && !clause.forEach && ref === clause.column && !!ref.bucket?.known && !DATE_TYPES.has(col.dataType) && dotReading(ref.bucket.name, ref.bucket.known, col.dataType) === 'value';
      if (ref.bucket?.known && !bucketIsValue && !bucketAppliesTo(ref.bucket.known, col.dataType)) {
        const fits = bucketsFor(col.dataType);
        // a column alone could have read it as its value (the token form): say why neither reading fits
        const asValue = clause.kind === 'column' && !clause.aggregation && !clause.by && !clause.forEach && !DATE_TYPES.has(col.dataType) ? `, nor is "${ref.bucket.name}" a value of [${ref.name}], which would be ${valueKind(col)}` : '';
        add(ref.bucket, codes.BUCKET_ON_NON_DATE, `[${ref.name}] is ${col.dataType}: the date bucket "${ref.bucket.known}" does not apply to it${fits.length ? ` (on ${col.dataType}: ${fits.join(', ')})` : '; date buckets apply to DATE, DATE_TIME or TIME columns'}${asValue}.`, DiagnosticSeverity.Error);
      }
      // A date keyword after a column that is no date applies to the data source's date column (keywords.ts `dataSourceDateColumn`).
      if (clause.kind === 'dateFilter' && !CALENDAR_TYPES.has(col.dataType)) checkDataSourceDate(ref, ds, cols, add);
      else if (clause.kind === 'dateFilter' && (clause.filter.type === 'period' || clause.filter.type === 'ago') && !unitAppliesTo(clause.filter.unit, col.dataType)) {
        add(clause, codes.DATE_FILTER_ON_NON_DATE, `[${ref.name}] is ${col.dataType}: a date filter in ${clause.filter.unit}s needs a DATE_TIME column.`, DiagnosticSeverity.Error);
      }
      if (custom?.kind === 'calendar' && clause.kind === 'filter' && ref === clause.column && !clause.aggregation && CALENDAR_TYPES.has(col.dataType) && isNamedPeriodComparison(clause.operator, clause.values.map(rawValue))) {
        add(clause, codes.NAMED_PERIOD_WITH_CUSTOM_CALENDAR, `Comparing [${ref.name}] with a year by ${clause.operator} is not supported with the custom calendar ${custom.name} (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations: "order date >= august 2025"): compare with a date ('YYYY-MM-DD'), write = with the year, or use a date keyword such as after 12 months ago.`, DiagnosticSeverity.Warning);
      }
      if (clause.kind === 'filter' && ref === clause.column && !clause.aggregation) checkTokenFormValues(clause, ref, col, add);
      if (clause.kind === 'filter' && ref === clause.column && !clause.aggregation && NUMERIC_TYPES.has(col.dataType)) {
        if (TEXT_OPS.has(clause.operator)) {
          add({ start: clause.operatorStart, end: clause.operatorEnd }, codes.TEXT_OPERATOR_ON_NUMBER, `"${clause.operator}" is a text operator, but [${ref.name}] is ${col.dataType}: use =, !=, <, >, between … and … on numbers.`, DiagnosticSeverity.Error);
        } else if (ORDER_OPS.has(clause.operator)) {
          for (const v of clause.values) {
            if (v.kind === 'text') add(v, codes.TEXT_COMPARED_TO_NUMBER, `[${ref.name}] is ${col.dataType} but '${v.value}' is a quoted text: write numbers without quotes.`, DiagnosticSeverity.Warning);
          }
        }
      }
    }
  }
}

/**
 * The token form's values of a filter (docs/service-notes.md §2.11): a word after `[column].` that the
 * column's type cannot hold is neither of the dot's readings (`[date].SEA`: no bucket of the date column,
 * no date), `tsq.unknownBucket` naming both; `true`/`false` without quotes on a column that is no BOOL is
 * a text, to be quoted (`tsq.unknownWord`).
 */
function checkTokenFormValues(clause: Extract<Clause, { kind: 'filter' }>, ref: ColumnRef, col: Column, add: Add): void {
  for (const v of clause.values) {
    if (v.kind === 'boolean' && col.dataType !== 'BOOL') {
      add(v, codes.UNKNOWN_WORD, `[${ref.name}] is ${col.dataType}, not BOOL: ${v.raw} is a text here; write it in single quotes ('${v.raw}').`, DiagnosticSeverity.Warning);
    }
    if (!clause.dotted || (v.kind !== 'text' && v.kind !== 'number' && v.kind !== 'boolean')) continue;
    const word = v.kind === 'text' ? v.value : v.raw;
    if (dotReading(word, null, col.dataType) !== undefined) continue;
    const fits = bucketsFor(col.dataType);
    add(v, codes.UNKNOWN_BUCKET, `[${ref.name}].${word} is neither a date bucket${fits.length ? ` (${fits.slice(0, 6).join(', ')}, …)` : ` ([${ref.name}] is ${col.dataType}: no bucket applies)`} nor a value of [${ref.name}], which would be ${valueKind(col)}.`, DiagnosticSeverity.Error);
  }
}

/** What a value of a column's type looks like after its dot, for a message (keywords.ts `dotReading`). */
function valueKind(col: Column): string {
  if (NUMERIC_TYPES.has(col.dataType)) return 'a number';
  if (col.dataType === 'BOOL') return 'true or false';
  if (CALENDAR_TYPES.has(col.dataType)) return "a date (01/15/2001), a year or a relative date ('last 7 days')";
  return `a ${col.dataType} value`;
}

/** A filter value as written, unquoted (`{null}`/`{empty}`: ''). */
function rawValue(v: Value): string {
  return v.kind === 'number' || v.kind === 'boolean' ? v.raw : v.kind === 'text' ? v.value : '';
}

/** A date keyword that applies to the data source's date column: an error when it has none, a warning when it has several. */
function checkDataSourceDate(at: Span, ds: string, cols: CheckedColumns, add: Add): void {
  const { column, several } = cols.dateColumn;
  if (!column) add(at, codes.DATE_FILTER_ON_NON_DATE, `"${ds}" has no DATE or DATE_TIME column for this date keyword to apply to.`, DiagnosticSeverity.Error);
  else if (several) add(at, codes.SEVERAL_DATE_COLUMNS, `"${ds}" has several date columns: this date keyword applies to the first, [${column.name}]; name the date column before it to choose, e.g. [${column.name}] last 7 days.`, DiagnosticSeverity.Warning);
}

/** Looks a column reference up; reports unknown, ambiguous or formula names. Returns the column when unique. */
function resolve(ref: ColumnRef, ds: string, cols: CheckedColumns, add: Add): Column | undefined {
  if (!ref.closed || ref.name.trim() === '' || /[[\]]/.test(ref.name)) return undefined; // syntax already reported
  // `[airports_2::city]` (the token form's table path, docs/service-notes.md §2.11): on a model the column
  // of that path's column, on a data source without paths the column of that name (tablePaths.ts)
  const byName = cols.byLower.get(ref.name.toLowerCase()) ?? cols.byLower.get(ref.name.trim().toLowerCase());
  const byPath = byName ? undefined : columnsOfPath(ref.name, cols.byPath, (k) => cols.byLower.get(k));
  const matches = byName ?? (byPath?.length ? byPath : undefined);
  // The name spans [start + 1, start + 1 + name.length) (ast.ts ColumnRef).
  const span = ref.name.length > 0 ? { start: ref.start + 1, end: ref.start + 1 + ref.name.length } : ref;
  if (!matches) {
    if (FORMULA_RE.test(ref.name)) {
      add(span, codes.FORMULA_IN_QUERY, `Formulas cannot be defined inside a query (docs/service-interface.md §8.6): create the formula on the data source "${ds}" and use it by name.`, DiagnosticSeverity.Error);
      return undefined;
    }
    let suggestions = cols.suggestionCache.get(ref.name);
    if (!suggestions) cols.suggestionCache.set(ref.name, (suggestions = closest(ref.name, byPath && cols.byPath.size ? cols.pathNames : cols.names)));
    const data: UnknownColumnData = { column: ref.name, dataSource: ds, suggestions };
    add(span, codes.UNKNOWN_COLUMN, `Unknown column [${ref.name}] in "${ds}".${suggestions.length ? ` Did you mean ${suggestions.map((s) => `[${s}]`).join(', ')}?` : ''}`, DiagnosticSeverity.Error, data);
    return undefined;
  }
  if (matches.length > 1) {
    add(span, codes.AMBIGUOUS_COLUMN, `[${ref.name}] matches ${matches.map((c) => `[${c.name}]`).join(', ')} ignoring case; query execution is case-insensitive, so column names must be unique ignoring case (docs/service-interface.md §8.2, 8.3).`, DiagnosticSeverity.Warning);
    return undefined;
  }
  return matches[0];
}

/**
 * The names closest to `word` by case-insensitive edit distance (Levenshtein), best first, at most `max`:
 * a name qualifies when its distance is at most max(2, a third of the longer length), or when one
 * contains the other. Pure; O(names × len²) with early exits.
 */
export function closest(word: string, names: readonly string[], max = 3): string[] {
  const w = word.toLowerCase().trim();
  if (!w) return [];
  const scored: { name: string; d: number }[] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    const limit = Math.max(2, Math.floor(Math.max(n.length, w.length) / 3));
    let d = editDistance(w, n, limit);
    if (d > limit && w.length >= 3 && (n.includes(w) || w.includes(n))) d = limit;
    if (d <= limit) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Levenshtein distance of two strings, or `limit + 1` as soon as it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (a.length > 200 || b.length > 200) return a === b ? 0 : limit + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
