/**
 * Incremental re-parse of a `.tsq` document after an edit: the queries before and after the changed
 * text are taken from the previous parse (those after it with their offsets moved), and only the
 * queries the edit touches are parsed again. Each query is independent (parser.ts: a query ends at `;`,
 * a blank line, a directive or the end of the text), so the result is exactly `parseDocument(text)`.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { Clause, ColumnRef, Comment, DataSourceDirective, ParseDiagnostic, Query, Span, TsqDocument, Value } from './ast';
import { parseDocument, parseWindow } from './parser';

/**
 * Above this many diagnostics in either parse the caps of the lexer and parser (1,000 and 2,000) could
 * make a piecewise parse differ from a whole one, so the whole text is parsed.
 */
const MAX_DIAGNOSTICS_FOR_REUSE = 500;

/**
 * Parses `text` reusing `previous`, the parse of `previousText`. Equal to `parseDocument(text)` (deeply:
 * same nodes, offsets and diagnostics); the nodes of unchanged queries before the edit are the previous
 * parse's own objects, those after it are copies with their offsets moved. Never throws.
 *
 * Cost: the common prefix and suffix of the two texts (a comparison of characters), the parse of the
 * queries the edit touches, and a copy of the queries after it.
 */
export function reparseDocument(previousText: string, previous: TsqDocument, text: string): TsqDocument {
  if (previous.diagnostics.length > MAX_DIAGNOSTICS_FOR_REUSE || previousText.length === 0) return parseDocument(text);
  const oldLen = previousText.length;
  const newLen = text.length;
  const min = Math.min(oldLen, newLen);
  // Whole blocks first (string comparison), then characters.
  let prefix = 0;
  while (prefix + 256 <= min && previousText.slice(prefix, prefix + 256) === text.slice(prefix, prefix + 256)) prefix += 256;
  while (prefix < min && previousText.charCodeAt(prefix) === text.charCodeAt(prefix)) prefix++;
  if (prefix === oldLen && oldLen === newLen) return previous;
  let suffix = 0;
  while (suffix + 256 <= min - prefix && previousText.slice(oldLen - suffix - 256, oldLen - suffix) === text.slice(newLen - suffix - 256, newLen - suffix)) suffix += 256;
  while (suffix < min - prefix && previousText.charCodeAt(oldLen - 1 - suffix) === text.charCodeAt(newLen - 1 - suffix)) suffix++;
  const delta = newLen - oldLen;

  // Start at the last query that starts before the first changed character and begins its line: at a
  // query start nothing of another query is pending, and lexing from a token start gives the same tokens
  // as lexing from 0 only when nothing before it on its line looks ahead past it (an unclosed `[` reads
  // to the line's end, a directive makes the rest of its line one stray token); no token but whitespace
  // looks past a line end. The window stops, for the same reasons, only at queries that begin their line.
  const queries = previous.queries;
  const glued = (q: Query) => gluedAt(previousText, q.start);
  let j = lastBefore(queries, prefix);
  while (j >= 0 && glued(queries[j]!)) j--;
  const from = j >= 0 ? queries[j]!.start : 0;
  const startDirective = j >= 0 ? queries[j]!.dataSourceDirective : undefined;
  if (j < 0) j = 0;

  // Stop at a query of the previous parse that starts in the unchanged suffix, at the same place (moved),
  // with the same directive in force: from there on the tokens, and so the queries, are the same.
  const oldByStart = new Map<number, number>();
  for (let k = j; k < queries.length; k++) if (queries[k]!.start >= oldLen - suffix && !glued(queries[k]!)) oldByStart.set(queries[k]!.start, k);
  const isSync = (offset: number, d: DataSourceDirective | undefined): boolean => {
    const k = oldByStart.get(offset - delta);
    // the query began its line in the previous text; an edit just before it (a line break deleted) may
    // have glued it to a directive's line in this one, where the same tokens mean something else
    if (k === undefined || gluedAt(text, offset)) return false;
    return sameDirective(queries[k]!.dataSourceDirective, d, delta);
  };
  const win = parseWindow(text, from, startDirective, newLen - suffix, isSync);
  if (win.diagnostics.length > MAX_DIAGNOSTICS_FOR_REUSE) return parseDocument(text);

  const oldStop = win.stop < 0 ? oldLen + 1 : win.stop - delta;
  const before = <T extends { start: number }>(xs: T[]) => xs.slice(0, lastBefore(xs, from) + 1);
  const after = <T extends { start: number }>(xs: T[]) => xs.slice(firstAtOrAfter(xs, oldStop));

  // Directives after the window are moved; queries after it point at the moved ones, or at the window's
  // directive in force when theirs was the previous parse's directive in force at the stop.
  const moved = new Map<DataSourceDirective, DataSourceDirective>();
  if (win.stop >= 0) {
    const oldInForce = queries[oldByStart.get(oldStop)!]!.dataSourceDirective;
    if (oldInForce && win.directive) moved.set(oldInForce, win.directive);
  }
  const directivesAfter = after(previous.directives).map((d) => {
    const m = moveDirective(d, delta);
    moved.set(d, m);
    return m;
  });
  const result: TsqDocument = {
    queries: [...before(queries), ...win.queries, ...after(queries).map((q) => moveQuery(q, delta, moved))],
    directives: [...before(previous.directives), ...win.directives, ...directivesAfter],
    comments: [...before(previous.comments), ...win.comments, ...after(previous.comments).map((c): Comment => ({ kind: 'comment', start: c.start + delta, end: c.end + delta }))],
    diagnostics: [...before(previous.diagnostics), ...win.diagnostics, ...after(previous.diagnostics).map((d): ParseDiagnostic => ({ ...d, start: d.start + delta, end: d.end + delta }))],
  };
  if (result.diagnostics.length > MAX_DIAGNOSTICS_FOR_REUSE) return parseDocument(text);
  return result;
}

/** True when something other than whitespace comes before `offset` on its line of `text`. */
function gluedAt(text: string, offset: number): boolean {
  for (let k = offset - 1; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === 10 || c === 13) return false;
    if (c !== 32 && c !== 9 && c !== 11 && c !== 12) return true;
  }
  return false;
}

/** Index of the last element whose `start` is below `offset` (elements sorted by start), or -1. */
function lastBefore(xs: readonly { start: number }[], offset: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]!.start < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Index of the first element whose `start` is at least `offset` (elements sorted by start). */
function firstAtOrAfter(xs: readonly { start: number }[], offset: number): number {
  return lastBefore(xs, offset) + 1;
}

/** The same directive, or the same one moved by `delta` (both undefined included). */
function sameDirective(old: DataSourceDirective | undefined, now: DataSourceDirective | undefined, delta: number): boolean {
  if (old === now) return true;
  if (!old || !now) return false;
  const moved = old.start + delta === now.start;
  const rel = (d: DataSourceDirective) => (d.valueSpan ? `${d.valueSpan.start - d.start}:${d.valueSpan.end - d.start}` : '');
  return (moved || old.start === now.start) && old.end - old.start === now.end - now.start && old.value === now.value && rel(old) === rel(now);
}

function moveDirective(d: DataSourceDirective, delta: number): DataSourceDirective {
  return d.valueSpan
    ? { kind: 'datasource', start: d.start + delta, end: d.end + delta, value: d.value, valueSpan: { start: d.valueSpan.start + delta, end: d.valueSpan.end + delta } }
    : { kind: 'datasource', start: d.start + delta, end: d.end + delta };
}

/** Moved copy → the query node it was first copied from (see `movedFrom`). */
const origins = new WeakMap<Query, Query>();

/**
 * The query node that `query` is a moved copy of (through any number of `reparseDocument`s), or
 * undefined when it was parsed anew. A moved copy equals its origin but for every offset, which differs
 * by `query.start - origin.start`, and its directive node (same value): results that depend only on a
 * query's clauses relative to its start and on its data source can be kept by origin
 * (common/src/languageService/validation.ts does).
 */
export function movedFrom(query: Query): Query | undefined {
  return origins.get(query);
}

/** A copy of a query with every offset moved by `delta`; its directive replaced through `moved`. */
function moveQuery(q: Query, delta: number, moved: Map<DataSourceDirective, DataSourceDirective>): Query {
  const copy = moveQueryNode(q, delta, moved);
  origins.set(copy, origins.get(q) ?? q);
  return copy;
}

function moveQueryNode(q: Query, delta: number, moved: Map<DataSourceDirective, DataSourceDirective>): Query {
  const clauses = new Array<Clause>(q.clauses.length);
  for (let k = 0; k < clauses.length; k++) clauses[k] = moveClause(q.clauses[k]!, delta);
  const start = q.start + delta;
  const end = q.end + delta;
  const d = q.dataSourceDirective;
  if (!d) return { kind: 'query', start, end, text: q.text, clauses };
  const directive = moved.get(d) ?? d;
  if (q.dataSource === undefined) return { kind: 'query', start, end, text: q.text, dataSourceDirective: directive, clauses };
  return { kind: 'query', start, end, text: q.text, dataSource: q.dataSource, dataSourceDirective: directive, clauses };
}

const moveSpan = (s: Span, delta: number): Span => ({ start: s.start + delta, end: s.end + delta });

function moveColumn(c: ColumnRef, delta: number): ColumnRef {
  const out: ColumnRef = { kind: 'column', name: c.name, closed: c.closed, start: c.start + delta, end: c.end + delta };
  if (c.bucket) out.bucket = { name: c.bucket.name, known: c.bucket.known, start: c.bucket.start + delta, end: c.bucket.end + delta };
  return out;
}

function moveValue(v: Value, delta: number): Value {
  switch (v.kind) {
    case 'text': return { kind: 'text', value: v.value, terminated: v.terminated, start: v.start + delta, end: v.end + delta };
    case 'number': return { kind: 'number', value: v.value, raw: v.raw, start: v.start + delta, end: v.end + delta };
    default: return { kind: v.kind, start: v.start + delta, end: v.end + delta };
  }
}

/** A copy of a clause with its offsets moved by `delta` (its optional properties only when present). */
function moveClause(c: Clause, delta: number): Clause {
  const start = c.start + delta;
  const end = c.end + delta;
  switch (c.kind) {
    case 'column': {
      const out: Clause = { kind: 'column', column: moveColumn(c.column, delta), start, end };
      if (c.aggregation !== undefined) out.aggregation = c.aggregation;
      if (c.aggregationStart !== undefined) out.aggregationStart = c.aggregationStart + delta;
      if (c.aggregationEnd !== undefined) out.aggregationEnd = c.aggregationEnd + delta;
      if (c.by !== undefined) out.by = c.by;
      if (c.forEach !== undefined) out.forEach = c.forEach;
      return out;
    }
    case 'filter': {
      const values = new Array<Value>(c.values.length);
      for (let k = 0; k < values.length; k++) values[k] = moveValue(c.values[k]!, delta);
      const out: Clause = { kind: 'filter', column: moveColumn(c.column, delta), operator: c.operator, operatorStart: c.operatorStart + delta, operatorEnd: c.operatorEnd + delta, values, start, end };
      if (c.aggregation !== undefined) out.aggregation = c.aggregation;
      return out;
    }
    case 'dateFilter':
      return c.column ? { kind: 'dateFilter', column: moveColumn(c.column, delta), filter: c.filter, start, end } : { kind: 'dateFilter', filter: c.filter, start, end };
    case 'topBottom': {
      const out: Clause = { kind: 'topBottom', direction: c.direction, n: c.n, start, end };
      if (c.nSpan) out.nSpan = moveSpan(c.nSpan, delta);
      if (c.rankedBy) out.rankedBy = moveColumn(c.rankedBy, delta);
      return out;
    }
    case 'sort': {
      const out: Clause = { kind: 'sort', column: moveColumn(c.column, delta), start, end };
      if (c.aggregation !== undefined) out.aggregation = c.aggregation;
      if (c.direction !== undefined) out.direction = c.direction;
      return out;
    }
    case 'growth': {
      const out: Clause = { kind: 'growth', measure: moveColumn(c.measure, delta), by: moveColumn(c.by, delta), yearOverYear: c.yearOverYear, start, end };
      if (c.bucket !== undefined) out.bucket = c.bucket;
      return out;
    }
    case 'subsearch': {
      const inner = new Array<Clause>(c.clauses.length);
      for (let k = 0; k < inner.length; k++) inner[k] = moveClause(c.clauses[k]!, delta);
      return c.column ? { ...c, column: moveColumn(c.column, delta), clauses: inner, start, end } : { ...c, clauses: inner, start, end };
    }
    case 'location':
      return c.column ? { ...c, column: moveColumn(c.column, delta), start, end } : { ...c, start, end };
    default:
      // calendar, bucket, keyword, error: no nested offsets.
      return { ...c, start, end };
  }
}
