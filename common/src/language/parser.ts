/**
 * The `.tsq` parser: splits a document into `@datasource` directives, trivia and queries (ended by `;`, a
 * blank line or the end of the file), writing the lossless tree of tree.ts (`SyntaxDocument`); each query's
 * clauses (ast.ts) come from one grammar (grammar.ts, which dispatches `ClauseParser`), with error recovery: written as nodes at parse time
 * (the frequent ones straight from the lexer's arrays, `FastClauses`), as objects on demand (`SyntaxDocument.query`).
 * - A relative date right after a plain column (not after `by` or `for each`) filters that column:
 *   `[date] last 7 days` is one `dateFilter` on [date]. Elsewhere it stands alone (no `column`).
 * - `ranked by [col]` attaches to the query's `top`/`bottom`; without one it is a `keyword` clause.
 * - An aggregation before a column makes a `column` clause (a `filter` with `aggregation` when an
 *   operator follows); `for` itself makes no clause.
 * - A bare word in value position is a text value (with a `tsq.unknownWord` warning). Pure, never throws.
 */
import type {
  Aggregation, Clause, ColumnRef, Comment, DataSourceDirective, DateBucket, DateUnit, DistanceUnit, FilterOperator,
  ParseDiagnostic, PeriodOverPeriod, Query, RelativeDate, Span, ToDateUnit, TsqDocument, Value,
} from './ast';
import * as codes from './diagnosticCodes';
import { SEARCH_GRAMMAR, type ProductionName } from './grammar';
import {
  AGGREGATIONS, DATE_BUCKETS, DATE_UNITS, DAY_NAMES, DISTANCE_UNITS, KEYWORDS, MONTH_NAMES, PERIOD_FUNCTIONS, PERIOD_OVER_PERIOD, QUARTER_NAMES, TO_DATE, UNIT_BUCKETS, WORD_OPERATORS, booleanOf, findDateBucket, findKeyword,
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
const { KEYWORD_ID_COUNT, Lexer, NUMBER_DIGITS, NUMBER_YEAR, QueryEnds, keywordId, keywordName, makeToken, tokenEstimate, tokenize } = lexer;
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
const WORD_OPERATOR_SET = new Set<string>(WORD_OPERATORS);
const UNITS = new Set<string>(DATE_UNITS);
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
 * @param options `fastClauses: false` parses every query with `ClauseParser` instead of writing the
 *   frequent ones' nodes straight from the tokens (`FastClauses`); the tree is the same either way
 *   (test/unit/tree.test.ts compares them). Default true.
 */
export function parseDocument(text: string, options?: { fastClauses?: boolean }): SyntaxDocument {
  const diagnostics: ParseDiagnostic[] = [];
  const lexer = new Lexer(text, diagnostics);
  const builder = new TreeBuilder(text, diagnostics, 0, tokenEstimate(text.length));
  if (options?.fastClauses === false) builder.fastClauses = false;
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
 * ends and written as its nodes: by `FastClauses` straight from the typed arrays when the query is made of
 * the frequent clauses with no problem, else by `ClauseParser` (the one grammar) from token objects.
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
  private readonly writer: NodeWriter;
  private readonly fast: FastClauses;
  /** Whether queries go through `FastClauses` first (see `parseDocument`'s options). */
  fastClauses = true;
  /** Token objects of the current query, made only when `ClauseParser` parses it (reused list). */
  private readonly tokens: Token[] = [];
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
    this.parser = new ClauseParser(this.sink);
    this.writer = new NodeWriter(this.buf, this.tokens);
    this.fast = new FastClauses(this.buf, text);
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
    if (!this.fastClauses || !this.fast.parse(this.queryTok, this.lastTok, this.queryPos)) {
      // the general parser, from token objects (the fast one wrote nothing that stays)
      buf.nodeCount = nodeFrom;
      const tokens = this.tokens;
      const text = this.text;
      let count = 0;
      for (let t = this.queryTok; t < this.lastTok; t++) if (buf.kinds[t] !== WHITESPACE && buf.kinds[t] !== K_COMMENT) count++;
      if (this.index.length < count) this.index = new Uint32Array(count * 2);
      const index = this.index;
      let pos = this.queryPos;
      let k = 0;
      for (let t = this.queryTok; t < this.lastTok; t++) {
        const kind = buf.kinds[t]!;
        const w = buf.width(t);
        if (kind !== WHITESPACE && kind !== K_COMMENT) {
          tokens[k] = makeToken(kind, buf.details[t]!, pos, pos + w, text);
          index[k++] = t;
        }
        pos += w;
      }
      const clauses = this.parser.parse(tokens, 0, count);
      const w = this.writer;
      w.reset(index, count);
      for (let c = 0; c < clauses.length; c++) w.clause(clauses[c]!);
    }
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

/** How many steps `NodeWriter` walks from the last token it found before it searches instead. */
const WALK = 16;

/**
 * Writes a query's clauses (the parser's objects) into its tree nodes: each clause a node over the
 * tokens its span covers, its column references and values as children, a `missing` node where a value
 * is expected and absent.
 */
class NodeWriter {
  private index: Uint32Array = new Uint32Array(0);
  private count = 0;

  /** One writer per parse: `tokens` is the builder's list of the current query's significant tokens. */
  constructor(private readonly buf: GreenBuffer, private readonly tokens: Token[]) {}

  /** Starts a query: `tokens[0, count)`, at `index[0, count)` of the buffer. */
  reset(index: Uint32Array, count: number): void {
    this.index = index;
    this.count = count;
    this.at = 0;
  }

  /** A token index near the last one asked for: clauses come in order and children inside, so look-ups walk a step or two. */
  private at = 0;

  /** Index in `buf` of the first significant token starting at or after `offset`. */
  private from(offset: number): number {
    const t = this.tokens;
    let k = this.at;
    let steps = 0;
    while (k > 0 && t[k - 1]!.start >= offset && ++steps < WALK) k--;
    while (k < this.count && t[k]!.start < offset && ++steps < WALK) k++;
    if (steps >= WALK) k = this.search(offset, false);
    this.at = k;
    return k < this.count ? this.index[k]! : this.index[this.count - 1]! + 1;
  }

  /** Index in `buf` after the last significant token ending at or before `offset`. */
  private to(offset: number): number {
    const t = this.tokens;
    let k = this.at;
    let steps = 0;
    while (k > 0 && t[k - 1]!.end > offset && ++steps < WALK) k--;
    while (k < this.count && t[k]!.end <= offset && ++steps < WALK) k++;
    if (steps >= WALK) k = this.search(offset, true);
    return k > 0 ? this.index[k - 1]! + 1 : this.index[0]!;
  }

  /**
   * The first token of `tokens[0, count)` whose end (`byEnd`) is after `offset`, or whose start is at or
   * after it: a binary search, for the look-ups a walk does not reach in `WALK` steps (a clause spanning
   * a long subsearch: walking its tokens at each nested level made deep nesting quadratic).
   */
  private search(offset: number, byEnd: boolean): number {
    const t = this.tokens;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const tok = t[mid]!;
      if (byEnd ? tok.end <= offset : tok.start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private leaf(kind: number, span: Span): void {
    this.buf.addNode(kind, this.from(span.start), this.to(span.end));
  }

  private ref(c: ColumnRef | undefined): void {
    if (c) this.leaf(COLUMN_REF, c);
  }

  clause(c: Clause): void {
    const buf = this.buf;
    const to = this.to(c.end);
    const node = buf.addNode(nodeKindOfClause(c), this.from(c.start), to);
    switch (c.kind) {
      case 'column':
      case 'sort':
        this.ref(c.column);
        break;
      case 'filter':
        this.ref(c.column);
        for (let k = 0; k < c.values.length; k++) this.leaf(VALUE, c.values[k]!);
        if (c.values.length === 0 || (c.operator === 'between' && c.values.length < 2)) buf.addNode(MISSING, to, to);
        break;
      case 'dateFilter':
      case 'location':
        this.ref(c.column);
        break;
      case 'growth':
        this.ref(c.measure);
        this.ref(c.by);
        break;
      case 'subsearch':
        this.ref(c.column);
        for (let k = 0; k < c.clauses.length; k++) this.clause(c.clauses[k]!);
        break;
      default:
        break;
    }
    buf.close(node);
  }
}

/** A clause's node kind (`NODE_KINDS` index): a switch, the frequent kinds first (a keyed look-up of `NK` by the kind was slower). */
function nodeKindOfClause(c: Clause): number {
  switch (c.kind) {
    case 'column': return N_COLUMN;
    case 'filter': return N_FILTER;
    case 'sort': return N_SORT;
    case 'topBottom': return N_TOP;
    case 'dateFilter': return N_DATE;
    default: return NK[c.kind];
  }
}
const N_COLUMN = NK.column;
const N_FILTER = NK.filter;
const N_SORT = NK.sort;
const N_TOP = NK.topBottom;
const N_DATE = NK.dateFilter;
const COLUMN_REF = NK.columnRef;
const VALUE = NK.value;
const MISSING = NK.missing;

const T_COLUMN = TK.column, T_VALUE = TK.value, T_NUMBER = TK.number, T_OPERATOR = TK.operator, T_KEYWORD = TK.keyword,
  T_CONSTANT = TK.constant, T_COMMA = TK.comma, T_DOT = TK.dot, T_WORD = TK.word;

// Keyword facts by `KeywordId` for `FastClauses`, derived from the parser's sets above (themselves from the
// catalogue): bits of `KW_FLAGS`, what a keyword at the head of a clause starts (`KW_START`), and ranks.
const F_AGGREGATION = 1, F_WORD_OPERATOR = 2, F_BUCKET = 4, F_UNIT = 8, F_NAMED_DATE = 16, F_LOCATION_OR_IN = 32;
const S_AGGREGATION = 1, S_TOP = 2, S_SORT = 3, S_GROUP = 4, S_GROWTH = 5, S_DATE = 6, S_COLUMN = 7;
/** The grammar's productions the fast path writes (the others are left to ClauseParser), by their start code. */
const FAST_START: Partial<Record<ProductionName, number>> = {
  columnClause: S_COLUMN, aggregated: S_AGGREGATION, topBottom: S_TOP, sortBy: S_SORT, grouping: S_GROUP, growth: S_GROWTH, relativeDate: S_DATE, relativePeriod: S_DATE, toDate: S_DATE,
};
const KW_FLAGS = new Uint8Array(KEYWORD_ID_COUNT);
const KW_START = new Uint8Array(KEYWORD_ID_COUNT);
/** A to-date keyword's unit (`year to date`: year) as its rank in `TO_DATE_PERIODS`; -1 for others. */
const KW_TO_DATE_RANK = new Int8Array(KEYWORD_ID_COUNT).fill(-1);
/** A keyword's own rank in `TO_DATE_PERIODS` (`month`), the period after `… to date for each`; -1 for others. */
const KW_PERIOD_RANK = new Int8Array(KEYWORD_ID_COUNT).fill(-1);
const ID_BY = keywordId('by'),
  ID_FOR_EACH = keywordId('for each'), ID_BETWEEN = keywordId('between'), ID_AND = keywordId('and'),
  ID_OR = keywordId('or'), ID_ASCENDING = keywordId('ascending'), ID_DESCENDING = keywordId('descending'), ID_AGO = keywordId('ago'),
  ID_TODAY = keywordId('today'), ID_YESTERDAY = keywordId('yesterday'), ID_THIS = keywordId('this'), ID_LAST = keywordId('last'),
  ID_NEXT = keywordId('next'), ID_NEAR = keywordId('near'), ID_FARTHER = keywordId('farther than'), ID_IN = keywordId('in'), ID_NOT_IN = keywordId('not in');
for (let id = 1; id < KEYWORD_ID_COUNT; id++) {
  const name = keywordName(id);
  let f = 0;
  if (AGGREGATION_SET.has(name)) f |= F_AGGREGATION;
  if (WORD_OPERATOR_SET.has(name)) f |= F_WORD_OPERATOR;
  if (BUCKET_SET.has(name)) f |= F_BUCKET;
  if (UNITS.has(name)) f |= F_UNIT;
  if (DAYS.has(name) || MONTHS.has(name) || QUARTERS.has(name)) f |= F_NAMED_DATE;
  if (id === ID_NEAR || id === ID_FARTHER || id === ID_IN || id === ID_NOT_IN) f |= F_LOCATION_OR_IN;
  KW_FLAGS[id] = f;
  const toDate = TO_DATE_UNITS.get(name);
  if (toDate) KW_TO_DATE_RANK[id] = TO_DATE_PERIODS.indexOf(toDate);
  KW_PERIOD_RANK[id] = TO_DATE_PERIODS.indexOf(name as ToDateUnit);
  // the keyword's first production in the grammar (grammar.ts), the one ClauseParser tries first, when the
  // fast path writes it; else 0 (left to ClauseParser)
  KW_START[id] = FAST_START[PRODUCTIONS_BY_KEYWORD.get(name)![0]!] ?? 0;
}
/** What a token of a kind starts (`TK` index): its first production in the grammar, when the fast path writes it. */
const TOKEN_START = new Uint8Array(TK.whitespace + 1);
for (const [kind, list] of PRODUCTIONS_BY_TOKEN) TOKEN_START[TK[kind]] = FAST_START[list[0]!] ?? 0;
/**
 * The parser's dispatch tables (test/unit/grammar-once.test.ts checks each is derived from grammar.ts):
 * the productions by keyword and by token kind, the fast path's start codes by production, by `KeywordId`
 * and by `TK` index.
 */
export const PARSER_DISPATCH = { byKeyword: PRODUCTIONS_BY_KEYWORD, byToken: PRODUCTIONS_BY_TOKEN, fastStart: FAST_START, keywordStart: KW_START, tokenStart: TOKEN_START } as const;
const N_REF = NK.columnRef, N_VALUE = NK.value, N_BUCKET = NK.bucket, N_GROWTH = NK.growth;

/**
 * The whole-document parse's fast path: writes a query's nodes straight from its tokens' typed arrays
 * (`QueryTokens`), with no token or clause object, for the clauses most queries are made of: columns
 * (aggregated, bucketed, after `by` / `for each`), filters with values, `between`, relative dates after a
 * column or alone, `top`/`bottom` N, `sort by`, `by <unit>`, `growth of` without a keyword after it. The
 * nodes are those `ClauseParser` + `NodeWriter` write for the same tokens (test/unit/tree.test.ts checks
 * it); at anything else, and wherever `ClauseParser` would report a problem, `parse` answers false and the
 * builder parses the query again with `ClauseParser` (the one grammar), so diagnostics come from there.
 */
class FastClauses {
  private K: Uint8Array = new Uint8Array(0);
  private D: Uint8Array = new Uint8Array(0);
  /** After the query's last significant token (an index into the buffer, like every token position here). */
  private n = 0;
  private i = 0;
  /** The query's first token and its absolute start. */
  private from = 0;
  private fromPos = 0;
  /** The buffer positions of a filter's values (scratch, grown as needed). */
  private vals = new Int32Array(16);
  /** The buffer's node arrays and count while a query is written (room reserved by `parse`). */
  private nk: Uint8Array = new Uint8Array(0);
  private nf: Uint32Array = new Uint32Array(0);
  private nl: Uint16Array = new Uint16Array(0);
  private ns: Uint16Array = new Uint16Array(0);
  private nc = 0;

  constructor(private readonly buf: GreenBuffer, private readonly text: string) {}

  /**
   * Writes the nodes of the query whose significant tokens lie in `[from, to)` of the buffer (`from` one of
   * them, at offset `fromPos`; whitespace and comments between them skipped); false (nodes to be dropped
   * by the caller) when it is not for the fast path.
   */
  parse(from: number, to: number, fromPos: number): boolean {
    // a node covers at most the query's tokens and a query has fewer nodes than twice its tokens: under
    // this many tokens no count needs the buffer's escape, so nodes are stored straight into the arrays
    if (to - from >= 0x4000) return false;
    const buf = this.buf;
    buf.reserveNodes(2 * (to - from) + 2);
    this.nk = buf.nodeKinds;
    this.nf = buf.nodeFrom;
    this.nl = buf.nodeLengths;
    this.ns = buf.nodeSizes;
    this.nc = buf.nodeCount;
    const ok = this.clauses(from, to, fromPos);
    buf.nodeCount = this.nc;
    return ok;
  }

  /** Stores a node over tokens `[from, to)` whose subtree has `size` nodes. */
  private node(kind: number, from: number, to: number, size: number): void {
    const i = this.nc++;
    this.nk[i] = kind;
    this.nf[i] = from;
    this.nl[i] = to - from;
    this.ns[i] = size;
  }

  private clauses(from: number, to: number, fromPos: number): boolean {
    const K = (this.K = this.buf.kinds);
    this.D = this.buf.details;
    this.n = to;
    this.i = from;
    this.from = from;
    this.fromPos = fromPos;
    while (this.i < to) {
      const i = this.i;
      const k = K[i]!;
      // the token's first production in the grammar (grammar.ts), as `KW_START` / `TOKEN_START` name it
      switch (k === T_KEYWORD ? KW_START[this.D[i]!] : TOKEN_START[k]) {
        case S_COLUMN:
          if (!this.columnClause(i, false, false)) return false;
          break;
        case S_AGGREGATION: {
          const c = this.next(i);
          if (c >= to || K[c] !== T_COLUMN) return false;
          this.i = c;
          if (!this.columnClause(i, true, false)) return false;
          break;
        }
        case S_TOP:
          this.topBottom();
          break;
        case S_SORT:
          if (!this.sortBy()) return false;
          break;
        case S_GROUP:
          if (!this.grouping()) return false;
          break;
        case S_GROWTH:
          if (!this.growth()) return false;
          break;
        case S_DATE: {
          const last = this.relativeDate();
          if (last < 0) return false;
          this.leaf(N_DATE, i, last);
          break;
        }
        default:
          return false;
      }
    }
    return true;
  }

  /** The significant token after `t` (whitespace and comments skipped), `n` when there is none. */
  private next(t: number): number {
    const K = this.K, n = this.n;
    let u = t + 1;
    while (u < n && (K[u] === WHITESPACE || K[u] === K_COMMENT)) u++;
    return u;
  }

  /** A node over tokens `[first, last]` with no children. */
  private leaf(kind: number, first: number, last: number): void {
    this.node(kind, first, last + 1, 1);
  }

  /** A clause node over `[first, last]` with the column reference `[c, cl]` as its child. */
  private withRef(kind: number, first: number, last: number, c: number, cl: number): void {
    this.node(kind, first, last + 1, 2);
    this.node(N_REF, c, cl + 1, 1);
  }

  /** `ClauseParser.columnClause` from the column at `i`, the clause starting at `first`. */
  private columnClause(first: number, aggregated: boolean, grouping: boolean): boolean {
    const K = this.K, D = this.D, n = this.n;
    const c = this.i;
    if (!aggregated && !grouping && c + 2 < n && K[c + 1] === T_DOT) {
      // the token form's `[origin].SEA`, `[delay].10`, `[origin].{null}` (ClauseParser `dotValue`): a filter
      // over the three tokens, its column and its value the children
      const kb = K[c + 2];
      if (kb === T_WORD || kb === T_NUMBER || kb === T_CONSTANT) {
        this.i = this.next(c + 2);
        this.node(N_FILTER, first, c + 3, 3);
        this.node(N_REF, c, c + 1, 1);
        this.node(N_VALUE, c + 2, c + 3, 1);
        return true;
      }
    }
    const cl = this.columnRef();
    if (cl < 0) return false;
    const j = this.i;
    if (j < n) {
      const k = K[j]!;
      if (k === T_OPERATOR || (k === T_KEYWORD && (KW_FLAGS[D[j]!]! & F_WORD_OPERATOR) !== 0)) {
        this.i = this.next(j);
        const count = k === T_KEYWORD && D[j] === ID_BETWEEN ? this.between() : this.values();
        if (count <= 0) return false;
        const vals = this.vals;
        this.node(N_FILTER, first, vals[count - 1]! + 1, count + 2);
        this.node(N_REF, c, cl + 1, 1);
        for (let v = 0; v < count; v++) {
          const x = vals[v]!;
          this.node(N_VALUE, x, x + 1, 1);
        }
        return true;
      }
      if (!aggregated && !grouping && cl === c) {
        if (k === T_KEYWORD && (KW_FLAGS[D[j]!]! & F_LOCATION_OR_IN) !== 0) return false;
        const last = this.relativeDate();
        if (last === -1) return false;
        if (last >= 0) {
          this.withRef(N_DATE, first, last, c, cl);
          return true;
        }
      }
    }
    this.withRef(N_COLUMN, first, cl, c, cl);
    return true;
  }

  /**
   * `[column]` at the current token with a bucket glued to it that ClauseParser knows without a problem;
   * returns its last token (the current token moves past it), -1 for another shape.
   */
  private columnRef(): number {
    const K = this.K, n = this.n;
    const c = this.i;
    const dot = c + 1;
    if (dot < n && K[dot] === T_DOT) {
      // glued: no whitespace token between them
      const b = dot + 1;
      if (b >= n) return -1;
      const kb = K[b];
      if (kb === T_KEYWORD) {
        if ((KW_FLAGS[this.D[b]!]! & F_BUCKET) === 0) return -1;
      } else if (kb === T_VALUE) {
        const s = this.offsetOf(b);
        if (!BUCKET_SET.has(this.text.slice(s + 1, s + this.buf.width(b) - (this.D[b] === 1 ? 1 : 0)))) return -1;
      } else return -1;
      this.i = this.next(b);
      return b;
    }
    this.i = this.next(c);
    return c;
  }

  /** The absolute start of token `t` of the query (a sum of the widths before it). */
  private offsetOf(t: number): number {
    let pos = this.fromPos;
    for (let u = this.from; u < t; u++) pos += this.buf.width(u);
    return pos;
  }

  /** Whether token `k` is a value (a quoted text, a number, `{null}` / `{empty}`). */
  private isValue(k: number): boolean {
    if (k >= this.n) return false;
    const kind = this.K[k];
    return kind === T_VALUE || kind === T_NUMBER || kind === T_CONSTANT;
  }

  /** Records value `k` in `vals` at `count`. */
  private keep(count: number, k: number): void {
    if (count === this.vals.length) {
      const grown = new Int32Array(count * 2);
      grown.set(this.vals);
      this.vals = grown;
    }
    this.vals[count] = k;
  }

  /** `value (, value)*` (or `or`); how many, or -1 for another shape. */
  private values(): number {
    let count = 0;
    for (;;) {
      const v = this.i;
      if (!this.isValue(v)) return -1;
      this.keep(count++, v);
      const c = this.next(v);
      if (c < this.n && (this.K[c] === T_COMMA || (this.K[c] === T_KEYWORD && this.D[c] === ID_OR))) {
        this.i = this.next(c);
        continue;
      }
      this.i = c;
      return count;
    }
  }

  /** `v and v` after `between`: 2, or -1 for another shape. */
  private between(): number {
    const low = this.i;
    if (!this.isValue(low)) return -1;
    const and = this.next(low);
    if (!this.kwIs(and, ID_AND)) return -1;
    const high = this.next(and);
    if (!this.isValue(high)) return -1;
    this.keep(0, low);
    this.keep(1, high);
    this.i = this.next(high);
    return 2;
  }

  /** Whether token `k` is a keyword with flag `f`. */
  private kwFlag(k: number, f: number): boolean {
    return k < this.n && this.K[k] === T_KEYWORD && (KW_FLAGS[this.D[k]!]! & f) !== 0;
  }

  /** Whether token `k` is keyword `id`. */
  private kwIs(k: number, id: number): boolean {
    return k < this.n && this.K[k] === T_KEYWORD && this.D[k] === id;
  }

  /** Whether token `k` is a number with detail `bit` (lexer.ts: of digits only, a year). */
  private numberIs(k: number, bit: number): boolean {
    return k < this.n && this.K[k] === T_NUMBER && (this.D[k]! & bit) !== 0;
  }

  /**
   * `ClauseParser.relativeDate` at the current token: its last token when one was consumed (the current
   * token moves past it), -2 when none starts here (nothing consumed), -1 for a shape left to
   * ClauseParser (a named date, or a problem it reports).
   */
  private relativeDate(): number {
    const K = this.K, D = this.D;
    const a = this.i;
    if (a >= this.n) return -2;
    if (K[a] === T_KEYWORD) {
      const id = D[a]!;
      if (id === ID_TODAY || id === ID_YESTERDAY) return this.consumed(a);
      const toDate = KW_TO_DATE_RANK[id]!;
      if (toDate >= 0) {
        const fe = this.next(a);
        if (this.kwIs(fe, ID_FOR_EACH)) {
          const unit = this.next(fe);
          if (unit < this.n && K[unit] === T_KEYWORD && KW_PERIOD_RANK[D[unit]!]! >= 0) {
            if (KW_PERIOD_RANK[D[unit]!]! < toDate) return -1;
            return this.consumed(unit);
          }
        }
        return this.consumed(a);
      }
      if (id === ID_THIS || id === ID_LAST || id === ID_NEXT) {
        let unit = this.next(a);
        if (id !== ID_THIS && this.numberIs(unit, NUMBER_DIGITS)) unit = this.next(unit);
        if (!this.kwFlag(unit, F_UNIT)) return -1;
        const fe = this.next(unit);
        if (this.kwIs(fe, ID_FOR_EACH)) {
          const each = this.next(fe);
          if (this.kwFlag(each, F_UNIT)) return this.consumed(each);
        }
        return this.consumed(unit);
      }
      return (KW_FLAGS[id]! & F_NAMED_DATE) !== 0 ? -1 : -2;
    }
    if (this.numberIs(a, NUMBER_DIGITS)) {
      const u = this.next(a);
      const unit = this.kwFlag(u, F_UNIT);
      if (unit) {
        const ago = this.next(u);
        if (this.kwIs(ago, ID_AGO)) return this.consumed(ago);
      }
      if (!unit && (D[a]! & NUMBER_YEAR) !== 0) return this.consumed(a);
    }
    return -2;
  }

  /** Moves past token `last`; returns it. */
  private consumed(last: number): number {
    this.i = this.next(last);
    return last;
  }

  /** `top` / `bottom` [N] (ClauseParser `topBottom`). */
  private topBottom(): void {
    const t = this.i;
    const num = this.next(t);
    if (this.numberIs(num, NUMBER_DIGITS)) {
      const u = this.next(num);
      if (!(this.kwFlag(u, F_UNIT) && this.kwIs(this.next(u), ID_AGO))) {
        this.i = u;
        this.leaf(N_TOP, t, num);
        return;
      }
    }
    this.i = num;
    this.leaf(N_TOP, t, t);
  }

  /** `sort by [aggregation] [column] [ascending|descending]`. */
  private sortBy(): boolean {
    const s = this.i;
    let c = this.next(s);
    if (this.kwFlag(c, F_AGGREGATION)) c = this.next(c);
    if (c >= this.n || this.K[c] !== T_COLUMN) return false;
    this.i = c;
    const cl = this.columnRef();
    if (cl < 0) return false;
    const d = this.i;
    if (this.kwIs(d, ID_ASCENDING) || this.kwIs(d, ID_DESCENDING)) {
      this.i = this.next(d);
      this.withRef(N_SORT, s, d, c, cl);
    } else this.withRef(N_SORT, s, cl, c, cl);
    return true;
  }

  /** `by` / `for each` [aggregation] [column], or a date part (`by week`). */
  private grouping(): boolean {
    const g = this.i;
    let c = this.next(g);
    const aggregated = this.kwFlag(c, F_AGGREGATION);
    if (aggregated) c = this.next(c);
    this.i = c;
    if (c < this.n && this.K[c] === T_COLUMN) return this.columnClause(g, aggregated, true);
    if (!aggregated && this.kwFlag(c, F_UNIT | F_BUCKET)) {
      this.i = this.next(c);
      this.leaf(N_BUCKET, g, c);
      return true;
    }
    return false;
  }

  /** `growth of [measure] by [date] [bucket]`, with no keyword after it but `by` (`year-over-year` and the like go to ClauseParser). */
  private growth(): boolean {
    const g = this.i;
    const m = this.next(g);
    if (m >= this.n || this.K[m] !== T_COLUMN) return false;
    this.i = m;
    const ml = this.columnRef();
    const by = this.i;
    if (ml < 0 || !this.kwIs(by, ID_BY)) return false;
    const d = this.next(by);
    if (d >= this.n || this.K[d] !== T_COLUMN) return false;
    this.i = d;
    const dl = this.columnRef();
    if (dl < 0) return false;
    let last = dl;
    if (this.kwFlag(this.i, F_BUCKET)) {
      last = this.i;
      this.i = this.next(last);
    }
    // `year-over-year` and the like belong to ClauseParser; `by` starts the next clause in both
    if (this.i < this.n && this.K[this.i] === T_KEYWORD && this.D[this.i] !== ID_BY) return false;
    this.node(N_GROWTH, g, last + 1, 3);
    this.node(N_REF, m, ml + 1, 1);
    this.node(N_REF, d, dl + 1, 1);
    return true;
  }
}

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
  /** Per part: the index of the directive part in force (-1 for none); made with `starts`. */
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
  readonly slots: readonly (GreenPart | undefined)[];

  /**
   * @param text the text the tree was parsed from (concatenating the parts' tokens gives it back).
   * @param slots the tree's parts, in order (see `slots`).
   * @param diagnosticCount how many diagnostics the parts hold together.
   * @param widths, kinds `partWidths` and `partKinds` when the caller has them (else read from the parts,
   *   a pass over their tokens).
   */
  constructor(readonly text: string, slots: readonly (GreenPart | undefined)[], readonly diagnosticCount: number, widths?: Uint32Array, kinds?: Uint8Array) {
    this.slots = slots;
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
    (this.slots as (GreenPart | undefined)[])[i] = made;
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

  private index(): void {
    const n = this.slots.length;
    const widths = this.partWidths;
    const kinds = this.partKinds;
    const starts = new Float64Array(n + 1);
    const inForce = new Int32Array(n);
    let queries = 0;
    let pos = 0;
    let dir = -1;
    for (let i = 0; i < n; i++) {
      const k = kinds[i]!;
      starts[i] = pos;
      pos += widths[i]!;
      if (k === DIRECTIVE_PART) dir = i;
      else if (k === QUERY_PART) queries++;
      inForce[i] = dir;
    }
    starts[n] = pos;
    const qp = new Int32Array(queries);
    for (let i = 0, q = 0; i < n; i++) if (kinds[i] === QUERY_PART) qp[q++] = i;
    this.starts = starts;
    this.inForce = inForce;
    this.queryParts = qp;
  }

  /** The absolute start of part `i` (`i` = the part count: the text's length). */
  partStart(i: number): number {
    if (!this.starts) this.index();
    return this.starts![i]!;
  }

  /** The index of the part holding offset `offset` (the last part starting at or before it), -1 when there is none. */
  partAt(offset: number): number {
    if (!this.starts) this.index();
    const s = this.starts!;
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
    let lo = 0;
    let hi = qp.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = qp[mid]!;
      if (this.starts![p + 1]! < offset) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= qp.length) return -1;
    const p = qp[lo]!;
    return this.starts![p]! <= offset ? lo : -1;
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
    const parser = new ClauseParser(new DiagnosticSink([]));
    return buildQuery(text, tokens, 0, tokens.length, comments, 0, parser, this.directiveOf(i));
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
  return { query: body.length ? buildQuery(text, body, 0, body.length, comments, 0, new ClauseParser(sink)) : undefined, diagnostics };
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
function matchParens(t: Token[], from: number, to: number): ParenMatch {
  const close = new Int32Array(to - from).fill(-1);
  const stack = new Int32Array(to - from);
  let sp = 0;
  for (let j = from; j < to; j++) {
    const k = t[j]!.kind;
    if (k === 'lparen') stack[sp++] = j;
    else if (k === 'rparen' && sp > 0) close[stack[--sp]! - from] = j;
  }
  return { from, close };
}

/** Collects parser diagnostics up to `MAX_PARSE_DIAGNOSTICS`. */
class DiagnosticSink {
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
  text: string, tokens: Token[], from: number, to: number, comments: Comment[] | undefined, commentsFrom: number,
  parser: ClauseParser, directive?: DataSourceDirective,
): Query {
  const start = tokens[from]!.start;
  const end = tokens[to - 1]!.end;
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
  const clauses = parser.parse(tokens, from, to);
  return new QueryNode(start, end, qtext, directive, clauses);
}

const span = (a: Span, b: Span): Span => ({ start: a.start, end: b.end });

/**
 * The relative date a quoted phrase after the dot writes (`[date].'last 180 days'`, `[date].'this month'`:
 * the token form, docs/service-notes.md §2.11), read by the grammar of the unquoted keywords; undefined when
 * the phrase is no relative date, or one with a problem.
 */
function relativeDateOf(phrase: string): RelativeDate | undefined {
  // the lexer's set-up costs more than the phrase: a document repeats a few phrases, each read once
  let read = RELATIVE_PHRASES.get(phrase);
  if (read === undefined) {
    const tokens = tokenize(phrase);
    read = tokens.length === 0 || tokens.length > 8 ? null : new ClauseParser(new DiagnosticSink([])).relativeDateIn(tokens) ?? null;
    if (RELATIVE_PHRASES.size >= 256) RELATIVE_PHRASES.clear();
    RELATIVE_PHRASES.set(phrase, read);
  }
  // a copy: each clause owns its objects
  return read === null ? undefined : { ...read };
}
/** The phrases `relativeDateOf` read (null: no relative date), at most 256. */
const RELATIVE_PHRASES = new Map<string, RelativeDate | null>();

const NO_TOKENS: Token[] = [];

/** Whether `s` is a non-empty run of ASCII digits (`/^\d+$/` without the regular expression). */
function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Whether a number token's text is a year: four digits, 1000–2999 (`2014`). */
function isYear(s: string): boolean {
  return s.length === 4 && isDigits(s) && (s.charCodeAt(0) === 49 || s.charCodeAt(0) === 50);
}

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

/** One pass over a query's tokens producing clauses; one instance is reused for every query of a document. */
class ClauseParser {
  private t: Token[] = [];
  private i = 0;
  private stop = 0;
  /** The clauses so far: `clauses[0, n)` (a scratch list, reused and never shortened, like `DocumentBuilder.current`). */
  private readonly clauses: Clause[] = [];
  private n = 0;
  /** Scratch list of `values` (copied to an exact-size list at the end). */
  private readonly valueScratch: Value[] = [];
  private rankedBy: { column: ColumnRef; aggregation: Aggregation | undefined; span: Span }[] | undefined;
  /**
   * What `columnRef(true)` read after the dot when it is no bucket (the token form, docs/service-notes.md
   * §2.11): a value (`[origin].SEA`) or a relative date (`[date].'last 180 days'`); undefined otherwise.
   */
  private dotted: { value: Value; relative?: undefined } | { value?: undefined; relative: RelativeDate } | undefined;
  /** The column the last value of a list was written with (`[origin].SEA`), undefined when it was written alone. */
  private dottedColumn: string | undefined;
  /** The column of the filter whose values are being read: a value written with a column must be written with it. */
  private filterColumn: string | undefined;
  /** The closing `)` of each `(` of the parsed range (`matchParens`), made when the first `(` is met. */
  private parens: ParenMatch | undefined;

  /**
   * `depth`: how many subsearches enclose the tokens parsed (0 for a query); `outer`: the enclosing
   * parse's `ParenMatch`, which holds for the tokens of a subsearch too (they are balanced).
   */
  constructor(private readonly sink: DiagnosticSink, private readonly depth = 0, private readonly outer?: ParenMatch) {}

  /** Parses `t[from, to)` into clauses. */
  parse(t: Token[], from: number, to: number): Clause[] {
    this.t = t;
    this.i = from;
    this.stop = to;
    this.n = 0;
    this.rankedBy = undefined;
    this.parens = this.outer;
    while (this.i < this.stop) {
      const before = this.i;
      this.clause();
      if (this.i === before) this.i++; // safety: always progress
    }
    // `ranked by` attaches to the query's top/bottom wherever it is written (docs/service-notes.md §2.1).
    // The scratch list is reused; the query keeps an exact-size copy (a list grown by push keeps room
    // for 16 more, which for thousands of queries is most of the tree's memory).
    const out = this.clauses.slice(0, this.n);
    this.t = NO_TOKENS;
    this.parens = undefined;
    const ranked = this.rankedBy as { column: ColumnRef; aggregation: Aggregation | undefined; span: Span }[] | undefined;
    if (ranked) {
      // each `ranked by` takes the first top/bottom not yet ranked: one walk over the clauses for all of
      // them (a search from the start for each made many `ranked by` quadratic)
      let k = 0;
      const count = out.length;
      for (const r of ranked) {
        while (k < count && !(out[k]!.kind === 'topBottom' && !(out[k] as Extract<Clause, { kind: 'topBottom' }>).rankedBy)) k++;
        const tb = k < count ? (out[k] as Extract<Clause, { kind: 'topBottom' }>) : undefined;
        if (tb) {
          tb.rankedBy = r.column;
          if (r.aggregation) tb.rankedByAggregation = r.aggregation;
        } else {
          this.sink.add(r.span, codes.MISPLACED_KEYWORD, '"ranked by" ranks a top or bottom: write top N or bottom N in the query (top_n_ranked_by.adoc).', 'warning');
          out.push({ kind: 'keyword', keyword: 'ranked by', ...r.span });
        }
      }
      out.sort((a, b) => a.start - b.start);
    }
    return out;
  }

  private peek(k = 0): Token | undefined {
    const j = this.i + k;
    return j < this.stop ? this.t[j] : undefined;
  }

  private isKw(tok: Token | undefined, name?: string): boolean {
    return !!tok && tok.kind === 'keyword' && (name === undefined || tok.value === name);
  }

  /**
   * Parses one clause starting at the current token: the productions its keyword or token kind may start
   * (grammar.ts `SEARCH_GRAMMAR`), in the grammar's order, the first that applies.
   */
  private clause(): void {
    const tok = this.peek()!;
    const list = tok.kind === 'keyword' ? PRODUCTIONS_BY_KEYWORD.get(tok.value) : PRODUCTIONS_BY_TOKEN.get(tok.kind);
    if (list) for (let k = 0; k < list.length; k++) if (this.production(list[k]!, tok)) return;
    this.i++;
    this.push({ kind: 'error', text: tok.value, start: tok.start, end: tok.end });
  }

  /** Production `p` (grammar.ts) at `tok`, the current token: false, nothing consumed, when it does not apply there. */
  private production(p: ProductionName, tok: Token): boolean {
    switch (p) {
      case 'columnClause':
        this.columnClause(undefined, undefined, tok);
        return true;
      case 'periodFunction':
        return this.periodFunction(tok);
      case 'aggregated':
        this.aggregated(tok);
        return true;
      case 'operatorWithoutColumn':
        this.operatorWithoutColumn(tok);
        return true;
      case 'bucket':
        if (tok.value !== 'detailed' && this.peek(1)?.kind === 'lparen') return false;
        this.i++;
        this.push({ kind: 'bucket', bucket: tok.value as DateBucket, start: tok.start, end: tok.end });
        return true;
      case 'for':
        this.i++;
        if (!this.peek()) {
          this.sink.add(tok, codes.MISSING_OPERAND, 'for needs a filter after it: for sum [delay] > 5000.');
          this.push({ kind: 'error', text: tok.value, start: tok.start, end: tok.end });
        }
        return true; // `for` only introduces the following filter
      case 'grouping':
        this.groupingClause(tok);
        return true;
      case 'topBottom':
        this.topBottom(tok);
        return true;
      case 'rankedBy':
        this.rankedByClause(tok);
        return true;
      case 'sortBy':
        this.sortBy(tok);
        return true;
      case 'growth':
        this.growthOf(tok);
        return true;
      case 'calendar':
        this.calendarClause(tok);
        return true;
      case 'location':
        this.location(tok, undefined, tok.start);
        return true;
      case 'subsearch':
        this.subsearch(tok, undefined, tok.start);
        return true;
      case 'versus':
        this.versus(tok);
        return true;
      case 'fiscal':
        // `sales monthly fiscal` (fiscal.adoc): the fiscal calendar, as calendar.fiscal.
        this.i++;
        this.push({ kind: 'calendar', name: 'fiscal', start: tok.start, end: tok.end });
        return true;
      case 'relativeDate':
      case 'relativePeriod':
      case 'toDate':
      case 'namedDate': {
        const rel = this.relativeDate();
        if (!rel) return false;
        this.push(new DateFilterNode(undefined, rel.filter, tok.start, rel.end));
        return true;
      }
      case 'bareValue':
        // A value with no column: the API syntax has values only after an operator (codes.BARE_VALUE).
        if (tok.kind === 'lparen') {
          const end = this.parenGroup();
          this.bareValue(tok, '( … )', end);
          return true;
        }
        this.i++;
        this.bareValue(tok, tok.kind === 'value' ? `'${tok.value}'` : tok.kind === 'constant' ? `{${tok.value}}` : tok.value, tok.end);
        return true;
      case 'formulaCall':
        if (!(this.peek(1)?.kind === 'lparen' && this.peek(1)!.start === tok.end)) return false;
        this.formulaCall(tok);
        return true;
      case 'unknownWord':
        this.i++;
        this.sink.add(tok, codes.UNKNOWN_WORD, `"${tok.value}" is not a keyword: write column names in brackets ([${tok.value}]) and text values in quotes ('${tok.value}').`, 'warning');
        this.push({ kind: 'error', text: tok.value, start: tok.start, end: tok.end });
        return true;
      case 'separator':
        // `by [origin], [destination], [delay]` (data-report-v2-api.adoc's query_string): a comma between
        // clauses separates them as a space does (docs/service-notes.md §2.11)
        this.i++;
        return true;
      case 'stray':
        this.stray(tok);
        return true;
      case 'misplacedKeyword':
        this.misplacedKeyword(tok);
        return true;
    }
  }

  /**
   * A value, number or `( … )` standing alone (codes.BARE_VALUE): warned, and kept as a bare keyword clause
   * that the emulator refuses naming `shown`.
   */
  private bareValue(tok: Token, shown: string, end: number): void {
    const hint = tok.kind === 'lparen'
      ? 'parentheses stand only after a period function (quarter ([date])) or around a subsearch'
      : `a value goes after a column and an operator ([column] = ${shown})`;
    this.sink.add({ start: tok.start, end }, codes.BARE_VALUE, `${shown} stands alone: the API syntax has no value without a column; ${hint}.`, 'warning');
    this.push({ kind: 'keyword', keyword: shown, start: tok.start, end });
  }

  private push(c: Clause): void {
    this.clauses[this.n++] = c;
  }

  /**
   * Reads `[column]` with an optional `.bucket` / `.'multi word bucket'` glued to it. The current token
   * must be a column. With `values` (a column standing alone, or a value after an operator), a token after
   * the dot that is no bucket word is the token form's value or relative date (docs/service-notes.md
   * §2.11), left in `dotted`, and the reference is the column alone.
   */
  private columnRef(values = false): ColumnRef {
    const tok = this.t[this.i++]!;
    this.dotted = undefined;
    const dot = this.peek();
    if (!(dot && dot.kind === 'dot' && dot.start === tok.end)) {
      return new ColumnNode(tok.value, tok.closed, tok.start, tok.end);
    }
    this.i++;
    const b = this.peek();
    let bucket: ColumnRef['bucket'] & object;
    if (values && b && b.start === dot.end && this.dotValue(b)) return new ColumnNode(tok.value, tok.closed, tok.start, tok.end);
    if (b && b.start === dot.end && (b.kind === 'keyword' || b.kind === 'word' || b.kind === 'value' || b.kind === 'number')) {
      this.i++;
      const name = b.value;
      // A bucket written exactly (`[date].'day of week'`) needs no normalising (findDateBucket's regex).
      const known = BUCKET_SET.has(name) ? (name as DateBucket) : b.kind === 'keyword' ? null : findDateBucket(name);
      bucket = new BucketNode(name, known, b.start, b.end);
      if (!known) this.sink.add(b, codes.UNKNOWN_BUCKET, `Unknown date bucket "${name}": use one of ${DATE_BUCKETS.join(', ')}.`);
    } else {
      bucket = new BucketNode('', null, dot.start, dot.end);
      this.sink.add(dot, codes.UNKNOWN_BUCKET, `A date bucket must follow the dot: [column].monthly or [column].'day of week'.`);
    }
    return new BucketedColumnNode(tok.value, tok.closed, bucket, tok.start, bucket.end);
  }

  /**
   * The token form's value after `[column].` at token `b` (docs/service-notes.md §2.11), consumed into
   * `dotted`; false (nothing consumed) when `b` is a bucket word (`[date].monthly` stays a bucket: the
   * column's type decides, keywords.ts `dotReading`) or no value: a word (`SEA`, `01/15/2001`, `true`), a
   * quoted text (`'los angeles'`, or a relative date, `'last 180 days'`), a number, `{null}`/`{empty}`, or a
   * date keyword (`today`).
   */
  private dotValue(b: Token): boolean {
    switch (b.kind) {
      case 'word': {
        this.i++;
        const bool = booleanOf(b.value);
        this.dotted = { value: bool === undefined ? new TextValueNode(b.value, true, b.start, b.end) : { kind: 'boolean', value: bool, raw: b.value, start: b.start, end: b.end } };
        return true;
      }
      case 'number':
        this.i++;
        this.dotted = { value: new NumberValueNode(numberOf(b.value), b.value, b.start, b.end) };
        return true;
      case 'constant':
        this.i++;
        this.dotted = { value: b.value === 'null' ? { kind: 'null', start: b.start, end: b.end } : { kind: 'empty', start: b.start, end: b.end } };
        return true;
      case 'value': {
        if (findDateBucket(b.value)) return false;
        this.i++;
        const relative = relativeDateOf(b.value);
        this.dotted = relative ? { relative } : { value: new TextValueNode(b.value, b.closed, b.start, b.end) };
        return true;
      }
      case 'keyword': {
        if (BUCKET_SET.has(b.value)) return false;
        const at = this.i;
        const rel = this.relativeDate();
        if (rel) {
          this.dotted = { relative: rel.filter };
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
   * A relative date written whole in `tokens` (the words of a quoted phrase after the dot, `last 180 days`),
   * or undefined when they are something else or have a problem.
   */
  relativeDateIn(tokens: Token[]): RelativeDate | undefined {
    this.t = tokens;
    this.i = 0;
    this.stop = tokens.length;
    const before = this.sink.list.length;
    const rel = this.relativeDate();
    const whole = rel && this.i === this.stop && this.sink.list.length === before;
    this.t = NO_TOKENS;
    return whole ? rel.filter : undefined;
  }

  /** A column, possibly aggregated, followed by an operator (filter), a relative date (dateFilter) or nothing (column). */
  private columnClause(aggregation: Aggregation | undefined, aggTok: Token | undefined, first: Token, flags?: { by?: boolean; forEach?: boolean }): void {
    const col = this.columnRef(!aggregation && !flags);
    const start = first.start;
    const dotted = this.dotted;
    if (dotted) {
      // the token form (docs/service-notes.md §2.11): `[origin].SEA` is `[origin] = 'SEA'`, `[date].'this month'` is `[date] this month`
      const tokEnd = this.t[this.i - 1]!.end;
      if (dotted.relative) this.push(new DateFilterNode(col, dotted.relative, start, tokEnd));
      else this.push({ kind: 'filter', column: col, operator: '=', operatorStart: col.end, operatorEnd: col.end + 1, values: [dotted.value], dotted: true, start, end: tokEnd });
      this.dotted = undefined;
      return;
    }
    const next = this.peek();
    if (next && (next.kind === 'operator' || (next.kind === 'keyword' && WORD_OPERATOR_SET.has(next.value)))) {
      this.i++;
      const operator = next.value as FilterOperator;
      this.filterColumn = col.name;
      let values: Value[];
      let end: number;
      if (operator === 'between') {
        const r = this.between(next);
        values = r.values;
        end = r.end;
      } else {
        values = this.values(next);
        end = values.length ? values[values.length - 1]!.end : next.end;
      }
      this.push(aggregation
        ? new AggregatedFilterNode(col, aggregation, operator, next.start, next.end, values, start, end)
        : new FilterNode(col, operator, next.start, next.end, values, start, end));
      return;
    }
    if (next && !aggregation && !flags && !col.bucket && next.kind === 'keyword' && (next.value === 'near' || next.value === 'farther than')) {
      this.location(next, col, start);
      return;
    }
    if (next && !aggregation && !flags && !col.bucket && next.kind === 'keyword' && (next.value === 'in' || next.value === 'not in')) {
      this.subsearch(next, col, start);
      return;
    }
    if (next && !aggregation && !flags && !col.bucket) {
      const rel = this.relativeDate();
      if (rel) {
        this.push(new DateFilterNode(col, rel.filter, start, rel.end));
        return;
      }
    }
    if (!aggregation && !flags) {
      this.push(new ColumnClauseNode(col, start, col.end));
      return;
    }
    // One shape per constructor call or literal (see `top`).
    if (!aggregation) {
      this.push(new GroupingClauseNode(col, flags!.by === true, start, col.end));
      return;
    }
    const aggregationStart = aggTok!.start;
    const aggregationEnd = aggTok!.end;
    if (!flags) this.push(new AggregatedClauseNode(col, aggregation, aggregationStart, aggregationEnd, start, col.end));
    else if (flags.by) this.push({ kind: 'column', column: col, aggregation, aggregationStart, aggregationEnd, by: true, start, end: col.end });
    else this.push({ kind: 'column', column: col, aggregation, aggregationStart, aggregationEnd, forEach: true, start, end: col.end });
  }

  /**
   * Reads `value (, value)*` after an operator. Values are quoted texts, numbers, `{null}`/`{empty}`; a
   * bare word is taken as a text value with an unknownWord warning. Reports missingOperand when nothing
   * follows the operator or a comma.
   */
  private values(op: Token): Value[] {
    const out = this.valueScratch;
    let count = 0;
    let expectFrom: Token = op;
    this.dottedColumn = undefined;
    for (;;) {
      const v = this.value();
      if (!v) {
        this.sink.add(expectFrom, codes.MISSING_OPERAND, expectFrom.kind === 'comma'
          ? 'A value must follow the comma.'
          : `${op.value} needs a value after it: a number, a 'quoted text' or a 'date'.`);
        break;
      }
      out[count++] = v;
      const c = this.peek();
      // `[origin] = [origin].SEA [origin].PDX` (the token form): the values of one column follow each other
      if (this.dottedColumn !== undefined && c && c.kind === 'column' && c.value === this.dottedColumn) {
        const d = this.peek(1);
        if (d && d.kind === 'dot' && d.start === c.end) continue;
      }
      // `similar to '%jacket%' or '%t-shirt%'` (similar-to.adoc): `or` separates alternatives as a comma does.
      // A comma before a column or a keyword separates clauses (`[item type] = [item type].'jackets', [region] = …,
      // sort by …`: data-report-v2-api.adoc).
      const after = c && c.kind === 'comma' ? this.peek(1)?.kind : undefined;
      if (c && (c.kind === 'comma' || (c.kind === 'keyword' && c.value === 'or')) && after !== 'column' && after !== 'keyword') {
        this.i++;
        expectFrom = c;
        continue;
      }
      break;
    }
    return out.slice(0, count);
  }

  /** One value at the current token, or undefined (nothing consumed) when there is none. */
  private value(): Value | undefined {
    const v = this.peek();
    if (!v) return undefined;
    switch (v.kind) {
      case 'value':
        this.i++;
        return new TextValueNode(v.value, v.closed, v.start, v.end);
      case 'number':
        this.i++;
        return new NumberValueNode(numberOf(v.value), v.value, v.start, v.end);
      case 'constant':
        this.i++;
        return v.value === 'null' ? { kind: 'null', start: v.start, end: v.end } : { kind: 'empty', start: v.start, end: v.end };
      case 'word': {
        this.i++;
        const bool = booleanOf(v.value);
        // `[is delayed] = true` (the token form): a boolean; validation warns when the column is no BOOL
        if (bool !== undefined) return { kind: 'boolean', value: bool, raw: v.value, start: v.start, end: v.end };
        this.sink.add(v, codes.UNKNOWN_WORD, `"${v.value}" is not a keyword: write text and date values in single quotes ('${v.value}').`, 'warning');
        return new TextValueNode(v.value, true, v.start, v.end);
      }
      case 'column': {
        // `[origin] = [origin].SEA`, `between [date].01/15/2001 and …` (the token form): a value written with its column
        const d = this.peek(1);
        if (!(d && d.kind === 'dot' && d.start === v.end)) return undefined;
        // `[origin] = [destination].PDX` is no value of [origin]: the token starts a filter of its own
        if (this.filterColumn !== undefined && v.value.trim().toLowerCase() !== this.filterColumn.trim().toLowerCase()) return undefined;
        const at = this.i;
        this.columnRef(true);
        const dotted = this.dotted;
        this.dotted = undefined;
        if (!dotted?.value) {
          this.i = at;
          return undefined;
        }
        this.dottedColumn = v.value;
        return dotted.value;
      }
      default:
        return undefined;
    }
  }

  /** `between v and v` (the `between` token is consumed). */
  private between(op: Token): { values: Value[]; end: number } {
    const low = this.value();
    if (!low) {
      this.sink.add(op, codes.MISSING_OPERAND, 'between needs two values: between 0 and 1000.');
      return { values: [], end: op.end };
    }
    const and = this.peek();
    if (!this.isKw(and, 'and')) {
      this.sink.add({ start: op.start, end: low.end }, codes.BETWEEN_WITHOUT_AND, `between needs "and" and a second value: between ${this.textOf(low)} and ….`);
      return { values: [low], end: low.end };
    }
    this.i++;
    const high = this.value();
    if (!high) {
      this.sink.add(and!, codes.MISSING_OPERAND, 'A value must follow "and": between 0 and 1000.');
      return { values: [low], end: and!.end };
    }
    // The list comes from `slice` rather than a literal, for the reason of nodes.ts.
    const pair = this.valueScratch;
    pair[0] = low;
    pair[1] = high;
    return { values: pair.slice(0, 2), end: high.end };
  }

  private textOf(v: Value): string {
    return v.kind === 'text' ? `'${v.value}'` : v.kind === 'number' || v.kind === 'boolean' ? v.raw : `{${v.kind}}`;
  }

  /**
   * A relative date at the current token (docs/service-notes.md §2.5, 2.6), consuming it; undefined (nothing
   * consumed) when none starts here. Reports missingOperand for `last`/`next`/`this` with no period.
   */
  private relativeDate(): { filter: RelativeDate; end: number } | undefined {
    const a = this.peek();
    if (!a) return undefined;
    if (a.kind === 'keyword') {
      if (a.value === 'today' || a.value === 'yesterday') {
        this.i++;
        return { filter: { type: a.value }, end: a.end };
      }
      const toDate = TO_DATE_UNITS.get(a.value);
      if (toDate) {
        this.i++;
        const fe = this.peek();
        const feUnit = this.peek(1);
        const period = feUnit && this.isKw(feUnit) ? TO_DATE_PERIODS.indexOf(feUnit.value as ToDateUnit) : -1;
        if (this.isKw(fe, 'for each') && period >= 0) {
          this.i += 2;
          // the period must hold the to-date unit (keywords-to-date: the bucket is "equal to or larger")
          if (period < TO_DATE_PERIODS.indexOf(toDate)) this.sink.add({ start: a.start, end: feUnit!.end }, codes.MISPLACED_KEYWORD, `"${a.value} for each ${feUnit!.value}": a ${feUnit!.value} does not hold a ${toDate}; the period after for each is a ${toDate} or longer (${TO_DATE_PERIODS.slice(TO_DATE_PERIODS.indexOf(toDate)).join(', ')}).`, 'warning');
          return { filter: { type: 'toDate', unit: toDate, forEach: feUnit!.value as ToDateUnit }, end: feUnit!.end };
        }
        return { filter: { type: 'toDate', unit: toDate }, end: a.end };
      }
      if (a.value === 'this' || a.value === 'last' || a.value === 'next') {
        const b = this.peek(1);
        let n = 1;
        let unitTok = b;
        if (b && b.kind === 'number' && a.value !== 'this' && isDigits(b.value)) {
          n = numberOf(b.value);
          unitTok = this.peek(2);
        }
        if (!unitTok || !this.isKw(unitTok) || !UNITS.has(unitTok.value)) {
          this.i++;
          if (unitTok === b && b && b.kind === 'number') this.i++;
          const shown = a.value === 'this' ? 'this month' : `${a.value} month, ${a.value} 7 days`;
          this.sink.add(a, codes.MISSING_OPERAND, `${a.value} needs a period: ${shown}.`);
          return { filter: { type: 'period', which: a.value, n, unit: 'day' }, end: a.end };
        }
        this.i += unitTok === b ? 2 : 3;
        const unit = unitTok.value as DateUnit;
        const fe = this.peek();
        const feUnit = this.peek(1);
        if (this.isKw(fe, 'for each') && feUnit && this.isKw(feUnit) && UNITS.has(feUnit.value)) {
          this.i += 2;
          return { filter: { type: 'period', which: a.value, n, unit, forEach: feUnit.value as DateUnit }, end: feUnit.end };
        }
        return { filter: { type: 'period', which: a.value, n, unit }, end: unitTok.end };
      }
      return this.namedDate(a);
    }
    if (a.kind === 'number' && isDigits(a.value)) {
      const u = this.peek(1);
      const ago = this.peek(2);
      if (u && this.isKw(u) && UNITS.has(u.value) && this.isKw(ago, 'ago')) {
        this.i += 3;
        return { filter: { type: 'ago', n: numberOf(a.value), unit: u.value as DateUnit }, end: ago!.end };
      }
      // A bare year (`revenue by product 2014`, list-date.adoc).
      if (isYear(a.value) && !(u && this.isKw(u) && UNITS.has(u.value))) {
        this.i++;
        return { filter: { type: 'named', year: numberOf(a.value) }, end: a.end };
      }
    }
    return undefined;
  }

  /** A named day, month or quarter at the current keyword (`monday`, `january`, `february 2014`, `q1`, `q3 2024`), consumed; undefined otherwise. */
  private namedDate(a: Token): { filter: RelativeDate; end: number } | undefined {
    const day = DAYS.get(a.value);
    if (day !== undefined) {
      this.i++;
      return { filter: { type: 'named', dayOfWeek: day }, end: a.end };
    }
    const month = MONTHS.get(a.value);
    const quarter = month === undefined ? QUARTERS.get(a.value) : undefined;
    if (month === undefined && quarter === undefined) return undefined;
    const named = month !== undefined ? { month } : { quarter };
    this.i++;
    const y = this.peek();
    if (y && y.kind === 'number' && isYear(y.value)) {
      this.i++;
      return { filter: { type: 'named', ...named, year: numberOf(y.value) }, end: y.end };
    }
    return { filter: { type: 'named', ...named }, end: a.end };
  }

  /** `name(…)`: a function call, i.e. a formula defined inside the query (docs/service-interface.md §8.6). */
  private formulaCall(tok: Token): void {
    this.i++;
    const end = this.parenGroup();
    this.sink.add({ start: tok.start, end }, codes.FORMULA_IN_QUERY, `Formulas cannot be defined inside a query (docs/service-interface.md §8.6): create the formula on the data source and use it by name, e.g. [my formula].`);
    this.push({ kind: 'error', text: tok.value, start: tok.start, end });
  }

  /**
   * Consumes `( … )` starting at the current `(`; returns the end offset. Reports unclosedParen. The `)` is
   * looked up in `parens`, made once per query, so a query of many unclosed `(` is parsed in linear time.
   */
  private parenGroup(): number {
    const open = this.t[this.i]!;
    const parens = (this.parens ??= matchParens(this.t, this.i, this.stop));
    const j = parens.close[this.i - parens.from] ?? -1;
    if (j >= 0 && j < this.stop) {
      this.i = j + 1;
      return this.t[j]!.end;
    }
    this.i++;
    this.sink.add(open, codes.UNCLOSED_PAREN, 'Unclosed (: add the closing ).');
    return open.end;
  }

  /** Reads a column after a keyword (`sort by`, `by`, `growth of`, …), or reports missingOperand at `kw`. */
  private requireColumn(kw: Token, usage: string): ColumnRef | undefined {
    const c = this.peek();
    if (c && c.kind === 'column') return this.columnRef();
    this.sink.add(kw, codes.MISSING_OPERAND, `${kw.value} needs a column after it: ${usage}.`);
    return undefined;
  }

  /** An aggregation keyword at the current token, consumed; undefined otherwise. */
  private aggregation(): Token | undefined {
    const a = this.peek();
    if (a && a.kind === 'keyword' && AGGREGATION_SET.has(a.value)) {
      this.i++;
      return a;
    }
    return undefined;
  }

  /** A `.`, `)` or run of other characters where no clause starts: an error clause. */
  private stray(tok: Token): void {
    this.i++;
    if (tok.kind === 'dot' || tok.kind === 'rparen') this.sink.add(tok, codes.STRAY_CHARACTER, tok.kind === 'dot' ? "Unexpected '.': a dot binds a date bucket or a value to a column ([date].monthly, [origin].SEA)." : "Unexpected ')': no ( to close.");
    else if (/^[-+*/%^]+$/.test(tok.value)) this.sink.add(tok, codes.FORMULA_IN_QUERY, `Formulas cannot be defined inside a query (docs/service-interface.md §8.6): create the formula on the data source and use it by name, e.g. [my formula].`);
    this.push({ kind: 'error', text: tok.value, start: tok.start, end: tok.end });
  }

  /** An aggregation before a column (`sum [sales]`), or `sum(` (a formula call). */
  private aggregated(tok: Token): void {
    const name = tok.value;
    if (this.peek(1)?.kind === 'lparen') {
      this.formulaCall(tok);
      return;
    }
    this.i++;
    const c = this.peek();
    if (c && c.kind === 'column') {
      this.columnClause(name as Aggregation, tok, tok);
      return;
    }
    this.sink.add(tok, codes.MISSING_OPERAND, `${name} needs a column after it: ${name} [delay].`);
    this.push({ kind: 'error', text: name, start: tok.start, end: tok.end });
  }

  /** An operator with no column before it (`= 'SEA'`, `between 1 and 2`): its values read, an error clause. */
  private operatorWithoutColumn(tok: Token): void {
    const name = tok.value;
    this.i++;
    this.filterColumn = undefined;
    const values = name === 'between' ? this.between(tok).values : this.values(tok);
    const hint = tok.kind === 'operator' ? `[column] ${name} value` : `[column] ${name} …`;
    this.sink.add(tok, codes.MISSING_OPERAND, `${name} needs a column before it: ${hint}.`);
    this.push({ kind: 'error', text: name, start: tok.start, end: values.length ? values[values.length - 1]!.end : tok.end });
  }

  /** `ranked by [aggregation] [column]`, kept for the query's `top`/`bottom` (`parse`). */
  private rankedByClause(tok: Token): void {
    this.i++;
    // `ranked by count [destination]` (the token form): ranked by an aggregate
    const agg = this.aggregation();
    const col = this.requireColumn(agg ?? tok, 'top 10 [origin] ranked by [delay]');
    if (col) (this.rankedBy ??= []).push({ column: col, aggregation: agg?.value as Aggregation | undefined, span: span(tok, col) });
    else this.push({ kind: 'error', text: tok.value, start: tok.start, end: tok.end });
  }

  /** A keyword no production takes where it stands: a `keyword` clause (warned unless the emulator does not run it). */
  private misplacedKeyword(tok: Token): void {
    const name = tok.value;
    this.i++;
    let end = tok.end;
    if (PAREN_KEYWORDS.has(name) && this.peek()?.kind === 'lparen') end = this.parenGroup();
    else if (UNSUPPORTED.has(name)) end = this.operandsOf(end);
    if (!UNSUPPORTED.has(name)) this.sink.add(tok, codes.MISPLACED_KEYWORD, `"${name}" has no meaning here: ${findKeyword(name)?.meaning ?? ''}`, 'warning');
    this.push({ kind: 'keyword', keyword: name, start: tok.start, end });
  }

  /** `vs` / `versus` (vs.adoc), and `vs all` as one clause (all.adoc: all "can only be used as part of a versus phrase"). */
  private versus(tok: Token): void {
    this.i++;
    const all = this.peek();
    if (all && all.kind === 'keyword' && all.value === 'all') {
      this.i++;
      this.push({ kind: 'versus', all: true, start: tok.start, end: all.end });
    } else this.push({ kind: 'versus', all: false, start: tok.start, end: tok.end });
  }

  /**
   * `in (subsearch)` / `not in (subsearch)` (in.adoc, not_in.adoc), on `col` when written before it: the
   * tokens between the parentheses are parsed as a query of their own. The current token is `in` or `not
   * in`. Without parentheses, or with an unclosed one, a diagnostic and an `error` clause.
   */
  private subsearch(kw: Token, col: ColumnRef | undefined, start: number): void {
    this.i++;
    const open = this.peek();
    if (!open || open.kind !== 'lparen') {
      this.sink.add(kw, codes.MISSING_OPERAND, `${kw.value} needs a subsearch in parentheses after it: [origin] ${kw.value} (top 10 [origin] [delay]).`);
      this.push({ kind: 'error', text: kw.value, start, end: kw.end });
      return;
    }
    const from = this.i + 1;
    const end = this.parenGroup();
    const close = this.t[this.i - 1]!;
    if (close.kind !== 'rparen' || this.i - 1 < from) {
      this.push({ kind: 'error', text: kw.value, start, end });
      return;
    }
    if (this.depth >= MAX_SUBSEARCH_DEPTH) {
      this.sink.add(kw, codes.NESTING_TOO_DEEP, `Subsearches nest deeper than ${MAX_SUBSEARCH_DEPTH} levels here: TSQ reads no further inside; write the inner search as a query of its own.`);
      this.push({ kind: 'error', text: kw.value, start, end });
      return;
    }
    const clauses = new ClauseParser(this.sink, this.depth + 1, this.parens).parse(this.t, from, this.i - 1);
    this.push({ kind: 'subsearch', column: col, negated: kw.value === 'not in', clauses, start, end });
  }

  /**
   * A location filter (list-location.adoc; docs.thoughtspot.com search-proximity): `near 'place'`, `near
   * 'place' within N miles|km|meters`, `farther than N miles|km|meters from 'place'`, on `col` when written
   * before it. The current token is `near` or `farther than`. A missing part is a missingOperand
   * diagnostic and an `error` clause over what was read.
   */
  private location(kw: Token, col: ColumnRef | undefined, start: number): void {
    this.i++;
    // the rest of the phrase (values, numbers, location words) goes into the error clause: one diagnostic
    const fail = (at: Span, message: string, end: number): void => {
      this.sink.add(at, codes.MISSING_OPERAND, message);
      this.push({ kind: 'error', text: kw.value, start, end: this.operandsOf(end) });
    };
    /** `N miles|km|meters` at the current token, or undefined (nothing consumed). */
    const distance = (): { n: number; unit: DistanceUnit; end: number } | undefined => {
      const n = this.peek();
      const u = this.peek(1);
      if (!n || n.kind !== 'number' || !u || u.kind !== 'keyword' || !DISTANCE_UNIT_SET.has(u.value)) return undefined;
      this.i += 2;
      return { n: numberOf(n.value), unit: u.value as DistanceUnit, end: u.end };
    };
    /** `'place'` at the current token, or undefined (nothing consumed). */
    const place = (): Token | undefined => {
      const p = this.peek();
      if (!p || p.kind !== 'value') return undefined;
      this.i++;
      return p;
    };
    if (kw.value === 'near') {
      const p = place();
      if (!p) return fail(kw, "near needs a place after it: [city] near 'seattle' (within 50 miles).", kw.end);
      const w = this.peek();
      if (!w || w.kind !== 'keyword' || w.value !== 'within') {
        this.push({ kind: 'location', column: col, relation: 'near', place: p.value, start, end: p.end });
        return;
      }
      this.i++;
      const d = distance();
      if (!d) return fail(w, 'within needs a distance after it: within 50 miles (or km, meters).', w.end);
      this.push({ kind: 'location', column: col, relation: 'near', place: p.value, distance: { n: d.n, unit: d.unit }, start, end: d.end });
      return;
    }
    const d = distance();
    if (!d) return fail(kw, "farther than needs a distance and a place: farther than 80 km from 'seattle'.", kw.end);
    const f = this.peek();
    if (!f || f.kind !== 'keyword' || f.value !== 'from') return fail(kw, "farther than needs from and a place: farther than 80 km from 'seattle'.", d.end);
    this.i++;
    const p = place();
    if (!p) return fail(f, "from needs a place after it: farther than 80 km from 'seattle'.", f.end);
    this.push({ kind: 'location', column: col, relation: 'farther', place: p.value, distance: { n: d.n, unit: d.unit }, start, end: p.end });
  }

  /**
   * The operands of a keyword the emulator does not execute (or of an incomplete location phrase),
   * consumed so that they make no clauses of their own: values, numbers and the location keywords (`near 'seattle' within 50 miles`,
   * `farther than 80 km from 'seattle'`). Returns the end of the last one.
   */
  private operandsOf(end: number): number {
    for (;;) {
      const t = this.peek();
      if (!t) return end;
      const operand = t.kind === 'value' || t.kind === 'number' || (t.kind === 'keyword' && (t.value === 'all' || findKeyword(t.value)?.category === 'location'));
      if (!operand) return end;
      this.i++;
      end = t.end;
    }
  }

  /**
   * A period function (list-period.adoc): `quarter ([date])`, `month of quarter ([date])`, … is the date
   * part of `[date]` its bucket names (keywords.ts `PERIOD_FUNCTIONS`), a column clause on `[date]` with
   * that bucket. False (nothing consumed) when no `( [column] )` follows.
   */
  private periodFunction(tok: Token): boolean {
    const open = this.peek(1);
    const col = this.peek(2);
    const close = this.peek(3);
    if (!open || open.kind !== 'lparen' || !col || col.kind !== 'column' || !close || close.kind !== 'rparen') return false;
    this.i += 4;
    const bucket = new BucketNode(tok.value, PERIODS.get(tok.value)!, tok.start, tok.end);
    const ref = new BucketedColumnNode(col.value, col.closed, bucket, col.start, col.end);
    this.push(new ColumnClauseNode(ref, tok.start, close.end));
    return true;
  }

  /** `by` / `for each` [aggregation] [column], or a date part (`by week`). */
  private groupingClause(tok: Token): void {
    const name = tok.value;
    this.i++;
    const agg = this.aggregation();
    const c = this.peek();
    if (c && c.kind === 'column') {
      this.columnClause(agg?.value as Aggregation | undefined, agg, tok, name === 'by' ? { by: true } : { forEach: true });
      return;
    }
    if (!agg && c && this.isKw(c) && (UNITS.has(c.value) || BUCKET_SET.has(c.value))) {
      // `by week`, `by day of week`, `for each month` (list-date.adoc): a bucket of the date column,
      // which is the data source's when none is listed.
      this.i++;
      const bucket = UNITS.has(c.value) ? UNIT_BUCKETS[c.value as DateUnit] : (c.value as DateBucket);
      this.push({ kind: 'bucket', bucket, start: tok.start, end: c.end });
      return;
    }
    this.sink.add(agg ?? tok, codes.MISSING_OPERAND, `${name} needs a column after it: ${name} [origin].`);
    this.push({ kind: 'error', text: name, start: tok.start, end: (agg ?? tok).end });
  }

  /** `top` / `bottom` [N] (N defaults to 10); `top 2 days ago` leaves the number to the date. */
  private topBottom(tok: Token): void {
    const name = tok.value as 'top' | 'bottom';
    this.i++;
    const num = this.peek();
    // Each clause is made whole by one constructor call or literal: a property added afterwards
    // costs the object a separate property store (one more object per clause for the collector).
    // The frequent clauses are made by the constructors of nodes.ts (see there why).
    if (num && num.kind === 'number' && isDigits(num.value)) {
      // `top 2 days ago` is no top N: leave the number to the date.
      const u = this.peek(1);
      if (!(u && this.isKw(u) && UNITS.has(u.value) && this.isKw(this.peek(2), 'ago'))) {
        this.i++;
        this.push(new TopBottomNode(name, numberOf(num.value), new SpanNode(num.start, num.end), tok.start, num.end));
        return;
      }
    }
    this.push(new TopBottomNode(name, 10, undefined, tok.start, tok.end));
  }

  /** `sort by [aggregation] [column] [ascending|descending]`. */
  private sortBy(tok: Token): void {
    const name = tok.value;
    this.i++;
    const agg = this.aggregation();
    let col = this.requireColumn(agg ?? tok, 'sort by [delay] descending');
    if (!col) {
      this.push({ kind: 'error', text: name, start: tok.start, end: (agg ?? tok).end });
      return;
    }
    // `sort by [date] [date].daily descending` (the token form): the column, then it with its bucket
    const again = this.peek();
    const againDot = this.peek(1);
    if (!col.bucket && again && again.kind === 'column' && again.value === col.name && againDot && againDot.kind === 'dot' && againDot.start === again.end) {
      const at = this.i;
      const bucketed = this.columnRef();
      if (bucketed.bucket?.known) col = bucketed;
      else this.i = at;
    }
    const d = this.peek();
    // One shape per constructor call or literal (see `top`).
    const aggregation = agg ? (agg.value as Aggregation) : undefined;
    if (this.isKw(d, 'ascending') || this.isKw(d, 'descending')) {
      this.i++;
      this.push(new SortNode(col, aggregation, d!.value as 'ascending' | 'descending', tok.start, d!.end));
      return;
    }
    this.push(new SortNode(col, aggregation, undefined, tok.start, col.end));
  }

  /** `growth of [measure] by [date] [bucket] [period-over-period]` (keywords.ts `PERIOD_OVER_PERIOD`; search-growth). */
  private growthOf(tok: Token): void {
    const name = tok.value;
    this.i++;
    const measure = this.requireColumn(tok, 'growth of [delay] by [date]');
    if (!measure) {
      this.push({ kind: 'error', text: name, start: tok.start, end: tok.end });
      return;
    }
    const by = this.peek();
    if (!this.isKw(by, 'by')) {
      this.sink.add(span(tok, measure), codes.MISSING_OPERAND, 'growth of needs "by" and a date column: growth of [delay] by [date].');
      this.push({ kind: 'error', text: name, start: tok.start, end: measure.end });
      return;
    }
    this.i++;
    const date = this.requireColumn(by!, 'growth of [delay] by [date]');
    if (!date) {
      this.push({ kind: 'error', text: name, start: tok.start, end: by!.end });
      return;
    }
    let bucket: DateBucket | undefined = date.bucket?.known ?? undefined;
    let end = date.end;
    const b = this.peek();
    if (b && this.isKw(b) && BUCKET_SET.has(b.value)) {
      this.i++;
      bucket = b.value as DateBucket;
      end = b.end;
    }
    const pop = this.peek();
    const periodOverPeriod = pop && this.isKw(pop) && PERIOD_OVER_PERIOD_SET.has(pop.value) ? (pop.value as PeriodOverPeriod) : undefined;
    if (periodOverPeriod) {
      this.i++;
      end = pop!.end;
    }
    // One shape per constructor call or literal (see `top`).
    this.push(bucket !== undefined
      ? { kind: 'growth', measure, by: date, bucket, periodOverPeriod, start: tok.start, end }
      : { kind: 'growth', measure, by: date, periodOverPeriod, start: tok.start, end });
  }

  /** `calendar.name` (a calendar for the whole query), or the bare keyword. */
  private calendarClause(tok: Token): void {
    const name = tok.value;
    this.i++;
    const dot = this.peek();
    const nm = this.peek(1);
    if (dot && dot.kind === 'dot' && dot.start === tok.end) {
      this.i++;
      if (nm && nm.start === dot.end && (nm.kind === 'word' || nm.kind === 'keyword' || nm.kind === 'value')) {
        this.i++;
        this.push({ kind: 'calendar', name: nm.kind === 'keyword' ? nm.value : nm.value, start: tok.start, end: nm.end });
        return;
      }
      this.sink.add(dot, codes.MISSING_OPERAND, "A calendar name must follow calendar.: calendar.fiscal or calendar.'my calendar'.");
      this.push({ kind: 'error', text: 'calendar.', start: tok.start, end: dot.end });
      return;
    }
    // `calendar` alone (calendar.adoc): the Gregorian calendar instead of the column's custom one.
    this.push({ kind: 'calendar', name, start: tok.start, end: tok.end });
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
