/**
 * A search query written as ThoughtSpot writes it itself (the `search_query` of an exported Answer TML;
 * docs/service-notes.md §2.11 and "How the service writes a search_query"): filters as tokens after the
 * column's dot (`[origin].SEA`, `[origin] = [origin].SEA [origin].PDX`, `[date].'last 180 days'`), each
 * column by its name in the data source, one space between tokens. Derived from the parsed query (the
 * language core's AST), never from its text: what the writer does not know how to write stays as written,
 * and a written query that does not read back as the same clauses is given back as it was.
 */
import type { Clause, ColumnRef, Query, Value } from '../language/ast';
import { BOOLEAN_VALUES, DATE_BUCKETS, DATE_TYPES, findDateBucket, findKeyword } from '../language/keywords';
import { parseQuery } from '../language/parser';
import type { ColumnDataType } from '../model';

/** A column of the data source a query is written for: its name, the other names it answers to, its data type. */
export interface TokenFormColumn {
  name: string;
  synonyms?: readonly string[];
  /** A relative date is written after the column's dot only on a column known to be a date. */
  dataType?: ColumnDataType;
}

/**
 * The query `text` in the token form: each clause the writer knows written as the service writes it, the
 * rest as written (whitespace runs become one space outside quotes). `columns` gives each column its
 * name in the data source (matched ignoring case, then by synonym; a column it lacks keeps its name as
 * written). A query with a syntax error, or one whose written form would read as other clauses, is
 * given back trimmed and otherwise unchanged. Idempotent: the token form of a token form is itself.
 */
export function tokenForm(text: string, columns: readonly TokenFormColumn[] = []): string {
  const { query, diagnostics } = parseQuery(text);
  if (!query || diagnostics.some((d) => d.severity === 'error')) return text.trim();
  const cols = columnsOf(columns);
  const written = writeQuery(text, query, cols);
  if (written === undefined) return text.trim();
  const again = parseQuery(written);
  if (!again.query || again.diagnostics.some((d) => d.severity === 'error')) return text.trim();
  return meaningOf(again.query.clauses, cols.nameOf) === meaningOf(query.clauses, cols.nameOf) ? written : text.trim();
}

/** The data source's columns as the writer reads them: the name of a reference, and its type when known. */
interface Columns {
  nameOf(name: string): string;
  isDate(name: string): boolean;
}

function columnsOf(columns: readonly TokenFormColumn[]): Columns {
  const find = (name: string): TokenFormColumn | undefined => {
    const k = name.trim().toLowerCase();
    return columns.find((c) => c.name.toLowerCase() === k) ?? columns.find((c) => c.synonyms?.some((s) => s.toLowerCase() === k));
  };
  return { nameOf: (name) => find(name)?.name ?? name, isDate: (name) => { const t = find(name)?.dataType; return t !== undefined && DATE_TYPES.has(t); } };
}

/** The clauses' meaning, spans and spellings aside (a column by its name in the data source): two queries that read the same give the same text. */
function meaningOf(clauses: readonly Clause[], nameOf: (name: string) => string): string {
  const drop = new Set(['start', 'end', 'operatorStart', 'operatorEnd', 'aggregationStart', 'aggregationEnd', 'nSpan', 'raw', 'dotted', 'text']);
  return JSON.stringify(clauses, (k, v: unknown) => (drop.has(k) ? undefined : k === 'name' && typeof v === 'string' ? nameOf(v).trim().toLowerCase() : v));
}

/** A clause written, when it reads back alone as that clause; undefined to keep it as written. */
function checked(text: string, c: Clause, cols: Columns): string | undefined {
  const w = writeClause(text, c, cols);
  if (w === undefined) return undefined;
  const back = parseQuery(w);
  if (!back.query || back.query.clauses.length !== 1 || back.diagnostics.some((d) => d.severity === 'error')) return undefined;
  return meaningOf(back.query.clauses, cols.nameOf) === meaningOf([c], cols.nameOf) ? w : undefined;
}

/** The text between two clauses (or after the last): whitespace runs one space, a comma kept as `, `. */
function gap(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t === '' ? ' ' : t === ',' ? ', ' : ` ${t} `;
}

/** The written query, or undefined when the clauses overlap (the writer then leaves the query as it is). */
function writeQuery(text: string, query: Query, cols: Columns): string | undefined {
  const clauses = [...query.clauses].sort((a, b) => a.start - b.start);
  let out = '';
  let at = clauses[0]?.start ?? query.start;
  for (const [i, c] of clauses.entries()) {
    if (c.start < at) return undefined;
    if (i > 0) out += gap(text.slice(at, c.start));
    out += checked(text, c, cols) ?? text.slice(c.start, c.end);
    at = c.end;
  }
  const tail = text.slice(at, query.end).trim();
  return (tail ? out + gap(tail) + tail : out).trim().replace(/ {2,}/g, ' ');
}

/** `[name]` with its bucket, as the service writes a column: `[date].monthly`, `[date].'day of week'`. */
function columnText(c: ColumnRef, nameOf: (name: string) => string): string | undefined {
  if (!c.closed) return undefined;
  const name = `[${nameOf(c.name)}]`;
  if (!c.bucket) return name;
  if (!c.bucket.known) return undefined;
  return `${name}.${c.bucket.known.includes(' ') ? `'${c.bucket.known}'` : c.bucket.known}`;
}

/** Words that after a dot would read as something other than a value: buckets, booleans, keywords. */
const NOT_A_BARE_VALUE = new Set<string>([...DATE_BUCKETS, ...BOOLEAN_VALUES]);

/** A value as a token after the column's dot: bare when it is one plain word, quoted otherwise. */
function dotValue(v: Value): string | undefined {
  switch (v.kind) {
    case 'number':
    case 'boolean':
      return v.raw;
    case 'null':
      return '{null}';
    case 'empty':
      return '{empty}';
    case 'text': {
      if (!v.terminated || v.value.includes("'")) return undefined;
      const bare = /^[\p{L}\p{N}_/-]+$/u.test(v.value) && !NOT_A_BARE_VALUE.has(v.value.toLowerCase()) && !findKeyword(v.value.toLowerCase()) && !findDateBucket(v.value.toLowerCase());
      return bare ? v.value : `'${v.value}'`;
    }
  }
}

/** A value after an operator that takes no dot tokens (`>`, `contains`, …), as the documented form writes it. */
function literal(v: Value): string | undefined {
  if (v.kind === 'text') return v.terminated && !v.value.includes("'") ? `'${v.value}'` : undefined;
  return dotValue(v);
}

/** One clause as the service writes it, or undefined to keep it as written. */
function writeClause(text: string, c: Clause, cols: Columns): string | undefined {
  const nameOf = cols.nameOf;
  switch (c.kind) {
    case 'column': {
      const col = columnText(c.column, nameOf);
      if (col === undefined) return undefined;
      return `${c.by ? 'by ' : ''}${c.forEach ? 'for each ' : ''}${c.aggregation ? `${c.aggregation} ` : ''}${col}`;
    }
    case 'filter':
      return filterText(c, nameOf);
    case 'dateFilter': {
      if (!c.column || c.column.bucket || !cols.isDate(c.column.name)) return undefined;
      const col = columnText(c.column, nameOf);
      // the phrase as written after the column (`last 180 days`, or `'last 180 days'` after a dot)
      const phrase = text.slice(c.column.end, c.end).trim().replace(/^\./, '').replace(/^'(.*)'$/s, '$1').replace(/\s+/g, ' ').toLowerCase();
      if (col === undefined || phrase === '' || phrase.includes("'")) return undefined;
      return `${col}.'${phrase}'`;
    }
    case 'sort': {
      if (!c.column.closed) return undefined;
      // a bucketed sort column is the column, then its bucket token (`sort by [date] [date].daily`)
      const col = c.column.bucket ? `[${nameOf(c.column.name)}] ${columnText(c.column, nameOf) ?? ''}` : columnText(c.column, nameOf);
      if (col === undefined || col.endsWith(' ')) return undefined;
      return `sort by ${c.aggregation ? `${c.aggregation} ` : ''}${col}${c.direction ? ` ${c.direction}` : ''}`;
    }
    case 'topBottom':
      return c.rankedBy ? undefined : `${c.direction} ${c.n}`;
    default:
      return undefined;
  }
}

/** A filter: `=` of one value a dot token, of several (and `!=`) the operator then dot tokens, `between` of two dot tokens. */
function filterText(c: Extract<Clause, { kind: 'filter' }>, nameOf: (name: string) => string): string | undefined {
  if (c.aggregation || c.column.bucket) return undefined;
  const col = columnText(c.column, nameOf);
  if (col === undefined || c.values.length === 0) return undefined;
  const dots = c.values.map(dotValue);
  if (dots.some((d) => d === undefined)) return undefined;
  const tokens = dots.map((d) => `${col}.${d}`);
  if (c.operator === '=' && tokens.length === 1) return tokens[0];
  // `!=` of {null}/{empty}: an exported file has `[x] != '{null}'`, which TSQ reads as a text; it stays as written
  if (c.operator === '!=' && c.values.some((v) => v.kind === 'null' || v.kind === 'empty')) return undefined;
  if (c.operator === '=' || c.operator === '!=') return `${col} ${c.operator} ${tokens.join(' ')}`;
  if (c.operator === 'between' && tokens.length === 2) return `${col} between ${tokens[0]} and ${tokens[1]}`;
  // another operator keeps its one value as the documented form writes it; several (`or`, `,`) stay as written
  const value = c.values.length === 1 ? literal(c.values[0]!) : undefined;
  return value === undefined ? undefined : `${col} ${c.operator} ${value}`;
}
