/**
 * The lossless syntax tree of a `.tsq` document, after rust-analyzer's `rowan` green tree (docs/architecture.md
 * "The syntax tree"): tokens and nodes in typed arrays of kinds and WIDTHS, never absolute offsets, whitespace
 * and comments kept as tokens, so the tokens' texts in order are the document's text, exactly. A document is a
 * list of parts (a query, a directive, trivia), each a token and node range of a shared `GreenBuffer`; a
 * reparse makes new parts only for what it parses again (incremental.ts). A query's nodes are its clauses in
 * preorder (kind, token range, subtree size), with `columnRef`, `value`, tree-sitter-like `error` (the
 * parser's error clause, wrapping its tokens) and `missing` (zero tokens: `[sales] >` misses its value).
 * Offsets are computed on descent (parser.ts `SyntaxDocument.partStart`). Kinds are derived: the lexer's
 * token kinds plus `whitespace`, the grammar's node kinds (grammar.ts); keywords as their catalogue index.
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { ParseDiagnostic } from './ast';
import { SEARCH_GRAMMAR, type SearchNodeKind } from './grammar';
import { TOKEN_KINDS, TokenStore, WIDTH_ESCAPE, keywordIdOf, makeToken, numberDetail, type Token, type TokenKind } from './lexer';

/** The kinds of a tree token: the lexer's kinds, then `whitespace` (the runs the lexer skips). */
export type TreeTokenKind = TokenKind | 'whitespace';
/** Every `TreeTokenKind`; a token stores its kind as the index here. */
export const TREE_TOKEN_KINDS: readonly TreeTokenKind[] = [...TOKEN_KINDS, 'whitespace'];
/** `TREE_TOKEN_KINDS` index by kind. */
export const TK = Object.fromEntries(TREE_TOKEN_KINDS.map((k, i) => [k, i])) as Record<TreeTokenKind, number>;

/** The kinds of a tree node (grammar.ts `SearchNodeKind`): a node kind is stored as its index in `NODE_KINDS`. */
export type NodeKind = SearchNodeKind;
/** Every `NodeKind`: those the grammar's productions write (grammar.ts `SEARCH_GRAMMAR.nodeKinds`), in declaration order. */
export const NODE_KINDS: readonly NodeKind[] = SEARCH_GRAMMAR.nodeKinds;
/** `NODE_KINDS` index by kind. */
export const NK = Object.fromEntries(NODE_KINDS.map((k, i) => [k, i])) as Record<NodeKind, number>;

/** The largest token width, node token count or subtree size a 16-bit entry holds; larger ones are escaped (see `GreenBuffer`). */
const ESCAPE = WIDTH_ESCAPE;

/**
 * Token and node storage of one parse (or one reparse window): typed arrays, grown by doubling and cut
 * to size by `trim` when the parse ends. Tokens: `kinds` (a `TREE_TOKEN_KINDS` index), `widths` (UTF-16
 * code units; read them with `width`) and `details` (lexer.ts `TokenStore`: a keyword's `KeywordId`, the catalogue index + 1; 1 for a
 * closed column, value or quoted directive, 0 when unclosed; for `{null}` 0, `{empty}` 1; a number's
 * digits-only and year bits). The lexer writes the tokens (`TokenStore`, which this class extends). Nodes: `nodeKinds` (a
 * `NODE_KINDS` index), `nodeFrom` (the first token, an index into this buffer), `nodeLengths` (how many
 * tokens it covers; 0 for a `missing` node, which sits before token `nodeFrom`; read the end with
 * `nodeEnd`) and `nodeSizes` (the nodes of its subtree, itself included; read with `subtreeSize`).
 * Widths, node lengths and subtree sizes are 16-bit: a value of 65,535 or more is stored as 65,535 and
 * kept in a map by index (a 70,000-character comment, a subsearch of 40,000 clauses), so the common case
 * takes 2 bytes instead of 4 (the tree of the 1 MB benchmark file within 4 MB, README "Parse speed").
 */
export class GreenBuffer extends TokenStore {
  nodeKinds: Uint8Array;
  nodeFrom: Uint32Array;
  nodeLengths: Uint16Array;
  nodeSizes: Uint16Array;
  nodeCount = 0;
  /** The escaped values by index (see the class comment); undefined while there is none. */
  private longLengths?: Map<number, number>;
  private longSizes?: Map<number, number>;

  /** @param tokens expected tokens (room grows as needed); @param from the offset its first token starts at. */
  constructor(tokens = 64, from = 0) {
    super(tokens, from);
    const t = this.kinds.length;
    const n = Math.max(16, Math.ceil(t * 0.45)); // the realistic benchmark file has 0.43 nodes a token (whitespace included)
    this.nodeKinds = new Uint8Array(n);
    this.nodeFrom = new Uint32Array(n);
    this.nodeLengths = new Uint16Array(n);
    this.nodeSizes = new Uint16Array(n);
  }

  /** Appends a node over tokens `[from, to)` with a subtree of itself alone (see `close`); returns its index. */
  addNode(kind: number, from: number, to: number): number {
    const i = this.nodeCount;
    if (i === this.nodeKinds.length) {
      this.nodeKinds = grow8(this.nodeKinds);
      this.nodeFrom = grow32(this.nodeFrom);
      this.nodeLengths = grow16(this.nodeLengths);
      this.nodeSizes = grow16(this.nodeSizes);
    }
    this.nodeKinds[i] = kind;
    this.nodeFrom[i] = from;
    const length = to - from;
    if (length < ESCAPE) this.nodeLengths[i] = length;
    else {
      this.nodeLengths[i] = ESCAPE;
      (this.longLengths ??= new Map()).set(i, length);
    }
    this.nodeSizes[i] = 1;
    this.nodeCount = i + 1;
    return i;
  }

  /**
   * Makes room for `more` nodes after `nodeCount`, for a writer that then stores nodes straight into the
   * arrays (token counts and subtree sizes under 65,535, no escape).
   */
  reserveNodes(more: number): void {
    while (this.nodeCount + more > this.nodeKinds.length) {
      this.nodeKinds = grow8(this.nodeKinds);
      this.nodeFrom = grow32(this.nodeFrom);
      this.nodeLengths = grow16(this.nodeLengths);
      this.nodeSizes = grow16(this.nodeSizes);
    }
  }

  /** The token after the last token of node `i` (its first, `nodeFrom[i]`, for a `missing` node). */
  nodeEnd(i: number): number {
    const l = this.nodeLengths[i]!;
    return this.nodeFrom[i]! + (l === ESCAPE ? this.longLengths!.get(i)! : l);
  }

  /** The nodes of node `i`'s subtree, itself included (its children are the nodes after it within this count). */
  subtreeSize(i: number): number {
    const s = this.nodeSizes[i]!;
    return s === ESCAPE ? this.longSizes!.get(i)! : s;
  }

  /** Ends node `i`: its subtree is every node appended since. */
  close(i: number): void {
    const size = this.nodeCount - i;
    if (size < ESCAPE) this.nodeSizes[i] = size;
    else {
      this.nodeSizes[i] = ESCAPE;
      (this.longSizes ??= new Map()).set(i, size);
    }
  }

  /**
   * Cuts the token arrays, and the node arrays, to their contents when more than a quarter of them is
   * unused (`TRIM_UNUSED`): a parse grows them up to twice what it needs, or its estimate overshoots a
   * little. The copy and the new arrays were a few percent of a parse: below a quarter unused the memory
   * kept is the smaller cost (the 1 MB benchmark file, 14% and 18% unused, keeps 0.37 MB more, README
   * "Parse speed").
   */
  trim(): void {
    if (this.tokenCount < this.kinds.length * (1 - TRIM_UNUSED)) {
      this.kinds = this.kinds.slice(0, this.tokenCount);
      this.widths = this.widths.slice(0, this.tokenCount);
      this.details = this.details.slice(0, this.tokenCount);
    }
    if (this.nodeCount < this.nodeKinds.length * (1 - TRIM_UNUSED)) {
      this.nodeKinds = this.nodeKinds.slice(0, this.nodeCount);
      this.nodeFrom = this.nodeFrom.slice(0, this.nodeCount);
      this.nodeLengths = this.nodeLengths.slice(0, this.nodeCount);
      this.nodeSizes = this.nodeSizes.slice(0, this.nodeCount);
    }
  }
}

/** The share of a buffer's arrays left unused above which `GreenBuffer.trim` cuts them to their contents. */
export const TRIM_UNUSED = 0.25;

function grow8(a: Uint8Array): Uint8Array {
  const b = new Uint8Array(a.length * 2);
  b.set(a);
  return b;
}
function grow16(a: Uint16Array): Uint16Array {
  const b = new Uint16Array(a.length * 2);
  b.set(a);
  return b;
}
function grow32(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

/** What a part of a document is: a query, an `@datasource` directive, or trivia between them (`PART`). */
export type PartKind = 0 | 1 | 2;
/** The `PartKind` of each kind of part. */
export const PART = { query: 0, directive: 1, trivia: 2 } as const satisfies Record<string, PartKind>;

/** The syntax diagnostics of the parts that have some (most have none: no field on every part for them). */
const PART_DIAGNOSTICS = new WeakMap<GreenPart, readonly ParseDiagnostic[]>();

/**
 * One part of a document (see the file comment): tokens `[tokFrom, tokTo)` and nodes `[nodeFrom, nodeTo)`
 * of `buf`, and its syntax diagnostics with offsets RELATIVE to the part's start (undefined when none).
 * Its width is the sum of its tokens' (`width`; the document keeps the widths of its parts in a typed
 * array, `SyntaxDocument.partWidths`). Immutable once made: a reparse makes new parts for what it parses
 * again and keeps the other parts as the same objects, so a part's identity says "not parsed again"
 * (validation keys its cache by it). Four fields and no more (a 1 MB document has about 19,000 parts):
 * the kind and the first node share one number, and `nodeTo` is found by walking the part's top-level
 * nodes (only a query has nodes; each one starts at or before the query's last token, and the next
 * part's first node after a separating token).
 */
export class GreenPart {
  /** `kind + 4 × nodeFrom`. */
  private readonly packed: number;

  constructor(
    kind: PartKind,
    readonly buf: GreenBuffer,
    readonly tokFrom: number,
    readonly tokTo: number,
    nodeFrom: number,
    diagnostics?: readonly ParseDiagnostic[],
  ) {
    this.packed = kind + 4 * nodeFrom;
    if (diagnostics?.length) PART_DIAGNOSTICS.set(this, diagnostics);
  }

  /** What the part is (`PART`). */
  get kind(): PartKind {
    return (this.packed % 4) as PartKind;
  }

  /** The part's first node (for a part with no node, where its nodes would be). */
  get nodeFrom(): number {
    return (this.packed - (this.packed % 4)) / 4;
  }

  /** After the part's last node: `nodeFrom` for a directive or trivia, else past its last top-level node's subtree. */
  get nodeTo(): number {
    const from = this.nodeFrom;
    if (this.packed % 4 !== PART.query) return from;
    const buf = this.buf;
    const last = this.tokTo;
    let n = from;
    while (n < buf.nodeCount && buf.nodeFrom[n]! <= last) n += buf.subtreeSize(n);
    return n;
  }

  /** The part's syntax diagnostics, offsets relative to its start; undefined when it has none. */
  get diagnostics(): readonly ParseDiagnostic[] | undefined {
    return PART_DIAGNOSTICS.get(this);
  }

  /** The part's width in UTF-16 code units: the sum of its tokens' widths (a pass over them). */
  get width(): number {
    let w = 0;
    for (let t = this.tokFrom; t < this.tokTo; t++) w += this.buf.width(t);
    return w;
  }
}

/**
 * A lexer token's kind code (`TREE_TOKEN_KINDS` index, `kind`) and `details` entry (see `GreenBuffer`) in
 * one number: `kind | detail << 8`. A switch on the kind (the most frequent kinds first): a keyed look-up
 * of `TK` by a token's kind was a tenth of a parse.
 */
export function codeOf(t: Token): number {
  switch (t.kind) {
    case 'column': return t.closed ? K_COLUMN | 256 : K_COLUMN;
    case 'keyword': return K_KEYWORD | keywordIdOf(t.value) << 8;
    case 'value': return t.closed ? K_VALUE | 256 : K_VALUE;
    case 'constant': return t.value === 'empty' ? K_CONSTANT | 256 : K_CONSTANT;
    case 'number': return K_NUMBER | numberDetail(t.value, 0, t.value.length) << 8;
    case 'directive': return t.closed ? K_DIRECTIVE | 256 : K_DIRECTIVE;
    default: return TK[t.kind];
  }
}
const K_COLUMN = TK.column;
const K_KEYWORD = TK.keyword;
const K_VALUE = TK.value;
const K_CONSTANT = TK.constant;
const K_NUMBER = TK.number;
const K_DIRECTIVE = TK.directive;

/**
 * The lexer's token (lexer.ts `Token`) of tree token `i` of `buf`, which starts at `start` in `text`: its
 * value and inner span are read back from the text and `details`. Not for `whitespace` (no lexer token)
 * nor `directive` tokens (parser.ts reads a directive's value by scanning its line again).
 */
export function tokenOf(buf: GreenBuffer, i: number, start: number, text: string): Token {
  return makeToken(buf.kinds[i]!, buf.details[i]!, start, start + buf.width(i), text);
}

/** The kind of tree token `i` of `buf`. */
export function tokenKindOf(buf: GreenBuffer, i: number): TreeTokenKind {
  return TREE_TOKEN_KINDS[buf.kinds[i]!]!;
}

/** The kind of node `i` of `buf`. */
export function nodeKindOf(buf: GreenBuffer, i: number): NodeKind {
  return NODE_KINDS[buf.nodeKinds[i]!]!;
}
