/**
 * The `.tsq` parser: splits a document into `@datasource` directives, trivia and queries (ended by `;`, a
 * blank line or the end of the file), writing the lossless tree of tree.ts (`SyntaxDocument`); each query's
 * clauses (ast.ts) come from one grammar (grammar.ts, which dispatches `ClauseParser`, its one writer), with error recovery:
 * written as nodes at parse time straight from the lexer's arrays, as objects on demand (`SyntaxDocument.query`).
 * - A relative date right after a plain column (not after `by` or `for each`) filters that column:
 *   `[date] last 7 days` is one `dateFilter` on [date]. Elsewhere it stands alone (no `column`).
 * - `ranked by [col]` attaches to the query's `top`/`bottom`; without one it is a `keyword` clause.
 * - An aggregation before a column makes a `column` clause (a `filter` with `aggregation` when an
 *   operator follows); `for` itself makes no clause.
 * - A bare word in value position is a text value (with a `tsq.unknownWord` warning). Pure, never throws.
 */
import type {
  Clause, ColumnRef, Comment, DataSourceDirective, DateBucket, DateUnit,
  ParseDiagnostic, Query, RelativeDate, Span, ToDateUnit, TsqDocument, Value,
} from './ast';
import { expectOneOf, isOneOf, keysOf } from '../guards';
import * as codes from './diagnosticCodes';
import { SEARCH_GRAMMAR, type ProductionName } from './grammar';
import {
  AGGREGATIONS, DATE_BUCKETS, DATE_UNITS, DAY_NAMES, DISTANCE_UNITS, FILTER_OPERATORS, KEYWORDS, MONTH_NAMES, PERIOD_FUNCTIONS, PERIOD_OVER_PERIOD, QUARTER_NAMES, TO_DATE, UNIT_BUCKETS, WORD_OPERATORS, booleanOf as importedBooleanOf,
  findDateBucket as importedFindDateBucket, findKeyword,
} from './keywords';
import * as lexer from './lexer';
import type { Token } from './lexer';
import * as nodes from './nodes';
import * as tree from './tree';

// The node constructors as module-local constants: where the modules are loaded as CommonJS (tsx, the
// tests and benchmarks), every use of an imported name is a call of an export getter, which was 8% of a
// parse.
const {
  AggregatedClauseNode, AggregatedFilterNode, BucketNode, BucketedColumnNode, ColumnClauseNode, ColumnNode, CommentNode,
  DateFilterNode, DirectiveNode, FilterNode, GroupingClauseNode, NumberValueNode, QueryNode, SortNode, SpanNode, TextValueNode, TopBottomNode,
} = nodes;
const { GreenBuffer, GreenPart, NK, NODE_KINDS, TK, PART, codeOf, tokenOf } = tree;
const { KEYWORD_ID_COUNT, Lexer, NUMBER_DIGITS, NUMBER_YEAR, QueryEnds, WIDTH_ESCAPE, keywordId, keywordName, tokenEstimate, tokenize } = lexer;
// the same for the keyword functions the clause parser calls per token
const booleanOf = importedBooleanOf, findDateBucket = importedFindDateBucket;
const QUERY_PART = PART.query, DIRECTIVE_PART = PART.directive, TRIVIA_PART = PART.trivia;
type GreenBuffer = tree.GreenBuffer;
type GreenPart = tree.GreenPart;

/** Upper bound on diagnostics kept per document (the rest are dropped; a 10 MB file of garbage stays usable). */
export const MAX_PARSE_DIAGNOSTICS = 2000;
/**
 * How deep subsearches (`[a] in ( [b] in ( … ) )`) nest before the parser stops reading inside (a
 * `tsq.nestingTooDeep` diagnostic on the `in` of level `MAX_SUBSEARCH_DEPTH + 1`): the tree, and so every
 * reader recursing over it (validation, hover, semantic tokens, formatting, the emulator's compiler),
 * is at most this deep, whatever the text. No query written by hand comes near it.
 */
export const MAX_SUBSEARCH_DEPTH = 100;

const AGGREGATION_SET = new Set<string>(AGGREGATIONS);
const BUCKET_SET = new Set<string>(DATE_BUCKETS);
/** Whether `name` is a date bucket's canonical name (a set's look-up, for the parser's hot paths). */
const isBucket = (name: string): name is DateBucket => BUCKET_SET.has(name);
const WORD_OPERATOR_SET = new Set<string>(WORD_OPERATORS);
const UNITS = new Set<string>(DATE_UNITS);
/** Whether `name` is a relative date's unit (`day`, not `days`: a keyword's canonical name). */
const isUnit = (name: string): name is DateUnit => UNITS.has(name);
const DISTANCE_UNIT_NAMES = keysOf(DISTANCE_UNITS);
const PERIOD_OVER_PERIOD_NAMES = keysOf(PERIOD_OVER_PERIOD);
const PERIOD_OVER_PERIOD_SET = new Set<string>(Object.keys(PERIOD_OVER_PERIOD));
const TO_DATE_UNITS = new Map<string, ToDateUnit>(Object.entries(TO_DATE));
/** The to-date units, smallest first (the catalogue's order): `for each` after a to-date takes one as long or longer. */
const TO_DATE_PERIODS: readonly ToDateUnit[] = Object.values(TO_DATE);
const PERIODS = new Map<string, DateBucket>(Object.entries(PERIOD_FUNCTIONS));
const DAYS = new Map<string, number>(DAY_NAMES.map((d, i) => [d, i + 1]));
const MONTHS = new Map<string, number>(MONTH_NAMES.map((m, i) => [m, i + 1]));
const QUARTERS = new Map<string, 1 | 2 | 3 | 4>(QUARTER_NAMES.map((q, i) => [q, (i + 1) as 1 | 2 | 3 | 4]));
/** Keywords that take a parenthesised argument: `in (subsearch)`, the period functions (`month of quarter (date)`). */
const PAREN_KEYWORDS = new Set<string>([...KEYWORDS.filter((k) => k.category === 'in').map((k) => k.name), ...PERIODS.keys()]);
/** The distance units of `within N …` and `farther than N …` (keywords.ts `DISTANCE_UNITS`). */
const DISTANCE_UNIT_SET = new Set<string>(Object.keys(DISTANCE_UNITS));
/** Keywords the local emulator does not execute (keywords.ts `emulator`). */
const UNSUPPORTED = new Set<string>(KEYWORDS.filter((k) => k.emulator === 'unsupported').map((k) => k.name));

/** The productions a keyword / a token kind starts, in the grammar's order (grammar.ts: the parser's only dispatch). */
const PRODUCTIONS_BY_KEYWORD = SEARCH_GRAMMAR.byKeyword;
const PRODUCTIONS_BY_TOKEN = SEARCH_GRAMMAR.byToken;

/** Skips comments and blank-line tokens (what a query's clauses are made of). */
const isTrivia = (t: Token) => t.kind === 'comment' || t.kind === 'blank';

/**
 * Parses a whole `.tsq` document into its lossless syntax tree (tree.ts), as a `SyntaxDocument`.
 *
 * - `@datasource value` lines are directives; each applies to the following queries until the next one.
 * - Queries end at `;`, a blank line, a directive or the end of the text; `Query.text` is the query's own
 *   text with comments removed, trimmed.
 * - `diagnostics` holds every lexer and parser problem (syntax only), at most `MAX_PARSE_DIAGNOSTICS`.
 *
 * @param text the document text. Never throws.
 */
export function parseDocument(text: string): SyntaxDocument {
  const diagnostics: ParseDiagnostic[] = [];
  const lexer = new Lexer(text, diagnostics);
  const builder = new TreeBuilder(text, diagnostics, 0, tokenEstimate(text.length));
  // The lexer writes a chunk of tokens straight into the tree's buffer; the builder then cuts them into
  // parts and parses each query as it ends (no token objects).
  while (!lexer.done) {
    lexer.scanInto(builder.buf, 16384, builder.marks);
    builder.consume(Infinity, undefined);
  }
  const parts = builder.finish(text.length);
  return new SyntaxDocument(text, parts, diagnostics.length, builder.widths(text.length), builder.kinds());
}

/**
 * Same as `parseDocument`, from tokens already made by `tokenize(text, diagnostics)`. `diagnostics`
 * receives the parser's problems too.
 */
export function parseTokens(text: string, tokens: Token[], diagnostics: ParseDiagnostic[]): SyntaxDocument {
  const builder = new TreeBuilder(text, diagnostics, 0, tokens.length * 2);
  const buf = builder.buf;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.start > buf.end) buf.addToken(WHITESPACE, t.start - buf.end, 0);
    const code = codeOf(t);
    const idx = buf.addToken(code & 255, t.end - t.start, code >>> 8);
    buf.end = t.end;
    if (t.kind === 'semicolon' || t.kind === 'blank' || t.kind === 'directive') builder.marks.add(idx, t.start, t.end);
  }
  builder.consume(Infinity, undefined);
  const parts = builder.finish(text.length);
  return new SyntaxDocument(text, parts, diagnostics.length, builder.widths(text.length), builder.kinds());
}

/** What `parseParts` found between its start and where it stopped. */
export interface ParsedParts {
  /**
   * The parts from the start to `stop` (or to the end), in a buffer of their own; undefined for a trivia
   * part between two parts of the list (`SyntaxDocument.slots`).
   */
  parts: (GreenPart | undefined)[];
  /** Each part's width (UTF-16 code units). */
  widths: Uint32Array;
  /** Each part's `PartKind`. */
  kinds: Uint8Array;
  /** How many diagnostics the parts hold. */
  diagnosticCount: number;
  /** Offset of the first token not parsed (a query start accepted by `isSync`), or -1 when it reached the end. */
  stop: number;
}

/**
 * Parses part of a document into parts of the tree, for an incremental reparse (incremental.ts
 * `reparseDocument`): from `from`, which must be the start of a query of an earlier parse of a text equal
 * up to and including `from`'s character (or 0); stops before the first token at or after `syncFrom` that
 * starts a query (nothing of another query pending) and that `isSync(offset)` accepts. The parts are
 * exactly those `parseDocument(text)` gives in the same range, except when a diagnostic cap
 * (`MAX_PARSE_DIAGNOSTICS`, the lexer's) is reached: the caller checks the count. Never throws.
 */
export function parseParts(text: string, from: number, syncFrom: number, isSync: (offset: number) => boolean): ParsedParts {
  const diagnostics: ParseDiagnostic[] = [];
  const lexer = new Lexer(text, diagnostics, from);
  const builder = new TreeBuilder(text, diagnostics, from, 64);
  let stop = -1;
  while (!lexer.done) {
    // Small chunks: the lexer scans past the stop by up to one chunk (the builder drops those tokens).
    lexer.scanInto(builder.buf, 64, builder.marks);
    stop = builder.consume(syncFrom, isSync);
    if (stop >= 0) break;
  }
  if (stop >= 0) {
    // the lexer scans ahead: its problems past the stop belong to parts kept from the previous parse
    let w = 0;
    for (let k = 0; k < diagnostics.length; k++) if (diagnostics[k]!.start < stop) diagnostics[w++] = diagnostics[k]!;
    diagnostics.length = w;
  }
  const end = stop < 0 ? text.length : stop;
  const parts = builder.finish(end);
  return { parts, widths: builder.widths(end), kinds: builder.kinds(), diagnosticCount: diagnostics.length, stop };
}

/**
 * Cuts the tokens the lexer writes into a `GreenBuffer` (whitespace between them included, as `whitespace`
 * tokens) into parts (queries, directives, trivia); each query's tokens are parsed into clauses when it
 * ends and written as its nodes by `ClauseParser` (the one grammar), straight from the typed arrays.
 */
class TreeBuilder {
  readonly buf: GreenBuffer;
  /** The parts made, undefined for a trivia part between two parts (see `SyntaxDocument.slots`). */
  private readonly parts: (GreenPart | undefined)[] = [];
  /**
   * Absolute start and `PartKind` of each part of `parts`, in typed arrays grown by doubling (not in the
   * heap: a parse of 1 MB makes about 19,000 parts, and lists of numbers grown one push at a time were a
   * tenth of its garbage).
   */
  private partStarts = new Uint32Array(64);
  private partKinds = new Uint8Array(64);
  private readonly sink: DiagnosticSink;
  private readonly parser: ClauseParser;
  /** The current query's significant tokens, as `ClauseParser` reads them (reused). */
  private readonly q = new QueryTokens();
  /**
   * The tokens that end a query (`;`, blank lines, directives) the lexer appended since the last `consume`,
   * as `[index, start, end]` triples (lexer.ts `Lexer.scanInto`).
   */
  readonly marks = new QueryEnds();
  /** The pending query's first significant token (-1 while none is known) and its start. */
  private first = -1;
  private firstPos = 0;
  /** How far the search for `first` went (and its start): the tokens before it are whitespace and comments. */
  private walk = 0;
  private walkPos: number;
  /** The query start `isSync` was last asked about (each start is asked once). */
  private asked = -1;
  /** Where a `parseParts` window stopped (-1 while it did not). */
  private stopPos = -1;
  /** First token of the part not yet closed, and its absolute start. */
  private partTok = 0;
  private partPos: number;
  /** The `buf` indices of the current query's significant tokens, made only when `ClauseParser` parses it (grown as needed). */
  private index = new Uint32Array(64);
  /** The current query's first token and its start; the token after its last significant one, and that one's end. */
  private queryTok = 0;
  private queryPos = 0;
  private lastTok = 0;
  private lastEnd = 0;

  constructor(private readonly text: string, private readonly diagnostics: ParseDiagnostic[], from: number, tokens: number) {
    this.buf = new GreenBuffer(tokens, from);
    this.sink = new DiagnosticSink(diagnostics);
    this.q.text = text;
    this.parser = new ClauseParser(this.sink, this.q, this.buf, false);
    this.walkPos = from;
    this.partPos = from;
  }

  /**
   * Cuts the tokens appended to `buf` since the last call into parts, at the marks the lexer left
   * (`marks`): each mark ends the query before it, if any (its nodes written), and a directive is a part of
   * its own; tokens after the last mark wait for the next one. With `isSync`, stops before the first query
   * starting at or after `syncFrom` that `isSync(start)` accepts (`parseParts`): drops it and the tokens
   * after it from `buf` and returns its start; else -1.
   */
  consume(syncFrom: number, isSync: ((offset: number) => boolean) | undefined): number {
    const marks = this.marks;
    const buf = this.buf;
    for (let m = 0; m < marks.length; m += 3) {
      const data = marks.data;
      const t = data[m]!;
      const start = data[m + 1]!;
      const end = data[m + 2]!;
      this.findFirst(t);
      if (this.first >= 0) {
        if (isSync && this.synced(syncFrom, isSync)) {
          marks.length = 0;
          return this.stopAt();
        }
        this.endQuery(t, start);
      }
      if (buf.kinds[t] === K_DIRECTIVE) {
        this.closeTrivia(t, start, true);
        this.push(DIRECTIVE_PART, t, t + 1, buf.nodeCount, start);
        this.partTok = t + 1;
        this.partPos = end;
      }
      this.walk = t + 1;
      this.walkPos = end;
    }
    marks.length = 0;
    if (isSync) {
      // the pending query's start, asked about as soon as it is scanned (the lexer stops soon after)
      this.findFirst(buf.tokenCount);
      if (this.first >= 0 && this.synced(syncFrom, isSync)) return this.stopAt();
    }
    return -1;
  }

  /** Looks for the pending query's first significant token before token `limit` (from where the last look stopped). */
  private findFirst(limit: number): void {
    if (this.first >= 0) return;
    const buf = this.buf;
    const kinds = buf.kinds;
    let w = this.walk;
    let p = this.walkPos;
    for (; w < limit; w++) {
      const k = kinds[w]!;
      if (k !== WHITESPACE && k !== K_COMMENT) {
        this.first = w;
        this.firstPos = p;
        break;
      }
      p += buf.width(w);
    }
    this.walk = w;
    this.walkPos = p;
  }

  /** Whether the pending query's start is where a `parseParts` window stops (asked once per start). */
  private synced(syncFrom: number, isSync: (offset: number) => boolean): boolean {
    if (this.asked === this.first) return false;
    this.asked = this.first;
    return this.firstPos >= syncFrom && isSync(this.firstPos);
  }

  /** Stops before the pending query's first token (see `consume`). */
  private stopAt(): number {
    this.buf.tokenCount = this.first;
    this.stopPos = this.firstPos;
    this.first = -1;
    return this.stopPos;
  }

  /** Ends the pending query (from `first`) before token `t`, which starts at `start`: its last significant token found backwards. */
  private endQuery(t: number, start: number): void {
    const buf = this.buf;
    const kinds = buf.kinds;
    let last = t - 1;
    let lastEnd = start;
    for (;;) {
      const k = kinds[last]!;
      if (k !== WHITESPACE && k !== K_COMMENT) break;
      lastEnd -= buf.width(last);
      last--;
    }
    this.closeTrivia(this.first, this.firstPos, true);
    this.queryTok = this.first;
    this.queryPos = this.firstPos;
    this.lastTok = last + 1;
    this.lastEnd = lastEnd;
    this.first = -1;
    this.flush();
  }

  private push(kind: tree.PartKind, tokFrom: number, tokTo: number, nodeFrom: number, start: number): void {
    this.add(kind, new GreenPart(kind, this.buf, tokFrom, tokTo, nodeFrom), start);
  }

  /** Appends a part of kind `kind` starting at `start`: `part`, or undefined for a trivia part between two parts. */
  private add(kind: tree.PartKind, part: GreenPart | undefined, start: number): void {
    const i = this.parts.length;
    this.parts.push(part);
    if (i === this.partKinds.length) {
      const starts = new Uint32Array(2 * i);
      starts.set(this.partStarts);
      this.partStarts = starts;
      const kinds = new Uint8Array(2 * i);
      kinds.set(this.partKinds);
      this.partKinds = kinds;
    }
    this.partStarts[i] = start;
    this.partKinds[i] = kind;
  }

  /**
   * Closes the trivia part before token `idx` (which starts at `start`), when there is one. `between`: a
   * query or directive part follows at once; the trivia then gets no object when a part precedes it (its
   * tokens are those between its neighbours', `SyntaxDocument.part` makes it when asked): about half of a
   * document's parts are trivia, a tenth of the memory its tree holds.
   */
  private closeTrivia(idx: number, start: number, between: boolean): void {
    if (idx > this.partTok) {
      if (between && this.parts.length > 0) this.add(TRIVIA_PART, undefined, this.partPos);
      else this.push(TRIVIA_PART, this.partTok, idx, this.buf.nodeCount, this.partPos);
    }
    this.partTok = idx;
    this.partPos = start;
  }

  /** Ends the current query (`queryTok` … `lastTok`): parses its clauses into nodes and closes its part. */
  private flush(): void {
    const buf = this.buf;
    const nodeFrom = buf.nodeCount;
    const kinds = buf.kinds;
    const details = buf.details;
    const q = this.q;
    q.room(this.lastTok - this.queryTok);
    const { K, D, S, E, X } = q;
    const widths = buf.widths;
    let pos = this.queryPos;
    let k = 0;
    for (let t = this.queryTok; t < this.lastTok; t++) {
      const kind = kinds[t]!;
      let w = widths[t]!;
      if (w === WIDTH_ESCAPE) w = buf.width(t);
      if (kind !== WHITESPACE && kind !== K_COMMENT) {
        K[k] = kind;
        D[k] = details[t]!;
        S[k] = pos;
        E[k] = pos + w;
        X[k++] = t;
      }
      pos += w;
    }
    q.count = k;
    this.parser.parse(0, k);
    this.push(QUERY_PART, this.queryTok, this.lastTok, nodeFrom, this.queryPos);
    this.partTok = this.lastTok;
    this.partPos = this.lastEnd;
  }

  /** The kind of each part made (after `finish`). */
  kinds(): Uint8Array {
    return this.partKinds.slice(0, this.parts.length);
  }

  /** The width of each part made, the last one ending at `end` (after `finish(end)`). */
  widths(end: number): Uint32Array {
    const starts = this.partStarts;
    const n = this.parts.length;
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) out[i] = (i + 1 < n ? starts[i + 1]! : end) - starts[i]!;
    return out;
  }

  /**
   * Ends the parse at offset `end` (the text's length, or where a window stopped; nothing pending there):
   * the last query, whitespace up to `end` and the trailing trivia. Returns the parts, each with its
   * diagnostics (sorted by start, stable, offsets made relative to the part).
   */
  finish(end: number): (GreenPart | undefined)[] {
    const buf = this.buf;
    // the last query: what follows the last mark
    const tokensEnd = this.stopPos >= 0 ? this.stopPos : buf.end;
    this.findFirst(buf.tokenCount);
    if (this.first >= 0) this.endQuery(buf.tokenCount, tokensEnd);
    if (end > tokensEnd) buf.addToken(WHITESPACE, end - tokensEnd, 0);
    this.closeTrivia(this.buf.tokenCount, end, false);
    this.buf.trim();
    const d = this.diagnostics;
    if (d.length === 0) return this.parts;
    // Lexer and parser problems interleave; answer them in document order (stable).
    for (let k = 1; k < d.length; k++) {
      if (d[k - 1]!.start > d[k]!.start) {
        const sorted = d.map((x, i) => ({ x, i })).sort((a, b) => a.x.start - b.x.start || a.i - b.i);
        for (let j = 0; j < d.length; j++) d[j] = sorted[j]!.x;
        break;
      }
    }
    // Each problem goes to the part it starts in (the last part for one at the very end).
    const parts = this.parts;
    const starts = this.partStarts;
    let p = 0;
    let from = 0;
    const attach = (to: number): void => {
      const q = parts[p] ?? triviaBetween(parts[p - 1]!, parts[p + 1]!);
      const s = starts[p]!;
      const list = d.slice(from, to).map((x) => ({ ...x, start: x.start - s, end: x.end - s }));
      parts[p] = new GreenPart(q.kind, q.buf, q.tokFrom, q.tokTo, q.nodeFrom, list);
      from = to;
    };
    for (let k = 0; k < d.length; k++) {
      while (p + 1 < parts.length && d[k]!.start >= starts[p + 1]!) {
        if (k > from) attach(k);
        from = k;
        p++;
      }
    }
    if (d.length > from && parts.length) attach(d.length);
    return parts;
  }
}

/**
 * The trivia part between parts `before` and `after` of one buffer (a part the builder made no object for,
 * `SyntaxDocument.slots`): the tokens between theirs; no nodes (where `after`'s begin).
 */
function triviaBetween(before: GreenPart, after: GreenPart): GreenPart {
  return new GreenPart(TRIVIA_PART, before.buf, before.tokTo, after.tokFrom, after.nodeFrom);
}

const WHITESPACE = TK.whitespace;
const K_COMMENT = TK.comment, K_DIRECTIVE = TK.directive;

const T_COLUMN = TK.column, T_VALUE = TK.value, T_NUMBER = TK.number, T_OPERATOR = TK.operator, T_KEYWORD = TK.keyword,
  T_CONSTANT = TK.constant, T_COMMA = TK.comma, T_DOT = TK.dot, T_WORD = TK.word, T_LPAREN = TK.lparen, T_RPAREN = TK.rparen;
const N_REF = NK.columnRef, N_VALUE = NK.value, N_BUCKET = NK.bucket, N_GROWTH = NK.growth, N_COLUMN = NK.column, N_FILTER = NK.filter,
  N_SORT = NK.sort, N_TOP = NK.topBottom, N_DATE = NK.dateFilter, N_MISSING = NK.missing, N_ERROR = NK.error, N_KEYWORD = NK.keyword,
  N_RANKED = NK.rankedBy, N_CALENDAR = NK.calendar, N_VERSUS = NK.versus, N_SUBSEARCH = NK.subsearch, N_LOCATION = NK.location;

// Keyword facts by `KeywordId`, derived from the parser's sets above (themselves from the catalogue).
const F_AGGREGATION = 1, F_WORD_OPERATOR = 2, F_BUCKET = 4, F_UNIT = 8, F_LOCATION = 16, F_DISTANCE_UNIT = 32, F_PERIOD_OVER_PERIOD = 64;
const KW_FLAGS = new Uint8Array(KEYWORD_ID_COUNT);
/** A to-date keyword's unit (`year to date`: year). */
const KW_TO_DATE: (ToDateUnit | undefined)[] = new Array(KEYWORD_ID_COUNT).fill(undefined);
/** A keyword's date bucket by `KeywordId` (set exactly where `F_BUCKET` is), so a bucket keyword is read without a search of `DATE_BUCKETS`. */
const KW_BUCKET: (DateBucket | undefined)[] = new Array(KEYWORD_ID_COUNT).fill(undefined);
/** A keyword's own rank in `TO_DATE_PERIODS` (`month`), the period after `… to date for each`; -1 for others. */
const KW_PERIOD_RANK = new Int8Array(KEYWORD_ID_COUNT).fill(-1);
/** A keyword's day of the week (`monday`: 1), month (`january`: 1) or quarter (`q1`: 1) by `KeywordId`; 0 for others (`namedDate`). */
const KW_DAY = new Uint8Array(KEYWORD_ID_COUNT);
const KW_MONTH = new Uint8Array(KEYWORD_ID_COUNT);
const KW_QUARTER = new Uint8Array(KEYWORD_ID_COUNT);
const PAREN_KEYWORD_IDS = new Uint8Array(KEYWORD_ID_COUNT);
const UNSUPPORTED_IDS = new Uint8Array(KEYWORD_ID_COUNT);
/** The productions by `KeywordId` and by token kind code (grammar.ts `byKeyword`, `byToken`: the parser's only dispatch). */
const BY_KEYWORD_ID: (readonly ProductionName[] | undefined)[] = new Array(KEYWORD_ID_COUNT).fill(undefined);
const BY_TOKEN_CODE: (readonly ProductionName[] | undefined)[] = new Array(TK.whitespace + 1).fill(undefined);
const ID_BY = keywordId('by'), ID_FOR_EACH = keywordId('for each'), ID_BETWEEN = keywordId('between'), ID_AND = keywordId('and'),
  ID_OR = keywordId('or'), ID_ASCENDING = keywordId('ascending'), ID_DESCENDING = keywordId('descending'), ID_AGO = keywordId('ago'),
  ID_TODAY = keywordId('today'), ID_YESTERDAY = keywordId('yesterday'), ID_THIS = keywordId('this'), ID_LAST = keywordId('last'),
  ID_NEXT = keywordId('next'), ID_NEAR = keywordId('near'), ID_FARTHER = keywordId('farther than'), ID_IN = keywordId('in'), ID_NOT_IN = keywordId('not in'),
  ID_WITHIN = keywordId('within'), ID_FROM = keywordId('from'), ID_ALL = keywordId('all'), ID_DETAILED = keywordId('detailed');
for (let id = 1; id < KEYWORD_ID_COUNT; id++) {
  const name = keywordName(id);
  let f = 0;
  if (AGGREGATION_SET.has(name)) f |= F_AGGREGATION;
  if (WORD_OPERATOR_SET.has(name)) f |= F_WORD_OPERATOR;
  if (BUCKET_SET.has(name)) f |= F_BUCKET;
  if (UNITS.has(name)) f |= F_UNIT;
  if (findKeyword(name)?.category === 'location') f |= F_LOCATION;
  if (DISTANCE_UNIT_SET.has(name)) f |= F_DISTANCE_UNIT;
  if (PERIOD_OVER_PERIOD_SET.has(name)) f |= F_PERIOD_OVER_PERIOD;
  KW_FLAGS[id] = f;
  KW_TO_DATE[id] = TO_DATE_UNITS.get(name);
  if (isBucket(name)) KW_BUCKET[id] = name;
  KW_PERIOD_RANK[id] = isOneOf(TO_DATE_PERIODS, name) ? TO_DATE_PERIODS.indexOf(name) : -1;
  KW_DAY[id] = DAYS.get(name) ?? 0;
  KW_MONTH[id] = MONTHS.get(name) ?? 0;
  KW_QUARTER[id] = QUARTERS.get(name) ?? 0;
  if (PAREN_KEYWORDS.has(name)) PAREN_KEYWORD_IDS[id] = 1;
  if (UNSUPPORTED.has(name)) UNSUPPORTED_IDS[id] = 1;
  BY_KEYWORD_ID[id] = PRODUCTIONS_BY_KEYWORD.get(name);
}
for (const [kind, list] of PRODUCTIONS_BY_TOKEN) BY_TOKEN_CODE[TK[kind]] = list;
/** The parser's dispatch tables (test/unit/grammar-once.test.ts checks each is derived from grammar.ts). */
export const PARSER_DISPATCH = { byKeyword: PRODUCTIONS_BY_KEYWORD, byToken: PRODUCTIONS_BY_TOKEN, byKeywordId: BY_KEYWORD_ID, byTokenCode: BY_TOKEN_CODE } as const;
const NO_CLAUSES: Clause[] = [];

/**
 * A parsed `.tsq` document: its lossless syntax tree (tree.ts), a list of parts with widths, and the
 * AST of ast.ts (`TsqDocument`) derived from it on demand. The tree holds no absolute offset: `partStart`
 * computes them (once per document, a pass over the parts' widths). A query's AST (`query(i)`) is made
 * by the parser from the query's tokens in the tree each time it is asked for (a few microseconds), so a
 * document of thousands of queries holds typed arrays, not objects; `queries`, `directives`, `comments`
 * and `diagnostics` are made on first use and kept.
 */
export class SyntaxDocument implements TsqDocument {
  private starts?: Float64Array;
  /** Per part: the index of the directive part in force (-1 for none); made with `queryParts` (`index`). */
  private inForce?: Int32Array;
  /** Indices of the query parts. */
  private queryParts?: Int32Array;
  private cache?: { queries?: Query[]; directives?: DataSourceDirective[]; byPart?: Map<number, DataSourceDirective>; comments?: Comment[]; diagnostics?: ParseDiagnostic[]; tokens?: Token[] };

  /**
   * Each part's width and kind, in the parts' order: what `partStart` sums, read from typed arrays rather
   * than from the part objects (a reparse copies them around the parts it replaces, incremental.ts).
   */
  readonly partWidths: Uint32Array;
  readonly partKinds: Uint8Array;

  /**
   * The parts in order, as the parse left them: undefined for a trivia part between two parts of one buffer
   * (the parser makes no object for it; `part(i)` makes it from its neighbours, once). Read parts with `part`.
   */
  get slots(): readonly (GreenPart | undefined)[] {
    return this.made;
  }

  /** `slots`, written by `part` where it makes a trivia part (the document owns the array it is given). */
  private readonly made: (GreenPart | undefined)[];

  /**
   * @param text the text the tree was parsed from (concatenating the parts' tokens gives it back).
   * @param slots the tree's parts, in order (see `slots`).
   * @param diagnosticCount how many diagnostics the parts hold together.
   * @param widths, kinds `partWidths` and `partKinds` when the caller has them (else read from the parts,
   *   a pass over their tokens).
   * @param starts the parts' absolute starts and the text's length after them (`partStarts`) when the caller
   *   has them (a reparse shifts the previous ones), else summed from `widths` on first use.
   */
  constructor(readonly text: string, slots: (GreenPart | undefined)[], readonly diagnosticCount: number, widths?: Uint32Array, kinds?: Uint8Array, starts?: Float64Array) {
    this.made = slots;
    this.starts = starts;
    if (!widths) {
      widths = new Uint32Array(slots.length);
      for (let i = 0; i < slots.length; i++) widths[i] = this.part(i).width;
    }
    if (!kinds) {
      kinds = new Uint8Array(slots.length);
      for (let i = 0; i < slots.length; i++) kinds[i] = this.part(i).kind;
    }
    this.partWidths = widths;
    this.partKinds = kinds;
  }

  /** How many parts the document has. */
  get partCount(): number {
    return this.slots.length;
  }

  /**
   * Part `i` (0 ≤ i < `partCount`). A trivia part the parser made no object for is made here from its
   * neighbours (the tokens between theirs) and kept, so it is the same object on each call.
   */
  part(i: number): GreenPart {
    const p = this.slots[i];
    if (p) return p;
    const made = triviaBetween(this.slots[i - 1]!, this.slots[i + 1]!);
    this.made[i] = made;
    return made;
  }

  /**
   * Every part, in order, each made by `part`: a new array on each call, so a method and not a field
   * (a loop over it would make one per turn). For tests and whole-document walks; readers go by `part(i)`.
   */
  allParts(): readonly GreenPart[] {
    const out = new Array<GreenPart>(this.slots.length);
    for (let i = 0; i < out.length; i++) out[i] = this.part(i);
    return out;
  }

  /**
   * The absolute start of every part, then the text's length (`partCount + 1` entries), summed from
   * `partWidths` on first use unless the constructor was given them. Shared, not copied: never modify it.
   */
  partStarts(): Float64Array {
    let starts = this.starts;
    if (!starts) {
      const n = this.slots.length;
      const widths = this.partWidths;
      starts = new Float64Array(n + 1);
      let pos = 0;
      for (let i = 0; i < n; i++) {
        starts[i] = pos;
        pos += widths[i]!;
      }
      starts[n] = pos;
      this.starts = starts;
    }
    return starts;
  }

  /** Makes `inForce` and `queryParts` (one pass over the parts' kinds). */
  private index(): void {
    const n = this.slots.length;
    const kinds = this.partKinds;
    const inForce = new Int32Array(n);
    let queries = 0;
    let dir = -1;
    for (let i = 0; i < n; i++) {
      const k = kinds[i]!;
      if (k === DIRECTIVE_PART) dir = i;
      else if (k === QUERY_PART) queries++;
      inForce[i] = dir;
    }
    const qp = new Int32Array(queries);
    for (let i = 0, q = 0; i < n; i++) if (kinds[i] === QUERY_PART) qp[q++] = i;
    this.inForce = inForce;
    this.queryParts = qp;
  }

  /** The absolute start of part `i` (`i` = the part count: the text's length). */
  partStart(i: number): number {
    return this.partStarts()[i]!;
  }

  /** The index of the part holding offset `offset` (the last part starting at or before it), -1 when there is none. */
  partAt(offset: number): number {
    const s = this.partStarts();
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** How many queries the document holds. */
  get queryCount(): number {
    if (!this.queryParts) this.index();
    return this.queryParts!.length;
  }

  /** The part index of query `i`. */
  queryPartIndex(i: number): number {
    if (!this.queryParts) this.index();
    return this.queryParts![i]!;
  }

  /** The tree part of query `i`: the same object for as long as the query is not parsed again (incremental.ts). */
  queryPart(i: number): GreenPart {
    return this.slots[this.queryPartIndex(i)]!;
  }

  /** The index of the query whose span holds `offset` (its end included), or -1. */
  queryIndexAt(offset: number): number {
    if (!this.queryParts) this.index();
    const qp = this.queryParts!;
    const starts = this.partStarts();
    let lo = 0;
    let hi = qp.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = qp[mid]!;
      if (starts[p + 1]! < offset) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= qp.length) return -1;
    const p = qp[lo]!;
    return starts[p]! <= offset ? lo : -1;
  }

  /** The directive in force at query `i` (its AST object, the one `directives` holds), or undefined. */
  directiveOf(i: number): DataSourceDirective | undefined {
    if (!this.inForce) this.index();
    const d = this.inForce![this.queryPartIndex(i)]!;
    if (d < 0) return undefined;
    void this.directives;
    return this.cache!.byPart!.get(d);
  }

  /**
   * The AST of query `i` (ast.ts `Query`), made from its tokens in the tree by the parser (the one grammar);
   * a new object on each call.
   */
  query(i: number): Query {
    const pi = this.queryPartIndex(i);
    const part = this.slots[pi]!;
    const buf = part.buf;
    const text = this.text;
    const tokens: Token[] = [];
    let comments: Comment[] | undefined;
    let pos = this.partStart(pi);
    for (let t = part.tokFrom; t < part.tokTo; t++) {
      const k = buf.kinds[t]!;
      if (k === TK.comment) (comments ??= []).push(new CommentNode(pos, pos + buf.width(t)));
      else if (k !== WHITESPACE) tokens.push(tokenOf(buf, t, pos, text));
      pos += buf.width(t);
    }
    const q = new QueryTokens().fromTokens(text, tokens);
    const parser = new ClauseParser(new DiagnosticSink([]), q, undefined, true);
    return buildQuery(text, q, 0, q.count, comments, 0, parser, this.directiveOf(i));
  }

  /**
   * The nodes of query `i` with their absolute spans (the red layer over the tree's green nodes), in
   * preorder: each node's subtree is itself and the `size - 1` nodes after it. A `missing` node has an
   * empty span where the missing part would be. Made on each call.
   */
  queryNodes(i: number): SyntaxNode[] {
    const pi = this.queryPartIndex(i);
    const part = this.slots[pi]!;
    const buf = part.buf;
    // token starts of the part, from its start and the widths
    const starts = new Float64Array(part.tokTo - part.tokFrom + 1);
    let pos = this.partStart(pi);
    for (let t = part.tokFrom; t < part.tokTo; t++) {
      starts[t - part.tokFrom] = pos;
      pos += buf.width(t);
    }
    starts[part.tokTo - part.tokFrom] = pos;
    const out: SyntaxNode[] = [];
    for (let n = part.nodeFrom, end = part.nodeTo; n < end; n++) {
      const from = buf.nodeFrom[n]! - part.tokFrom;
      const to = buf.nodeEnd(n) - part.tokFrom;
      // a node ends at its last token's end, not at the whitespace after it
      out.push({ kind: NODE_KINDS[buf.nodeKinds[n]!]!, start: starts[from]!, end: to > from ? starts[to - 1]! + buf.width(part.tokFrom + to - 1) : starts[from]!, size: buf.subtreeSize(n) });
    }
    return out;
  }

  /** Every query's AST, in order (made on first use, then kept with the document). */
  get queries(): Query[] {
    const c = (this.cache ??= {});
    if (!c.queries) {
      const n = this.queryCount;
      c.queries = new Array<Query>(n);
      for (let i = 0; i < n; i++) c.queries[i] = this.query(i);
    }
    return c.queries;
  }

  /** Every `@datasource` directive's AST, in order. */
  get directives(): DataSourceDirective[] {
    const c = (this.cache ??= {});
    if (!c.directives) {
      c.directives = [];
      c.byPart = new Map();
      const kinds = this.partKinds;
      for (let i = 0; i < kinds.length; i++) {
        if (kinds[i] !== DIRECTIVE_PART) continue;
        const d = directiveAt(this.text, this.partStart(i));
        c.directives.push(d);
        c.byPart.set(i, d);
      }
    }
    return c.directives;
  }

  /** Every `--` comment (and `@answer` line), in order. */
  get comments(): Comment[] {
    const c = (this.cache ??= {});
    if (!c.comments) {
      c.comments = [];
      this.forEachToken((kind, start, end) => {
        if (kind === TK.comment) c.comments!.push(new CommentNode(start, end));
      });
    }
    return c.comments;
  }

  /** The lexer's and the parser's problems (syntax only), in document order, absolute offsets. */
  get diagnostics(): ParseDiagnostic[] {
    const c = (this.cache ??= {});
    if (!c.diagnostics) {
      c.diagnostics = [];
      if (this.diagnosticCount) {
        for (let i = 0; i < this.slots.length; i++) {
          // a part with diagnostics always has an object (the builder makes one to hold them)
          const list = this.slots[i]?.diagnostics;
          if (!list) continue;
          const s = this.partStart(i);
          for (const d of list) c.diagnostics.push({ ...d, start: d.start + s, end: d.end + s });
        }
      }
    }
    return c.diagnostics;
  }

  /**
   * The lexer's tokens of the document (lexer.ts `Token`: comments and blank lines included, no other
   * whitespace), read from the tree; made on first use and kept.
   */
  tokens(): Token[] {
    const c = (this.cache ??= {});
    if (!c.tokens) {
      const out: Token[] = [];
      this.forEachToken((kind, start, _end, buf, t) => {
        if (kind === WHITESPACE) return;
        out.push(kind === TK.directive ? directiveToken(this.text, start) : tokenOf(buf, t, start, this.text));
      });
      c.tokens = out;
    }
    return c.tokens;
  }

  /** Calls `f` for every token of the tree in order with its kind (a `TREE_TOKEN_KINDS` index) and absolute span. */
  forEachToken(f: (kind: number, start: number, end: number, buf: GreenBuffer, index: number) => void): void {
    let pos = 0;
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      // a trivia part with no object is read from its neighbours (see `part`), none made for a walk
      const p = slots[i];
      const buf = p ? p.buf : slots[i - 1]!.buf;
      const from = p ? p.tokFrom : slots[i - 1]!.tokTo;
      const to = p ? p.tokTo : slots[i + 1]!.tokFrom;
      for (let t = from; t < to; t++) {
        const w = buf.width(t);
        f(buf.kinds[t]!, pos, pos + w, buf, t);
        pos += w;
      }
    }
  }

  /** The AST as plain data (JSON.stringify): queries, directives, comments and diagnostics. */
  toJSON(): TsqDocument {
    return { queries: this.queries, directives: this.directives, comments: this.comments, diagnostics: this.diagnostics };
  }
}

/** A node of a query's tree with its absolute span (`SyntaxDocument.queryNodes`). */
export interface SyntaxNode {
  kind: tree.NodeKind;
  /** UTF-16 offsets into the document, `end` exclusive. */
  start: number;
  end: number;
  /** The nodes of its subtree, itself included. */
  size: number;
}

/** The lexer's token of the directive at `start` (its line scanned again: the tree keeps no value). */
function directiveToken(text: string, start: number): Token {
  const out: Token[] = [];
  new Lexer(text, undefined, start).scan(out, 1);
  return out[0]!;
}

/** The AST of the directive at `start`. */
function directiveAt(text: string, start: number): DataSourceDirective {
  const t = directiveToken(text, start);
  return t.value !== '' ? new DirectiveNode(t.start, t.end, t.value, new SpanNode(t.innerStart, t.innerEnd)) : new DirectiveNode(t.start, t.end, undefined, undefined);
}

/**
 * Parses one query string, as searchdata receives it (docs/service-interface.md §4.2 `query_string`): no directives, no
 * separators. A trailing `;` is accepted; a `;` or a directive inside is a syntax error; blank lines are
 * plain whitespace here. Offsets are into `text`.
 *
 * @returns the query (undefined when the text holds no token) and the syntax diagnostics; an emulator
 *   should refuse a query with any diagnostic of severity `error`. Never throws.
 */
export function parseQuery(text: string): { query: Query | undefined; diagnostics: ParseDiagnostic[] } {
  const diagnostics: ParseDiagnostic[] = [];
  const tokens = tokenize(text, diagnostics);
  const sink = new DiagnosticSink(diagnostics);
  const body: Token[] = [];
  const comments: Comment[] = [];
  let lastSignificant = -1;
  for (let i = tokens.length - 1; i >= 0; i--) {
    if (!isTrivia(tokens[i]!)) {
      lastSignificant = i;
      break;
    }
  }
  tokens.forEach((t, i) => {
    if (t.kind === 'comment') comments.push({ kind: 'comment', start: t.start, end: t.end });
    else if (t.kind === 'blank') return;
    else if (t.kind === 'semicolon') {
      if (i !== lastSignificant) sink.add(t, codes.STRAY_CHARACTER, 'A query string holds one query: remove the ; inside it.');
    } else if (t.kind === 'directive') sink.add(t, codes.STRAY_CHARACTER, '@datasource belongs in .tsq files; searchdata takes the data source as data_source_guid.');
    else body.push(t);
  });
  const q = new QueryTokens().fromTokens(text, body);
  return { query: body.length ? buildQuery(text, q, 0, q.count, comments, 0, new ClauseParser(sink, q, undefined, true)) : undefined, diagnostics };
}

/** For the tokens `t[from, …)` of a parse, the index of the `)` closing each `(` (`close[j - from]`; -1: none). */
interface ParenMatch {
  from: number;
  close: Int32Array;
}

/**
 * Matches the parentheses of `t[from, to)` in one pass with a stack: the `)` of a `(` is the first one at
 * which the depth counted from that `(` is back to 0, as a scan from each `(` would find, without a scan
 * per `(` (which made `(((…` quadratic).
 */
function matchParens(kinds: Uint8Array, from: number, to: number): ParenMatch {
  const close = new Int32Array(to - from).fill(-1);
  const stack = new Int32Array(to - from);
  let sp = 0;
  for (let j = from; j < to; j++) {
    const k = kinds[j];
    if (k === T_LPAREN) stack[sp++] = j;
    else if (k === T_RPAREN && sp > 0) close[stack[--sp]! - from] = j;
  }
  return { from, close };
}

/**
 * What one parse shares between its clause parsers (nested ones too): its diagnostics, collected up to
 * `MAX_PARSE_DIAGNOSTICS`, and the quoted phrases `relativeDateOf` read (null: no relative date), at most
 * `MAX_PHRASES`: state of the parse, not of the module.
 */
class DiagnosticSink {
  readonly phrases = new Map<string, RelativeDate | null>();
  constructor(readonly list: ParseDiagnostic[]) {}
  add(span: Span, code: string, message: string, severity: 'error' | 'warning' = 'error'): void {
    if (this.list.length >= MAX_PARSE_DIAGNOSTICS) return;
    this.list.push({ start: span.start, end: Math.max(span.end, span.start), code, message, severity });
  }
}

/**
 * Builds a Query node from its significant tokens `tokens[from, to)` (no comments/blank/semicolon) and the
 * comments among them, `comments[commentsFrom, …)` (those from the query's end on are ignored).
 */
function buildQuery(
  text: string, tokens: QueryTokens, from: number, to: number, comments: Comment[] | undefined, commentsFrom: number,
  parser: ClauseParser, directive?: DataSourceDirective,
): Query {
  const start = tokens.S[from]!;
  const end = tokens.E[to - 1]!;
  let qtext: string;
  // Most comments inside a query trail its last token (`… top 10 -- best`): the text is then one slice.
  if (!comments || commentsFrom >= comments.length || comments[commentsFrom]!.start >= end) qtext = text.slice(start, end);
  else {
    let joined = '';
    let p = start;
    for (let k = commentsFrom; k < comments.length; k++) {
      const c = comments[k]!;
      if (c.start >= end) break;
      joined += text.slice(p, c.start);
      p = c.end;
    }
    qtext = joined + text.slice(p, end);
  }
  // Tokens never start with whitespace; an unterminated value may end with some.
  const c0 = qtext.charCodeAt(0);
  const c1 = qtext.charCodeAt(qtext.length - 1);
  if (c0 <= 32 || c1 <= 32 || c0 >= 0x80 || c1 >= 0x80) qtext = qtext.trim();
  const clauses = parser.parse(from, to);
  return new QueryNode(start, end, qtext, directive, clauses);
}


/**
 * The relative date a quoted phrase after the dot writes (`[date].'last 180 days'`, `[date].'this month'`:
 * the token form, docs/service-notes.md §2.11), read by the grammar of the unquoted keywords; undefined when
 * the phrase is no relative date, or one with a problem.
 */
function relativeDateOf(phrase: string, memo: Map<string, RelativeDate | null>): RelativeDate | undefined {
  // the lexer's set-up costs more than the phrase: a document repeats a few phrases, each read once a parse
  let read = memo.get(phrase);
  if (read === undefined) {
    const tokens = tokenize(phrase);
    read = tokens.length === 0 || tokens.length > 8 ? null : new ClauseParser(new DiagnosticSink([]), new QueryTokens().fromTokens(phrase, tokens), undefined, true).relativeDateIn(tokens.length) ?? null;
    if (memo.size >= MAX_PHRASES) memo.clear();
    memo.set(phrase, read);
  }
  // a copy: each clause owns its objects
  return read === null ? undefined : { ...read };
}
/** The most phrases a parse keeps read (`DiagnosticSink.phrases`). */
const MAX_PHRASES = 256;


/**
 * The value of a number token's text (`-?digits(.digits)?`, lexer.ts), equal to `Number(raw)`: integers of
 * up to 15 digits (exact in a double) are read here, which is several times faster than `Number` of a
 * string made by the lexer; anything else goes to `Number`.
 */
function numberOf(raw: string): number {
  const n = raw.length;
  let k = n > 0 && raw.charCodeAt(0) === 45 ? 1 : 0;
  if (k === n || n - k > 15) return Number(raw);
  const neg = k === 1;
  let v = 0;
  for (; k < n; k++) {
    const c = raw.charCodeAt(k);
    if (c < 48 || c > 57) return Number(raw);
    v = v * 10 + (c - 48);
  }
  return neg ? -v : v;
}

/**
 * The significant tokens of a query (whitespace and comments left out) as arrays by position, what
 * `ClauseParser` reads: kind (`TK` index), `details` (lexer.ts `TokenStore`), absolute start and end, and
 * the token's index in the tree's buffer (`at`, where the nodes written point). Filled from a buffer by the
 * builder or from `Token` objects; reused, grown as needed. A token's text is read only where a diagnostic
 * or the AST needs it (`value`).
 */
class QueryTokens {
  K = new Uint8Array(64);
  D = new Uint8Array(64);
  S = new Int32Array(64);
  E = new Int32Array(64);
  X = new Uint32Array(64);
  count = 0;
  text = '';

  /** Makes room for `n` tokens (the contents are not kept). */
  room(n: number): void {
    if (n <= this.K.length) return;
    const m = Math.max(n, 2 * this.K.length);
    this.K = new Uint8Array(m);
    this.D = new Uint8Array(m);
    this.S = new Int32Array(m);
    this.E = new Int32Array(m);
    this.X = new Uint32Array(m);
  }

  /** Fills the arrays from `tokens` (every one kept, in order), for a parse with no buffer. */
  fromTokens(text: string, tokens: readonly Token[]): this {
    this.text = text;
    this.room(tokens.length);
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k]!;
      const code = codeOf(t);
      this.K[k] = code & 255;
      this.D[k] = code >>> 8;
      this.S[k] = t.start;
      this.E[k] = t.end;
      this.X[k] = k;
    }
    this.count = tokens.length;
    return this;
  }

  /** Token `j`'s value (lexer.ts `Token.value`: a column's name, a value's content, a keyword's canonical name). */
  value(j: number): string {
    const k = this.K[j]!;
    if (k === T_KEYWORD) return keywordName(this.D[j]!);
    if (k === T_COLUMN || k === T_VALUE) return this.text.slice(this.S[j]! + 1, this.D[j] === 1 ? this.E[j]! - 1 : this.E[j]!);
    if (k === T_CONSTANT) return this.D[j] === 1 ? 'empty' : 'null';
    return this.text.slice(this.S[j]!, this.E[j]!);
  }

  /** Whether token `j` is closed (a column's `]`, a value's quote; true for the other kinds). */
  closed(j: number): boolean {
    const k = this.K[j]!;
    return k === T_COLUMN || k === T_VALUE ? this.D[j] === 1 : true;
  }
}

const NONE = 255;
const DOT_NONE = 0, DOT_VALUE = 1, DOT_RELATIVE = 2;
const FLAG_BY = 1, FLAG_FOR_EACH = 2;

/**
 * One pass over a query's tokens (`QueryTokens`), the grammar's only writer of nodes: it writes each
 * clause's node and children into the tree's buffer as it reads them (`buf`), and, with `ast`, makes the
 * clauses of ast.ts instead (the AST on demand, `SyntaxDocument.query`, `parseQuery`). One instance is
 * reused for every query of a document.
 */
class ClauseParser {
  private K: Uint8Array;
  private D: Uint8Array;
  private S: Int32Array;
  private E: Int32Array;
  private X: Uint32Array;
  private i = 0;
  private stop = 0;
  /** The clauses so far (AST mode): `clauses[0, n)`, a scratch list reused and never shortened. */
  private readonly clauses: Clause[] = [];
  private n = 0;
  /** Positions of the values of the filter being read (scratch). */
  private vals = new Int32Array(16);
  /** The `ranked by`s of the query: positions of the keyword, the aggregation (-1), the column and its reference's last token. */
  private rankedBy: { kw: number; agg: number; c: number; last: number }[] | undefined;
  /** How many `top`/`bottom` clauses the query has so far. */
  private tops = 0;
  /**
   * What `columnRef(true)` read after the dot when it is no bucket (the token form, docs/service-notes.md
   * §2.11): a value (`[origin].SEA`, at `dotPos`) or a relative date (`[date].'last 180 days'`, `dotRel`).
   */
  private dotKind = DOT_NONE;
  private dotPos = -1;
  private dotRel: RelativeDate | undefined;
  /** The bucket of the last `columnRef`: undefined for none, null for an unknown one. */
  private refKnown: DateBucket | null | undefined;
  /** The relative date the last `relativeDate` read. */
  private rel: RelativeDate = { type: 'today' };
  /** The column (position) the last value of a list was written with (`[origin].SEA`), -1 when written alone. */
  private dottedColumn = -1;
  /** The column (position) of the filter whose values are being read, -1 for none. */
  private filterColumn = -1;
  /** The closing `)` of each `(` of the parsed range (`matchParens`), made when the first `(` is met. */
  private parens: ParenMatch | undefined;

  /**
   * `q`: the tokens; `buf`: where the nodes go (undefined: none written); `ast`: make the clauses. `depth`:
   * how many subsearches enclose the tokens parsed; `outer`: the enclosing parse's `ParenMatch`.
   */
  constructor(
    private readonly sink: DiagnosticSink, private readonly q: QueryTokens, private readonly buf: GreenBuffer | undefined,
    private readonly ast: boolean, private readonly depth = 0, private readonly outer?: ParenMatch,
  ) {
    this.K = q.K;
    this.D = q.D;
    this.S = q.S;
    this.E = q.E;
    this.X = q.X;
  }

  /** Parses positions `[from, to)` of the tokens: writes their nodes, and returns their clauses in AST mode (else an empty list). */
  parse(from: number, to: number): Clause[] {
    const q = this.q;
    this.K = q.K;
    this.D = q.D;
    this.S = q.S;
    this.E = q.E;
    this.X = q.X;
    this.i = from;
    this.stop = to;
    this.n = 0;
    this.rankedBy = undefined;
    this.tops = 0;
    this.parens = this.outer;
    while (this.i < this.stop) {
      const before = this.i;
      this.clause();
      if (this.i === before) this.i++; // safety: always progress
    }
    const out = this.ast ? this.clauses.slice(0, this.n) : NO_CLAUSES;
    this.parens = undefined;
    if (this.rankedBy) this.attachRanked(out);
    return out;
  }

  /**
   * `ranked by` attaches to the query's top/bottom wherever it is written (docs/service-notes.md §2.1): the
   * k-th takes the k-th top/bottom; one without is a `keyword` clause of the AST (warned). Its tree node,
   * a `rankedBy` where it stands, is the same either way (`rankedByClause`).
   */
  private attachRanked(out: Clause[]): void {
    const ranked = this.rankedBy!;
    const S = this.S, E = this.E;
    let k = 0;
    for (const r of ranked) {
      const matched = k < this.tops;
      if (!matched) this.sink.add({ start: S[r.kw]!, end: E[r.last]! }, codes.MISPLACED_KEYWORD, '"ranked by" ranks a top or bottom: write top N or bottom N in the query (top_n_ranked_by.adoc).', 'warning');
      k++;
    }
    if (!this.ast) return;
    let c = 0;
    const count = out.length;
    for (const r of ranked) {
      let tb: Extract<Clause, { kind: 'topBottom' }> | undefined;
      for (; c < count; c++) {
        const x = out[c]!;
        if (x.kind === 'topBottom' && !x.rankedBy) { tb = x; break; }
      }
      if (tb) {
        tb.rankedBy = this.refAst(r.c, r.last);
        if (r.agg >= 0) tb.rankedByAggregation = this.valIn(r.agg, AGGREGATIONS, 'aggregation');
      } else out.push({ kind: 'keyword', keyword: 'ranked by', start: S[r.kw]!, end: E[r.last]! });
    }
    out.sort((a, b) => a.start - b.start);
  }

  /** The kind of the token at `j`, `NONE` past the range. */
  private at(j: number): number {
    return j < this.stop ? this.K[j]! : NONE;
  }

  /** Whether the token at `j` is keyword `id`. */
  private kwIs(j: number, id: number): boolean {
    return j < this.stop && this.K[j] === T_KEYWORD && this.D[j] === id;
  }

  /** Whether the token at `j` is a keyword with flag `f` (`KW_FLAGS`). */
  private kwFlag(j: number, f: number): boolean {
    return j < this.stop && this.K[j] === T_KEYWORD && (KW_FLAGS[this.D[j]!]! & f) !== 0;
  }

  /** Whether the token at `j` is a number of digits only. */
  private digits(j: number): boolean {
    return j < this.stop && this.K[j] === T_NUMBER && (this.D[j]! & NUMBER_DIGITS) !== 0;
  }

  /** Whether token `b` starts where token `a` ends (nothing between them). */
  private glued(a: number, b: number): boolean {
    return this.S[b] === this.E[a];
  }

  private val(j: number): string {
    return this.q.value(j);
  }

  /**
   * Token `j`'s value as one of `list` (`what` names it): for a token already classified by its keyword's
   * flags (`F_AGG`, `F_UNIT`, …), so a miss is a bug of those flags.
   * @throws Error when the value is not in `list`
   */
  private valIn<T extends string>(j: number, list: readonly T[], what: string): T {
    return expectOneOf(list, this.q.value(j), what);
  }

  private spanOf(j: number): Span {
    return { start: this.S[j]!, end: this.E[j]! };
  }

  private push(c: Clause): void {
    this.clauses[this.n++] = c;
  }

  /** Opens a node over positions `[first, last]`; its index, -1 when no nodes are written. */
  private open(kind: number, first: number, last: number): number {
    return this.buf ? this.buf.addNode(kind, this.X[first]!, this.X[last]! + 1) : -1;
  }

  private close(node: number): void {
    if (node >= 0) this.buf!.close(node);
  }

  /** A node with no children over `[first, last]`. */
  private leaf(kind: number, first: number, last: number): void {
    if (this.buf) this.buf.addNode(kind, this.X[first]!, this.X[last]! + 1);
  }

  /** A node over `[first, last]` whose one child is the column reference `[c, cl]`. */
  private withRef(kind: number, first: number, last: number, c: number, cl: number): void {
    if (!this.buf) return;
    const node = this.buf.addNode(kind, this.X[first]!, this.X[last]! + 1);
    this.buf.addNode(N_REF, this.X[c]!, this.X[cl]! + 1);
    this.buf.close(node);
  }

  /** An `error` clause over `[first, last]`. */
  private error(first: number, last: number, text: string): void {
    this.leaf(N_ERROR, first, last);
    if (this.ast) this.push({ kind: 'error', text, start: this.S[first]!, end: this.E[last]! });
  }

  /** The AST of the column reference `[c, last]` (`columnRef`'s reading of it). */
  private refAst(c: number, last: number): ColumnRef {
    const q = this.q;
    if (last === c) return new ColumnNode(q.value(c), q.closed(c), this.S[c]!, this.E[c]!);
    const bucket = this.K[last] === T_DOT
      ? new BucketNode('', null, this.S[last]!, this.E[last]!)
      : new BucketNode(q.value(last), this.bucketOf(last), this.S[last]!, this.E[last]!);
    return new BucketedColumnNode(q.value(c), q.closed(c), bucket, this.S[c]!, bucket.end);
  }

  /** The AST of the value at `j`. */
  private valueAst(j: number): Value {
    const S = this.S[j]!, E = this.E[j]!;
    switch (this.K[j]) {
      case T_VALUE: return new TextValueNode(this.val(j), this.q.closed(j), S, E);
      case T_NUMBER: {
        const raw = this.val(j);
        return new NumberValueNode(numberOf(raw), raw, S, E);
      }
      case T_CONSTANT: return this.D[j] === 1 ? { kind: 'empty', start: S, end: E } : { kind: 'null', start: S, end: E };
      default: {
        const raw = this.val(j);
        const bool = booleanOf(raw);
        return bool === undefined ? new TextValueNode(raw, true, S, E) : { kind: 'boolean', value: bool, raw, start: S, end: E };
      }
    }
  }

  /** The values at `vals[0, count)` as AST objects. */
  private valuesAst(count: number): Value[] {
    const out = new Array<Value>(count);
    for (let k = 0; k < count; k++) out[k] = this.valueAst(this.vals[k]!);
    return out;
  }

  /** The bucket token `b` names (after the dot): null when none. */
  private bucketOf(b: number): DateBucket | null {
    if (this.K[b] === T_KEYWORD) return KW_BUCKET[this.D[b]!] ?? null;
    const name = this.val(b);
    return isBucket(name) ? name : findDateBucket(name);
  }

  /**
   * Parses one clause starting at the current token: the productions its keyword or token kind may start
   * (grammar.ts `SEARCH_GRAMMAR`), in the grammar's order, the first that applies.
   */
  private clause(): void {
    const j = this.i;
    const k = this.K[j]!;
    const list = k === T_KEYWORD ? BY_KEYWORD_ID[this.D[j]!] : BY_TOKEN_CODE[k];
    if (list) for (let p = 0; p < list.length; p++) if (this.production(list[p]!, j)) return;
    this.i++;
    this.error(j, j, this.val(j));
  }

  /** Production `p` (grammar.ts) at position `j`, the current token: false, nothing consumed, when it does not apply there. */
  private production(p: ProductionName, j: number): boolean {
    switch (p) {
      case 'columnClause':
        this.columnClause(-1, j, 0);
        return true;
      case 'periodFunction':
        return this.periodFunction(j);
      case 'aggregated':
        this.aggregated(j);
        return true;
      case 'operatorWithoutColumn':
        this.operatorWithoutColumn(j);
        return true;
      case 'bucket':
        if (this.D[j] !== ID_DETAILED && this.at(j + 1) === T_LPAREN) return false;
        this.i++;
        this.leaf(N_BUCKET, j, j);
        if (this.ast) this.push({ kind: 'bucket', bucket: this.valIn(j, DATE_BUCKETS, 'date bucket'), start: this.S[j]!, end: this.E[j]! });
        return true;
      case 'for':
        this.i++;
        if (this.i >= this.stop) {
          this.sink.add(this.spanOf(j), codes.MISSING_OPERAND, 'for needs a filter after it: for sum [delay] > 5000.');
          this.error(j, j, 'for');
        }
        return true; // `for` only introduces the following filter
      case 'grouping':
        this.groupingClause(j);
        return true;
      case 'topBottom':
        this.topBottom(j);
        return true;
      case 'rankedBy':
        this.rankedByClause(j);
        return true;
      case 'sortBy':
        this.sortBy(j);
        return true;
      case 'growth':
        this.growthOf(j);
        return true;
      case 'calendar':
        this.calendarClause(j);
        return true;
      case 'location':
        this.location(j, -1, j);
        return true;
      case 'subsearch':
        this.subsearch(j, -1, j);
        return true;
      case 'versus':
        this.versus(j);
        return true;
      case 'fiscal':
        // `sales monthly fiscal` (fiscal.adoc): the fiscal calendar, as calendar.fiscal.
        this.i++;
        this.leaf(N_CALENDAR, j, j);
        if (this.ast) this.push({ kind: 'calendar', name: 'fiscal', start: this.S[j]!, end: this.E[j]! });
        return true;
      case 'relativeDate':
      case 'relativePeriod':
      case 'toDate':
      case 'namedDate': {
        const last = this.relativeDate();
        if (last < 0) return false;
        this.leaf(N_DATE, j, last);
        if (this.ast) this.push(new DateFilterNode(undefined, this.rel, this.S[j]!, this.E[last]!));
        return true;
      }
      case 'bareValue': {
        // A value with no column: the API syntax has values only after an operator (codes.BARE_VALUE).
        const k = this.K[j];
        if (k === T_LPAREN) {
          this.bareValue(j, '( … )', this.parenGroup());
          return true;
        }
        this.i++;
        this.bareValue(j, k === T_VALUE ? `'${this.val(j)}'` : k === T_CONSTANT ? `{${this.val(j)}}` : this.val(j), j);
        return true;
      }
      case 'formulaCall':
        if (!(this.at(j + 1) === T_LPAREN && this.glued(j, j + 1))) return false;
        this.formulaCall(j);
        return true;
      case 'unknownWord':
        this.unknownWord(j);
        return true;
      case 'separator':
        // `by [origin], [destination], [delay]` (data-report-v2-api.adoc's query_string): a comma between
        // clauses separates them as a space does (docs/service-notes.md §2.11)
        this.i++;
        return true;
      case 'stray':
        this.stray(j);
        return true;
      case 'misplacedKeyword':
        this.misplacedKeyword(j);
        return true;
    }
  }

  /** A word no production takes: an error clause, warned. */
  private unknownWord(j: number): void {
    this.i++;
    const w = this.val(j);
    this.sink.add(this.spanOf(j), codes.UNKNOWN_WORD, `"${w}" is not a keyword: write column names in brackets ([${w}]) and text values in quotes ('${w}').`, 'warning');
    this.error(j, j, w);
  }

  /**
   * A value, number or `( … )` standing alone (codes.BARE_VALUE): warned, and kept as a bare keyword clause
   * that the emulator refuses naming `shown`.
   */
  private bareValue(j: number, shown: string, last: number): void {
    const hint = this.K[j] === T_LPAREN
      ? 'parentheses stand only after a period function (quarter ([date])) or around a subsearch'
      : `a value goes after a column and an operator ([column] = ${shown})`;
    this.sink.add({ start: this.S[j]!, end: this.E[last]! }, codes.BARE_VALUE, `${shown} stands alone: the API syntax has no value without a column; ${hint}.`, 'warning');
    this.leaf(N_KEYWORD, j, last);
    if (this.ast) this.push({ kind: 'keyword', keyword: shown, start: this.S[j]!, end: this.E[last]! });
  }

  /**
   * Reads `[column]` with an optional `.bucket` / `.'multi word bucket'` glued to it; returns the position
   * of its last token (the column's, the bucket's, or the dot's when no bucket follows it), the bucket in
   * `refKnown`. The current token must be a column. With `values` (a column standing alone, or a value
   * after an operator), a token after the dot that is no bucket word is the token form's value or
   * relative date (docs/service-notes.md §2.11), left in `dotKind`, and the reference is the column alone.
   */
  private columnRef(values = false): number {
    const c = this.i++;
    this.dotKind = DOT_NONE;
    this.refKnown = undefined;
    const d = this.i;
    if (!(this.at(d) === T_DOT && this.glued(c, d))) return c;
    this.i++;
    const b = this.i;
    const kb = this.at(b);
    const glued = kb !== NONE && this.glued(d, b);
    if (values && glued && this.dotValue(b)) return c;
    if (glued && (kb === T_KEYWORD || kb === T_WORD || kb === T_VALUE || kb === T_NUMBER)) {
      this.i++;
      // A bucket written exactly (`[date].'day of week'`) needs no normalising (findDateBucket's regex).
      const known = this.bucketOf(b);
      this.refKnown = known;
      if (!known) this.sink.add(this.spanOf(b), codes.UNKNOWN_BUCKET, `Unknown date bucket "${this.val(b)}": use one of ${DATE_BUCKETS.join(', ')}.`);
      return b;
    }
    this.refKnown = null;
    this.sink.add(this.spanOf(d), codes.UNKNOWN_BUCKET, `A date bucket must follow the dot: [column].monthly or [column].'day of week'.`);
    return d;
  }

  /**
   * The token form's value after `[column].` at token `b` (docs/service-notes.md §2.11), consumed into
   * `dotKind`; false (nothing consumed) when `b` is a bucket word (`[date].monthly` stays a bucket: the
   * column's type decides, keywords.ts `dotReading`) or no value: a word (`SEA`, `01/15/2001`, `true`), a
   * quoted text (`'los angeles'`, or a relative date, `'last 180 days'`), a number, `{null}`/`{empty}`, or a
   * date keyword (`today`).
   */
  private dotValue(b: number): boolean {
    switch (this.K[b]) {
      case T_WORD:
      case T_NUMBER:
      case T_CONSTANT:
        this.i++;
        this.dotKind = DOT_VALUE;
        this.dotPos = b;
        return true;
      case T_VALUE: {
        const text = this.val(b);
        if (findDateBucket(text)) return false;
        this.i++;
        const relative = relativeDateOf(text, this.sink.phrases);
        if (relative) {
          this.dotKind = DOT_RELATIVE;
          this.dotRel = relative;
        } else {
          this.dotKind = DOT_VALUE;
          this.dotPos = b;
        }
        return true;
      }
      case T_KEYWORD: {
        if ((KW_FLAGS[this.D[b]!]! & F_BUCKET) !== 0) return false;
        const at = this.i;
        if (this.relativeDate() >= 0) {
          this.dotKind = DOT_RELATIVE;
          this.dotRel = this.rel;
          return true;
        }
        this.i = at;
        return false;
      }
      default:
        return false;
    }
  }

  /**
   * A relative date written whole in the tokens `[0, count)` (the words of a quoted phrase after the dot,
   * `last 180 days`), or undefined when they are something else or have a problem.
   */
  relativeDateIn(count: number): RelativeDate | undefined {
    this.i = 0;
    this.stop = count;
    const before = this.sink.list.length;
    const last = this.relativeDate();
    return last >= 0 && this.i === this.stop && this.sink.list.length === before ? this.rel : undefined;
  }

  /**
   * A column (the current token), aggregated by the keyword at `agg` (-1: none), after `by`/`for each`
   * (`flags`), the clause starting at `first`, followed by an operator (filter), a relative date
   * (dateFilter) or nothing (column).
   */
  private columnClause(agg: number, first: number, flags: number): void {
    const c = this.i;
    const plain = agg < 0 && flags === 0;
    const last = this.columnRef(plain);
    const S = this.S, E = this.E;
    const start = S[first]!;
    if (this.dotKind !== DOT_NONE) {
      // the token form (docs/service-notes.md §2.11): `[origin].SEA` is `[origin] = 'SEA'`, `[date].'this month'` is `[date] this month`
      const end = this.i - 1;
      const kind = this.dotKind;
      this.dotKind = DOT_NONE;
      if (kind === DOT_RELATIVE) {
        this.withRef(N_DATE, first, end, c, last);
        if (this.ast) this.push(new DateFilterNode(this.refAst(c, last), this.dotRel!, start, E[end]!));
        return;
      }
      const v = this.dotPos;
      if (this.buf) {
        const node = this.open(N_FILTER, first, end);
        this.leaf(N_REF, c, last);
        this.leaf(N_VALUE, v, v);
        this.close(node);
      }
      if (this.ast) {
        const col = this.refAst(c, last);
        this.push({ kind: 'filter', column: col, operator: '=', operatorStart: col.end, operatorEnd: col.end + 1, values: [this.valueAst(v)], dotted: true, start, end: E[end]! });
      }
      return;
    }
    const j = this.i;
    const nk = this.at(j);
    if (nk === T_OPERATOR || (nk === T_KEYWORD && (KW_FLAGS[this.D[j]!]! & F_WORD_OPERATOR) !== 0)) {
      this.filter(agg, first, c, last);
      return;
    }
    if (nk !== NONE && plain && last === c && nk === T_KEYWORD) {
      const id = this.D[j];
      if (id === ID_NEAR || id === ID_FARTHER) {
        this.location(j, c, first);
        return;
      }
      if (id === ID_IN || id === ID_NOT_IN) {
        this.subsearch(j, c, first);
        return;
      }
    }
    if (nk !== NONE && plain && last === c) {
      const rel = this.relativeDate();
      if (rel >= 0) {
        this.withRef(N_DATE, first, rel, c, last);
        if (this.ast) this.push(new DateFilterNode(this.refAst(c, last), this.rel, start, E[rel]!));
        return;
      }
    }
    this.withRef(N_COLUMN, first, last, c, last);
    if (!this.ast) return;
    const col = this.refAst(c, last);
    if (plain) {
      this.push(new ColumnClauseNode(col, start, col.end));
      return;
    }
    // One shape per constructor call or literal (see `top`).
    if (agg < 0) {
      this.push(new GroupingClauseNode(col, flags === FLAG_BY, start, col.end));
      return;
    }
    const aggregation = this.valIn(agg, AGGREGATIONS, 'aggregation');
    const aggregationStart = S[agg]!;
    const aggregationEnd = E[agg]!;
    if (flags === 0) this.push(new AggregatedClauseNode(col, aggregation, aggregationStart, aggregationEnd, start, col.end));
    else if (flags === FLAG_BY) this.push({ kind: 'column', column: col, aggregation, aggregationStart, aggregationEnd, by: true, start, end: col.end });
    else this.push({ kind: 'column', column: col, aggregation, aggregationStart, aggregationEnd, forEach: true, start, end: col.end });
  }

  /** A filter: the column `[c, last]` (aggregated by `agg`, -1: not), the operator at the current token, its values. */
  private filter(agg: number, first: number, c: number, last: number): void {
    const op = this.i++;
    this.filterColumn = c;
    const between = this.K[op] === T_KEYWORD && this.D[op] === ID_BETWEEN;
    let count: number;
    let end: number;
    if (between) {
      count = this.between(op);
      end = this.betweenEnd;
    } else {
      count = this.values(op);
      end = count ? this.vals[count - 1]! : op;
    }
    if (this.buf) {
      const node = this.open(N_FILTER, first, end);
      this.leaf(N_REF, c, last);
      for (let k = 0; k < count; k++) this.leaf(N_VALUE, this.vals[k]!, this.vals[k]!);
      if (count === 0 || (between && count < 2)) this.buf.addNode(N_MISSING, this.X[end]! + 1, this.X[end]! + 1);
      this.close(node);
    }
    if (!this.ast) return;
    const col = this.refAst(c, last);
    const operator = this.valIn(op, FILTER_OPERATORS, 'filter operator');
    const values = this.valuesAst(count);
    const S = this.S, E = this.E;
    this.push(agg >= 0
      ? new AggregatedFilterNode(col, this.valIn(agg, AGGREGATIONS, 'aggregation'), operator, S[op]!, E[op]!, values, S[first]!, E[end]!)
      : new FilterNode(col, operator, S[op]!, E[op]!, values, S[first]!, E[end]!));
  }

  /** Records value position `k` in `vals` at `count`. */
  private keep(count: number, k: number): void {
    if (count === this.vals.length) {
      const grown = new Int32Array(count * 2);
      grown.set(this.vals);
      this.vals = grown;
    }
    this.vals[count] = k;
  }

  /**
   * Reads `value (, value)*` after the operator at `op` into `vals`; how many. Values are quoted texts,
   * numbers, `{null}`/`{empty}`; a bare word is taken as a text value with an unknownWord warning. Reports
   * missingOperand when nothing follows the operator or a comma.
   */
  private values(op: number): number {
    let count = 0;
    let expectFrom = op;
    this.dottedColumn = -1;
    for (;;) {
      const v = this.value();
      if (v < 0) {
        this.sink.add(this.spanOf(expectFrom), codes.MISSING_OPERAND, this.K[expectFrom] === T_COMMA
          ? 'A value must follow the comma.'
          : `${this.val(op)} needs a value after it: a number, a 'quoted text' or a 'date'.`);
        break;
      }
      this.keep(count++, v);
      const c = this.i;
      const ck = this.at(c);
      // `[origin] = [origin].SEA [origin].PDX` (the token form): the values of one column follow each other
      if (this.dottedColumn >= 0 && ck === T_COLUMN && this.val(c) === this.val(this.dottedColumn)) {
        if (this.at(c + 1) === T_DOT && this.glued(c, c + 1)) continue;
      }
      // `similar to '%jacket%' or '%t-shirt%'` (similar-to.adoc): `or` separates alternatives as a comma does.
      // A comma before a column or a keyword separates clauses (`[item type] = [item type].'jackets', [region] = …,
      // sort by …`: data-report-v2-api.adoc).
      const after = ck === T_COMMA ? this.at(c + 1) : NONE;
      if ((ck === T_COMMA || (ck === T_KEYWORD && this.D[c] === ID_OR)) && after !== T_COLUMN && after !== T_KEYWORD) {
        this.i++;
        expectFrom = c;
        continue;
      }
      break;
    }
    return count;
  }

  /** The position of one value at the current token (consumed), or -1 (nothing consumed) when there is none. */
  private value(): number {
    const v = this.i;
    switch (this.at(v)) {
      case T_VALUE:
      case T_NUMBER:
      case T_CONSTANT:
        this.i++;
        return v;
      case T_WORD: {
        this.i++;
        const w = this.val(v);
        // `[is delayed] = true` (the token form): a boolean; validation warns when the column is no BOOL
        if (booleanOf(w) === undefined) this.sink.add(this.spanOf(v), codes.UNKNOWN_WORD, `"${w}" is not a keyword: write text and date values in single quotes ('${w}').`, 'warning');
        return v;
      }
      case T_COLUMN: {
        // `[origin] = [origin].SEA`, `between [date].01/15/2001 and …` (the token form): a value written with its column
        if (!(this.at(v + 1) === T_DOT && this.glued(v, v + 1))) return -1;
        // `[origin] = [destination].PDX` is no value of [origin]: the token starts a filter of its own
        if (this.filterColumn >= 0 && this.val(v).trim().toLowerCase() !== this.val(this.filterColumn).trim().toLowerCase()) return -1;
        this.columnRef(true);
        const kind = this.dotKind;
        this.dotKind = DOT_NONE;
        if (kind !== DOT_VALUE) {
          this.i = v;
          return -1;
        }
        this.dottedColumn = v;
        return this.dotPos;
      }
      default:
        return -1;
    }
  }

  /** Where the last `between` ended (a position). */
  private betweenEnd = 0;

  /** `between v and v` (the `between` token at `op` consumed): how many values (in `vals`), the end in `betweenEnd`. */
  private between(op: number): number {
    const low = this.value();
    if (low < 0) {
      this.sink.add(this.spanOf(op), codes.MISSING_OPERAND, 'between needs two values: between 0 and 1000.');
      this.betweenEnd = op;
      return 0;
    }
    const and = this.i;
    this.keep(0, low);
    if (!this.kwIs(and, ID_AND)) {
      this.sink.add({ start: this.S[op]!, end: this.E[low]! }, codes.BETWEEN_WITHOUT_AND, `between needs "and" and a second value: between ${this.textOf(low)} and ….`);
      this.betweenEnd = low;
      return 1;
    }
    this.i++;
    const high = this.value();
    if (high < 0) {
      this.sink.add(this.spanOf(and), codes.MISSING_OPERAND, 'A value must follow "and": between 0 and 1000.');
      this.betweenEnd = and;
      return 1;
    }
    this.keep(1, high);
    this.betweenEnd = high;
    return 2;
  }

  private textOf(j: number): string {
    const v = this.valueAst(j);
    return v.kind === 'text' ? `'${v.value}'` : v.kind === 'number' || v.kind === 'boolean' ? v.raw : `{${v.kind}}`;
  }

  /**
   * A relative date at the current token (docs/service-notes.md §2.5, 2.6), consumed, in `rel`; returns the
   * position of the token it ends at, -1 (nothing consumed) when none starts here. Reports missingOperand
   * for `last`/`next`/`this` with no period.
   */
  private relativeDate(): number {
    const a = this.i;
    if (a >= this.stop) return -1;
    const K = this.K, D = this.D;
    if (K[a] === T_KEYWORD) {
      const id = D[a]!;
      if (id === ID_TODAY || id === ID_YESTERDAY) {
        this.i++;
        this.rel = { type: id === ID_TODAY ? 'today' : 'yesterday' };
        return a;
      }
      const toDate = KW_TO_DATE[id];
      if (toDate) return this.toDate(a, toDate);
      if (id === ID_THIS || id === ID_LAST || id === ID_NEXT) return this.period(a);
      return this.namedDate(a);
    }
    if (this.digits(a)) {
      const u = a + 1;
      if (this.kwFlag(u, F_UNIT) && this.kwIs(a + 2, ID_AGO)) {
        this.i += 3;
        this.rel = { type: 'ago', n: numberOf(this.val(a)), unit: this.valIn(u, DATE_UNITS, 'date unit') };
        return a + 2;
      }
      // A bare year (`revenue by product 2014`, list-date.adoc).
      if ((D[a]! & NUMBER_YEAR) !== 0 && !this.kwFlag(u, F_UNIT)) {
        this.i++;
        this.rel = { type: 'named', year: numberOf(this.val(a)) };
        return a;
      }
    }
    return -1;
  }

  /** `… to date (for each period)?` at `a` (`relativeDate`). */
  private toDate(a: number, toDate: ToDateUnit): number {
    this.i++;
    const fe = this.i;
    const feUnit = fe + 1;
    const period = feUnit < this.stop && this.K[feUnit] === T_KEYWORD ? KW_PERIOD_RANK[this.D[feUnit]!]! : -1;
    if (this.kwIs(fe, ID_FOR_EACH) && period >= 0) {
      this.i += 2;
      const each = this.val(feUnit);
      // the period must hold the to-date unit (keywords-to-date: the bucket is "equal to or larger")
      if (period < TO_DATE_PERIODS.indexOf(toDate)) this.sink.add({ start: this.S[a]!, end: this.E[feUnit]! }, codes.MISPLACED_KEYWORD, `"${this.val(a)} for each ${each}": a ${each} does not hold a ${toDate}; the period after for each is a ${toDate} or longer (${TO_DATE_PERIODS.slice(TO_DATE_PERIODS.indexOf(toDate)).join(', ')}).`, 'warning');
      this.rel = { type: 'toDate', unit: toDate, forEach: expectOneOf(TO_DATE_PERIODS, each, 'to-date unit') };
      return feUnit;
    }
    this.rel = { type: 'toDate', unit: toDate };
    return a;
  }

  /** `this|last|next (N)? unit (for each unit)?` at `a` (`relativeDate`). */
  private period(a: number): number {
    const which = this.val(a) as 'this' | 'last' | 'next';
    const b = a + 1;
    let n = 1;
    let unitTok = b;
    if (this.at(b) === T_NUMBER && which !== 'this' && this.digits(b)) {
      n = numberOf(this.val(b));
      unitTok = a + 2;
    }
    if (!this.kwFlag(unitTok, F_UNIT)) {
      this.i++;
      if (unitTok === b && this.at(b) === T_NUMBER) this.i++;
      const shown = which === 'this' ? 'this month' : `${which} month, ${which} 7 days`;
      this.sink.add(this.spanOf(a), codes.MISSING_OPERAND, `${which} needs a period: ${shown}.`);
      this.rel = { type: 'period', which, n, unit: 'day' };
      return a;
    }
    this.i += unitTok === b ? 2 : 3;
    const unit = this.valIn(unitTok, DATE_UNITS, 'date unit');
    const fe = this.i;
    if (this.kwIs(fe, ID_FOR_EACH) && this.kwFlag(fe + 1, F_UNIT)) {
      this.i += 2;
      this.rel = { type: 'period', which, n, unit, forEach: this.valIn(fe + 1, DATE_UNITS, 'date unit') };
      return fe + 1;
    }
    this.rel = { type: 'period', which, n, unit };
    return unitTok;
  }

  /** A named day, month or quarter at the current keyword (`monday`, `january`, `february 2014`, `q1`, `q3 2024`), consumed; -1 otherwise. */
  private namedDate(a: number): number {
    // by id (`KW_DAY` …): most keywords met here are none of these, and are told so without their name
    const id = this.D[a]!;
    const day = KW_DAY[id]!;
    if (day !== 0) {
      this.i++;
      this.rel = { type: 'named', dayOfWeek: day };
      return a;
    }
    const month = KW_MONTH[id]!;
    const quarter = month === 0 ? KW_QUARTER[id]! : 0;
    if (month === 0 && quarter === 0) return -1;
    const named = month !== 0 ? { month } : { quarter: quarter as 1 | 2 | 3 | 4 };
    this.i++;
    const y = this.i;
    if (y < this.stop && this.K[y] === T_NUMBER && (this.D[y]! & NUMBER_YEAR) !== 0) {
      this.i++;
      this.rel = { type: 'named', ...named, year: numberOf(this.val(y)) };
      return y;
    }
    this.rel = { type: 'named', ...named };
    return a;
  }

  /** `name(…)`: a function call, i.e. a formula defined inside the query (docs/service-interface.md §8.6). */
  private formulaCall(j: number): void {
    this.i++;
    const end = this.parenGroup();
    this.sink.add({ start: this.S[j]!, end: this.E[end]! }, codes.FORMULA_IN_QUERY, `Formulas cannot be defined inside a query (docs/service-interface.md §8.6): create the formula on the data source and use it by name, e.g. [my formula].`);
    this.error(j, end, this.val(j));
  }

  /**
   * Consumes `( … )` starting at the current `(`; returns the position of its `)` (of the `(` when
   * unclosed: reports unclosedParen). The `)` is looked up in `parens`, made once per query, so a query of
   * many unclosed `(` is parsed in linear time.
   */
  private parenGroup(): number {
    const open = this.i;
    const parens = (this.parens ??= matchParens(this.K, this.i, this.stop));
    const j = parens.close[this.i - parens.from] ?? -1;
    if (j >= 0 && j < this.stop) {
      this.i = j + 1;
      return j;
    }
    this.i++;
    this.sink.add(this.spanOf(open), codes.UNCLOSED_PAREN, 'Unclosed (: add the closing ).');
    return open;
  }

  /** An aggregation keyword at the current token, consumed (its position); -1 otherwise. */
  private aggregation(): number {
    const a = this.i;
    if (this.kwFlag(a, F_AGGREGATION)) {
      this.i++;
      return a;
    }
    return -1;
  }

  /** A `.`, `)` or run of other characters where no clause starts: an error clause. */
  private stray(j: number): void {
    this.i++;
    const k = this.K[j];
    const text = this.val(j);
    if (k === T_DOT || k === T_RPAREN) this.sink.add(this.spanOf(j), codes.STRAY_CHARACTER, k === T_DOT ? "Unexpected '.': a dot binds a date bucket or a value to a column ([date].monthly, [origin].SEA)." : "Unexpected ')': no ( to close.");
    else if (/^[-+*/%^]+$/.test(text)) this.sink.add(this.spanOf(j), codes.FORMULA_IN_QUERY, `Formulas cannot be defined inside a query (docs/service-interface.md §8.6): create the formula on the data source and use it by name, e.g. [my formula].`);
    this.error(j, j, text);
  }

  /** An aggregation before a column (`sum [sales]`), or `sum(` (a formula call). */
  private aggregated(j: number): void {
    if (this.at(j + 1) === T_LPAREN) {
      this.formulaCall(j);
      return;
    }
    this.i++;
    if (this.at(this.i) === T_COLUMN) {
      this.columnClause(j, j, 0);
      return;
    }
    const name = this.val(j);
    this.sink.add(this.spanOf(j), codes.MISSING_OPERAND, `${name} needs a column after it: ${name} [delay].`);
    this.error(j, j, name);
  }

  /** An operator with no column before it (`= 'SEA'`, `between 1 and 2`): its values read, an error clause. */
  private operatorWithoutColumn(j: number): void {
    const name = this.val(j);
    this.i++;
    this.filterColumn = -1;
    const count = this.K[j] === T_KEYWORD && this.D[j] === ID_BETWEEN ? this.between(j) : this.values(j);
    const hint = this.K[j] === T_OPERATOR ? `[column] ${name} value` : `[column] ${name} …`;
    this.sink.add(this.spanOf(j), codes.MISSING_OPERAND, `${name} needs a column before it: ${hint}.`);
    this.error(j, count ? this.vals[count - 1]! : j, name);
  }

  /** Reads a column after the keyword at `kw` (`sort by`, `by`, `growth of`, …): its reference's last position, or -1 (missingOperand reported at `kw`). */
  private requireColumn(kw: number, usage: string): number {
    if (this.at(this.i) === T_COLUMN) return this.columnRef();
    this.sink.add(this.spanOf(kw), codes.MISSING_OPERAND, `${this.val(kw)} needs a column after it: ${usage}.`);
    return -1;
  }

  /** `ranked by [aggregation] [column]`, kept for the query's `top`/`bottom` (`attachRanked`). */
  private rankedByClause(j: number): void {
    this.i++;
    // `ranked by count [destination]` (the token form): ranked by an aggregate
    const agg = this.aggregation();
    const c = this.i;
    const last = this.requireColumn(agg >= 0 ? agg : j, 'top 10 [origin] ranked by [delay]');
    if (last < 0) {
      this.error(j, j, 'ranked by');
      return;
    }
    // the node where it stands, its column reference its child (the AST moves it into its top/bottom)
    this.withRef(N_RANKED, j, last, c, last);
    (this.rankedBy ??= []).push({ kw: j, agg, c, last });
  }

  /** A keyword no production takes where it stands: a `keyword` clause (warned unless the emulator does not run it). */
  private misplacedKeyword(j: number): void {
    const id = this.D[j]!;
    const name = keywordName(id);
    this.i++;
    let end = j;
    if (PAREN_KEYWORD_IDS[id] && this.at(this.i) === T_LPAREN) end = this.parenGroup();
    else if (UNSUPPORTED_IDS[id]) end = this.operandsOf(end);
    if (!UNSUPPORTED_IDS[id]) this.sink.add(this.spanOf(j), codes.MISPLACED_KEYWORD, `"${name}" has no meaning here: ${findKeyword(name)?.meaning ?? ''}`, 'warning');
    this.leaf(N_KEYWORD, j, end);
    if (this.ast) this.push({ kind: 'keyword', keyword: name, start: this.S[j]!, end: this.E[end]! });
  }

  /** `vs` / `versus` (vs.adoc), and `vs all` as one clause (all.adoc: all "can only be used as part of a versus phrase"). */
  private versus(j: number): void {
    this.i++;
    const all = this.i;
    if (this.kwIs(all, ID_ALL)) {
      this.i++;
      this.leaf(N_VERSUS, j, all);
      if (this.ast) this.push({ kind: 'versus', all: true, start: this.S[j]!, end: this.E[all]! });
    } else {
      this.leaf(N_VERSUS, j, j);
      if (this.ast) this.push({ kind: 'versus', all: false, start: this.S[j]!, end: this.E[j]! });
    }
  }

  /**
   * `in (subsearch)` / `not in (subsearch)` (in.adoc, not_in.adoc) at `kw`, on the column at `col` (-1:
   * none) when written before it, the clause starting at `first`: the tokens between the parentheses are
   * parsed as a query of their own. Without parentheses, or with an unclosed one, a diagnostic and an `error` clause.
   */
  private subsearch(kw: number, col: number, first: number): void {
    this.i++;
    const name = this.val(kw);
    if (this.at(this.i) !== T_LPAREN) {
      this.sink.add(this.spanOf(kw), codes.MISSING_OPERAND, `${name} needs a subsearch in parentheses after it: [origin] ${name} (top 10 [origin] [delay]).`);
      this.error(first, kw, name);
      return;
    }
    const from = this.i + 1;
    const end = this.parenGroup();
    const close = this.i - 1;
    if (this.K[close] !== T_RPAREN || close < from) {
      this.error(first, end, name);
      return;
    }
    if (this.depth >= MAX_SUBSEARCH_DEPTH) {
      this.sink.add(this.spanOf(kw), codes.NESTING_TOO_DEEP, `Subsearches nest deeper than ${MAX_SUBSEARCH_DEPTH} levels here: TSQ reads no further inside; write the inner search as a query of its own.`);
      this.error(first, end, name);
      return;
    }
    const node = this.open(N_SUBSEARCH, first, end);
    if (col >= 0) this.leaf(N_REF, col, col);
    const clauses = new ClauseParser(this.sink, this.q, this.buf, this.ast, this.depth + 1, this.parens).parse(from, close);
    this.close(node);
    if (this.ast) this.push({ kind: 'subsearch', column: col >= 0 ? this.refAst(col, col) : undefined, negated: this.D[kw] === ID_NOT_IN, clauses, start: this.S[first]!, end: this.E[end]! });
  }

  /**
   * A location filter (list-location.adoc; docs.thoughtspot.com search-proximity): `near 'place'`, `near
   * 'place' within N miles|km|meters`, `farther than N miles|km|meters from 'place'`, at `kw`, on the column
   * at `col` (-1: none) when written before it. A missing part is a missingOperand diagnostic and an
   * `error` clause over what was read.
   */
  private location(kw: number, col: number, first: number): void {
    this.i++;
    // the rest of the phrase (values, numbers, location words) goes into the error clause: one diagnostic
    const fail = (at: number, message: string, end: number): void => {
      this.sink.add(this.spanOf(at), codes.MISSING_OPERAND, message);
      this.error(first, this.operandsOf(end), this.val(kw));
    };
    const done = (relation: 'near' | 'farther', place: number, d: number, end: number): void => {
      if (this.buf) {
        const node = this.open(N_LOCATION, first, end);
        if (col >= 0) this.leaf(N_REF, col, col);
        this.close(node);
      }
      if (!this.ast) return;
      const column = col >= 0 ? this.refAst(col, col) : undefined;
      const start = this.S[first]!;
      if (d < 0) this.push({ kind: 'location', column, relation, place: this.val(place), start, end: this.E[end]! });
      else this.push({ kind: 'location', column, relation, place: this.val(place), distance: { n: numberOf(this.val(d)), unit: this.valIn(d + 1, DISTANCE_UNIT_NAMES, 'distance unit') }, start, end: this.E[end]! });
    };
    if (this.D[kw] === ID_NEAR) {
      const p = this.place();
      if (p < 0) return fail(kw, "near needs a place after it: [city] near 'seattle' (within 50 miles).", kw);
      const w = this.i;
      if (!this.kwIs(w, ID_WITHIN)) return done('near', p, -1, p);
      this.i++;
      const d = this.distance();
      if (d < 0) return fail(w, 'within needs a distance after it: within 50 miles (or km, meters).', w);
      return done('near', p, d, d + 1);
    }
    const d = this.distance();
    if (d < 0) return fail(kw, "farther than needs a distance and a place: farther than 80 km from 'seattle'.", kw);
    const f = this.i;
    if (!this.kwIs(f, ID_FROM)) return fail(kw, "farther than needs from and a place: farther than 80 km from 'seattle'.", d + 1);
    this.i++;
    const p = this.place();
    if (p < 0) return fail(f, "from needs a place after it: farther than 80 km from 'seattle'.", f);
    done('farther', p, d, p);
  }

  /** `N miles|km|meters` at the current token: the number's position (consumed with its unit), or -1. */
  private distance(): number {
    const n = this.i;
    if (this.at(n) !== T_NUMBER || !this.kwFlag(n + 1, F_DISTANCE_UNIT)) return -1;
    this.i += 2;
    return n;
  }

  /** `'place'` at the current token: its position (consumed), or -1. */
  private place(): number {
    const p = this.i;
    if (this.at(p) !== T_VALUE) return -1;
    this.i++;
    return p;
  }

  /**
   * The operands of a keyword the emulator does not execute (or of an incomplete location phrase),
   * consumed so that they make no clauses of their own: values, numbers and the location keywords (`near 'seattle' within 50 miles`,
   * `farther than 80 km from 'seattle'`). Returns the position of the last one (`end` when none).
   */
  private operandsOf(end: number): number {
    for (;;) {
      const t = this.i;
      const k = this.at(t);
      const operand = k === T_VALUE || k === T_NUMBER || (k === T_KEYWORD && (this.D[t] === ID_ALL || (KW_FLAGS[this.D[t]!]! & F_LOCATION) !== 0));
      if (!operand) return end;
      this.i++;
      end = t;
    }
  }

  /**
   * A period function (list-period.adoc): `quarter ([date])`, `month of quarter ([date])`, … is the date
   * part of `[date]` its bucket names (keywords.ts `PERIOD_FUNCTIONS`), a column clause on `[date]` with
   * that bucket. False (nothing consumed) when no `( [column] )` follows.
   */
  private periodFunction(j: number): boolean {
    if (this.at(j + 1) !== T_LPAREN || this.at(j + 2) !== T_COLUMN || this.at(j + 3) !== T_RPAREN) return false;
    this.i += 4;
    const col = j + 2;
    this.withRef(N_COLUMN, j, j + 3, col, col);
    if (!this.ast) return true;
    const name = this.val(j);
    const bucket = new BucketNode(name, PERIODS.get(name)!, this.S[j]!, this.E[j]!);
    const ref = new BucketedColumnNode(this.val(col), this.q.closed(col), bucket, this.S[col]!, this.E[col]!);
    this.push(new ColumnClauseNode(ref, this.S[j]!, this.E[j + 3]!));
    return true;
  }

  /** `by` / `for each` [aggregation] [column], or a date part (`by week`). */
  private groupingClause(j: number): void {
    const name = this.val(j);
    this.i++;
    const agg = this.aggregation();
    const c = this.i;
    if (this.at(c) === T_COLUMN) {
      this.columnClause(agg, j, this.D[j] === ID_BY ? FLAG_BY : FLAG_FOR_EACH);
      return;
    }
    if (agg < 0 && this.kwFlag(c, F_UNIT | F_BUCKET)) {
      // `by week`, `by day of week`, `for each month` (list-date.adoc): a bucket of the date column,
      // which is the data source's when none is listed.
      this.i++;
      this.leaf(N_BUCKET, j, c);
      if (!this.ast) return;
      const unit = this.val(c);
      const bucket = isUnit(unit) ? UNIT_BUCKETS[unit] : expectOneOf(DATE_BUCKETS, unit, 'date bucket');
      this.push({ kind: 'bucket', bucket, start: this.S[j]!, end: this.E[c]! });
      return;
    }
    const at = agg >= 0 ? agg : j;
    this.sink.add(this.spanOf(at), codes.MISSING_OPERAND, `${name} needs a column after it: ${name} [origin].`);
    this.error(j, at, name);
  }

  /** `top` / `bottom` [N] (N defaults to 10); `top 2 days ago` leaves the number to the date. */
  private topBottom(j: number): void {
    this.i++;
    this.tops++;
    const num = this.i;
    // Each clause is made whole by one constructor call or literal: a property added afterwards
    // costs the object a separate property store (one more object per clause for the collector).
    // The frequent clauses are made by the constructors of nodes.ts (see there why).
    if (this.digits(num) && !(this.kwFlag(num + 1, F_UNIT) && this.kwIs(num + 2, ID_AGO))) {
      // `top 2 days ago` is no top N: leave the number to the date.
      this.i++;
      this.leaf(N_TOP, j, num);
      if (this.ast) this.push(new TopBottomNode(this.val(j) as 'top' | 'bottom', numberOf(this.val(num)), new SpanNode(this.S[num]!, this.E[num]!), this.S[j]!, this.E[num]!));
      return;
    }
    this.leaf(N_TOP, j, j);
    if (this.ast) this.push(new TopBottomNode(this.val(j) as 'top' | 'bottom', 10, undefined, this.S[j]!, this.E[j]!));
  }

  /** `sort by [aggregation] [column] [ascending|descending]`. */
  private sortBy(j: number): void {
    this.i++;
    const agg = this.aggregation();
    let c = this.i;
    let last = this.requireColumn(agg >= 0 ? agg : j, 'sort by [delay] descending');
    if (last < 0) {
      this.error(j, agg >= 0 ? agg : j, 'sort by');
      return;
    }
    // `sort by [date] [date].daily descending` (the token form): the column, then it with its bucket
    const again = this.i;
    if (last === c && this.at(again) === T_COLUMN && this.at(again + 1) === T_DOT && this.glued(again, again + 1) && this.val(again) === this.val(c)) {
      const l2 = this.columnRef();
      if (this.refKnown) {
        c = again;
        last = l2;
      } else this.i = again;
    }
    const d = this.i;
    const direction = this.kwIs(d, ID_ASCENDING) || this.kwIs(d, ID_DESCENDING);
    if (direction) this.i++;
    const end = direction ? d : last;
    this.withRef(N_SORT, j, end, c, last);
    // One shape per constructor call or literal (see `top`).
    if (this.ast) this.push(new SortNode(this.refAst(c, last), agg >= 0 ? (this.valIn(agg, AGGREGATIONS, 'aggregation')) : undefined, direction ? (this.val(d) as 'ascending' | 'descending') : undefined, this.S[j]!, this.E[end]!));
  }

  /** `growth of [measure] by [date] [bucket] [period-over-period]` (keywords.ts `PERIOD_OVER_PERIOD`; search-growth). */
  private growthOf(j: number): void {
    const name = 'growth of';
    this.i++;
    const m = this.i;
    const ml = this.requireColumn(j, 'growth of [delay] by [date]');
    if (ml < 0) {
      this.error(j, j, name);
      return;
    }
    const by = this.i;
    if (!this.kwIs(by, ID_BY)) {
      this.sink.add({ start: this.S[j]!, end: this.E[ml]! }, codes.MISSING_OPERAND, 'growth of needs "by" and a date column: growth of [delay] by [date].');
      this.error(j, ml, name);
      return;
    }
    this.i++;
    const d = this.i;
    const dl = this.requireColumn(by, 'growth of [delay] by [date]');
    if (dl < 0) {
      this.error(j, by, name);
      return;
    }
    let bucket: DateBucket | undefined = this.refKnown ?? undefined;
    let end = dl;
    const b = this.i;
    if (this.kwFlag(b, F_BUCKET)) {
      this.i++;
      bucket = KW_BUCKET[this.D[b]!];
      end = b;
    }
    const pop = this.i;
    const periodOverPeriod = this.kwFlag(pop, F_PERIOD_OVER_PERIOD) ? expectOneOf(PERIOD_OVER_PERIOD_NAMES, keywordName(this.D[pop]!), 'period-over-period keyword') : undefined;
    if (periodOverPeriod) {
      this.i++;
      end = pop;
    }
    if (this.buf) {
      const node = this.open(N_GROWTH, j, end);
      this.leaf(N_REF, m, ml);
      this.leaf(N_REF, d, dl);
      this.close(node);
    }
    if (!this.ast) return;
    const measure = this.refAst(m, ml);
    const date = this.refAst(d, dl);
    const start = this.S[j]!;
    const e = this.E[end]!;
    // One shape per constructor call or literal (see `top`).
    this.push(bucket !== undefined
      ? { kind: 'growth', measure, by: date, bucket, periodOverPeriod, start, end: e }
      : { kind: 'growth', measure, by: date, periodOverPeriod, start, end: e });
  }

  /** `calendar.name` (a calendar for the whole query), or the bare keyword. */
  private calendarClause(j: number): void {
    this.i++;
    const dot = this.i;
    const nm = dot + 1;
    if (this.at(dot) === T_DOT && this.glued(j, dot)) {
      this.i++;
      const k = this.at(nm);
      if (k !== NONE && this.glued(dot, nm) && (k === T_WORD || k === T_KEYWORD || k === T_VALUE)) {
        this.i++;
        this.leaf(N_CALENDAR, j, nm);
        if (this.ast) this.push({ kind: 'calendar', name: this.val(nm), start: this.S[j]!, end: this.E[nm]! });
        return;
      }
      this.sink.add(this.spanOf(dot), codes.MISSING_OPERAND, "A calendar name must follow calendar.: calendar.fiscal or calendar.'my calendar'.");
      this.error(j, dot, 'calendar.');
      return;
    }
    // `calendar` alone (calendar.adoc): the Gregorian calendar instead of the column's custom one.
    this.leaf(N_CALENDAR, j, j);
    if (this.ast) this.push({ kind: 'calendar', name: 'calendar', start: this.S[j]!, end: this.E[j]! });
  }
}

// ---- cursor helpers (completion, hover) ------------------------------------------------------------------

/**
 * Where an offset falls among tokens, for completion and hover.
 *
 * - `index`: index in `tokens` of the token the cursor is in or touches at its end (`start < offset <= end`),
 *   or, when none, the index the next token would have (so `tokens[index - 1]` is the one before).
 * - `token`: that token when the cursor is inside it or right at its end (`[ori|`, `sort b|`), else undefined.
 * - `previous`: the last token before `token` (or before the cursor) that is not a comment or blank line.
 * - `inComment`: the cursor is inside a `--` comment.
 *
 * Binary search: O(log n). Never throws.
 */
export function tokenAt(tokens: readonly Token[], offset: number): { index: number; token: Token | undefined; previous: Token | undefined; inComment: boolean } {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.end < offset) lo = mid + 1;
    else hi = mid;
  }
  // tokens[lo] is the first token with end >= offset.
  let token: Token | undefined;
  const cand = tokens[lo];
  if (cand && cand.start < offset && offset <= cand.end && cand.kind !== 'blank') token = cand;
  else if (cand && cand.start === offset && cand.end === offset) token = cand;
  let p = lo - 1;
  while (p >= 0 && isTrivia(tokens[p]!)) p--;
  const inComment = !!token && token.kind === 'comment';
  return { index: lo, token, previous: p >= 0 ? tokens[p] : undefined, inComment };
}

/** The query whose span contains `offset` (its end included), or undefined. Binary search over the queries. */
export function queryAt(doc: TsqDocument, offset: number): Query | undefined {
  if (doc instanceof SyntaxDocument) {
    const i = doc.queryIndexAt(offset);
    return i < 0 ? undefined : doc.query(i);
  }
  let lo = 0;
  let hi = doc.queries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (doc.queries[mid]!.end < offset) lo = mid + 1;
    else hi = mid;
  }
  const q = doc.queries[lo];
  return q && q.start <= offset && offset <= q.end ? q : undefined;
}

/** The clause of a query whose span contains `offset` (its end included), or undefined. */
export function clauseAt(query: Query, offset: number): Clause | undefined {
  return query.clauses.find((c) => c.start <= offset && offset <= c.end);
}

/** The data source in force at an offset: the value of the last `@datasource` before it, or undefined. */
export function dataSourceAt(doc: TsqDocument, offset: number): string | undefined {
  let ds: string | undefined;
  for (const d of doc.directives) {
    if (d.start > offset) break;
    ds = d.value;
  }
  return ds;
}
