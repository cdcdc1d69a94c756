/**
 * Typed views over the syntax tree (after rust-analyzer's `AstNode`): a view is a node of a part's green
 * buffer (tree.ts) with its absolute start, computed on descent from the part's start; no copy of the tree
 * and no object AST. The accessors a view of a kind has, their names and the kinds they give, are derived
 * from the grammar's `NODE_CHILDREN` (grammar.ts): at run time by `accessorsOf`, in the types by
 * `Accessors<K>`; test/unit/views.test.ts checks the two against the declaration and the parser's trees.
 * Pure: no `vscode`, no connection, no I/O.
 */
import { NODE_CHILDREN, SEARCH_GRAMMAR, childItems, isClauseKind, type ClauseNodeKind, type SearchNodeKind } from './grammar';
import type { Token } from './lexer';
import type { SyntaxDocument } from './parser';
import { PART, TK, nodeKindOf, tokenOf, type GreenBuffer, type GreenPart } from './tree';

/** The kinds a clause node may have (grammar.ts `ClauseNodeKind`). */
export type ClauseKind = ClauseNodeKind;

type Spec = typeof NODE_CHILDREN;
/** The items of a `NODE_CHILDREN` entry, as a tuple of strings (`'columnRef value* missing?'` → three). */
type Items<S extends string> = S extends `${infer A} ${infer B}` ? [A, ...Items<B>] : S extends '' ? [] : [S];
/** An item without its `?` or `*`. */
type BaseOf<I extends string> = I extends `${infer B}?` ? B : I extends `${infer B}*` ? B : I;
/** The items of `L` whose base is `B`. */
type Occurrences<L extends string[], B extends string> = L extends [infer H extends string, ...infer R extends string[]] ? (BaseOf<H> extends B ? [H, ...Occurrences<R, B>] : Occurrences<R, B>) : [];
/** Whether item `I` of `L` gives a list: repeated (`*`) or its kind written more than once. */
type Many<I extends string, L extends string[]> = I extends `${string}*` ? true : Occurrences<L, BaseOf<I>>['length'] extends 1 ? false : true;
/** The accessor's name of item `I` of `L` (see `accessorsOf`). */
type NameOf<I extends string, L extends string[]> = I extends string ? NameOfItem<I, L> : never;
type NameOfItem<I extends string, L extends string[]> = BaseOf<I> extends 'Clause' ? 'clauses' : Many<I, L> extends true ? `${BaseOf<I>}s` : BaseOf<I>;
/** The node kind an item's base names. */
type KindOf<B extends string> = B extends 'Clause' ? ClauseKind : Extract<B, SearchNodeKind>;
/** What the accessor of item `I` of `L` gives. */
type ResultOf<I extends string, L extends string[]> = Many<I, L> extends true ? NodeView<KindOf<BaseOf<I>>>[] : I extends `${string}?` ? NodeView<KindOf<BaseOf<I>>> | undefined : NodeView<KindOf<BaseOf<I>>>;

/**
 * The accessors of a view of kind `K`, derived from `NODE_CHILDREN[K]`: by name, what each gives (one
 * view, a view or undefined for `?`, a list for `*` or a kind written twice).
 */
export type Accessors<K extends SearchNodeKind> = { [I in Items<Spec[K]>[number] as NameOf<I, Items<Spec[K]>>]: ResultOf<I, Items<Spec[K]>> };
/** The accessor names of a view of kind `K` (never for a view whose kind is not narrowed: see `NodeView.is`). */
export type AccessorName<K extends SearchNodeKind> = keyof Accessors<K> & string;

/** One accessor of a view (`accessorsOf`): its name, the node kinds its children have, and whether it gives a list or may give nothing. */
export interface Accessor {
  readonly name: string;
  readonly kinds: readonly SearchNodeKind[];
  readonly many: boolean;
  readonly optional: boolean;
}

/**
 * The accessors of a view of kind `kind`, in `NODE_CHILDREN` order, each once: an item `Clause` is
 * `clauses` (every clause kind), an item repeated (`*`) or whose kind is written twice is the kind's
 * plural (`values`, `columnRefs`: a list), an optional one (`?`) may give nothing, any other gives one view.
 */
function readAccessors(kind: SearchNodeKind): readonly Accessor[] {
  const items = childItems(kind);
  const out: Accessor[] = [];
  for (const it of items) {
    const many = it.repeat === '*' || items.filter((o) => o.kind === it.kind).length > 1;
    const name = it.kind === 'Clause' ? 'clauses' : many ? `${it.kind}s` : it.kind;
    if (out.some((a) => a.name === name)) continue;
    const kinds = it.kind === 'Clause' ? SEARCH_GRAMMAR.nodeKinds.filter(isClauseKind) : [it.kind];
    out.push({ name, kinds, many, optional: it.repeat === '?' });
  }
  return out;
}
/** `readAccessors` of every node kind, made when the module loads (a table, never changed). */
const ACCESSORS: ReadonlyMap<SearchNodeKind, readonly Accessor[]> = new Map(SEARCH_GRAMMAR.nodeKinds.map((k) => [k, readAccessors(k)]));
/** The accessors of a view of kind `kind` (see `readAccessors`). */
export function accessorsOf(kind: SearchNodeKind): readonly Accessor[] {
  return ACCESSORS.get(kind)!;
}

/**
 * A view of node `node` of `buf` (a green node, tree.ts), whose first token starts at `start` in `source`
 * (the document's text). Its kind is `kind`; narrow it with `is` to reach its accessors by `get`. Cheap:
 * four fields, made as the tree is walked.
 */
export class NodeView<K extends SearchNodeKind = SearchNodeKind> {
  constructor(
    readonly source: string,
    readonly buf: GreenBuffer,
    readonly node: number,
    readonly start: number,
    readonly kind: K,
  ) {}

  /** Whether this view is of kind `kind` (then its accessors are typed). */
  is<T extends SearchNodeKind>(kind: T): this is NodeView<T> {
    const own: SearchNodeKind = this.kind;
    return own === kind;
  }

  /** The end of its last token (its start for a `missing` node, which has none), UTF-16 offset. */
  get end(): number {
    let pos = this.start;
    const buf = this.buf;
    for (let t = buf.nodeFrom[this.node]!, to = buf.nodeEnd(this.node); t < to; t++) pos += buf.width(t);
    return pos;
  }

  /** Its span in the document, UTF-16 offsets, `end` exclusive. */
  get span(): { start: number; end: number } {
    return { start: this.start, end: this.end };
  }

  /** Its text as written (comments inside it included). */
  get text(): string {
    return this.source.slice(this.start, this.end);
  }

  /** Its direct children, in order, each with its start (the widths from this node's start summed). */
  children(): NodeView[] {
    return childViews(this.source, this.buf, this.node + 1, this.node + this.buf.subtreeSize(this.node), this.buf.nodeFrom[this.node]!, this.start);
  }

  /** Its lexer tokens (lexer.ts `Token`, absolute offsets), whitespace and comments left out. */
  tokens(): Token[] {
    return tokensOf(this.source, this.buf, this.buf.nodeFrom[this.node]!, this.buf.nodeEnd(this.node), this.start);
  }

  /**
   * The children an accessor names (`accessorsOf`): one view (or undefined when an optional one is
   * absent), or a list. Throws when `name` is no accessor of the view's kind (a caller without types).
   */
  get<N extends AccessorName<K>>(name: N): Accessors<K>[N];
  get(name: string): unknown {
    const a = accessorsOf(this.kind).find((x) => x.name === name);
    if (!a) throw new Error(`a ${this.kind} view has no accessor ${name} (NODE_CHILDREN.${this.kind} is "${NODE_CHILDREN[this.kind]}")`);
    const found = this.children().filter((c) => a.kinds.includes(c.kind));
    return a.many ? found : found[0];
  }
}

/** The views of the sibling nodes `[from, to)` of `buf`, the first token of their parent `tokFrom` starting at `start`. */
function childViews(source: string, buf: GreenBuffer, from: number, to: number, tokFrom: number, start: number): NodeView[] {
  const out: NodeView[] = [];
  let t = tokFrom;
  let pos = start;
  for (let n = from; n < to; n += buf.subtreeSize(n)) {
    for (const first = buf.nodeFrom[n]!; t < first; t++) pos += buf.width(t);
    out.push(new NodeView(source, buf, n, pos, nodeKindOf(buf, n)));
  }
  return out;
}

/** The lexer tokens of tokens `[from, to)` of `buf` (the first starting at `start`), whitespace and comments left out. */
function tokensOf(source: string, buf: GreenBuffer, from: number, to: number, start: number): Token[] {
  const out: Token[] = [];
  let pos = start;
  for (let t = from; t < to; t++) {
    const k = buf.kinds[t]!;
    if (k !== TK.whitespace && k !== TK.comment) out.push(tokenOf(buf, t, pos, source));
    pos += buf.width(t);
  }
  return out;
}

/**
 * A view of one query of a document (its part): the root the node views hang from. `start` and `end`
 * span its tokens (leading and trailing trivia out), as ast.ts `Query` does.
 */
export class QueryView {
  constructor(
    readonly source: string,
    readonly part: GreenPart,
    /** The part's start in the document (UTF-16 offset). */
    readonly partStart: number,
  ) {}

  /** Its clauses (the part's top-level nodes), in order. */
  clauses(): NodeView<ClauseKind>[] {
    const p = this.part;
    return childViews(this.source, p.buf, p.nodeFrom, p.nodeTo, p.tokFrom, this.partStart).filter(isClauseView);
  }

  /** Its lexer tokens (absolute offsets), whitespace and comments left out. */
  tokens(): Token[] {
    return tokensOf(this.source, this.part.buf, this.part.tokFrom, this.part.tokTo, this.partStart);
  }

  /** Its span: its first token's start to its last token's end (the part's start and end when it has none). */
  get span(): { start: number; end: number } {
    const t = this.tokens();
    return t.length ? { start: t[0]!.start, end: t[t.length - 1]!.end } : { start: this.partStart, end: this.partStart + this.part.width };
  }

  /** Its text with comments taken out, trimmed (ast.ts `Query.text`). */
  get text(): string {
    const { start, end } = this.span;
    const buf = this.part.buf;
    let out = '';
    let pos = this.partStart;
    let from = start;
    for (let t = this.part.tokFrom; t < this.part.tokTo && pos < end; t++) {
      const w = buf.width(t);
      if (buf.kinds[t] === TK.comment && pos >= start) {
        out += this.source.slice(from, pos);
        from = pos + w;
      }
      pos += w;
    }
    return (out + this.source.slice(Math.min(from, end), end)).trim();
  }
}

function isClauseView(v: NodeView): v is NodeView<ClauseKind> {
  return isClauseKind(v.kind);
}

/** The view of query `i` of `doc` (0 ≤ i < `doc.queryCount`). */
export function queryView(doc: SyntaxDocument, i: number): QueryView {
  const pi = doc.queryPartIndex(i);
  const part = doc.part(pi);
  if (part.kind !== PART.query) throw new Error(`part ${pi} is no query`);
  return new QueryView(doc.text, part, doc.partStart(pi));
}

/** The views of every query of `doc`, in order (made on each call). */
export function queryViews(doc: SyntaxDocument): QueryView[] {
  return Array.from({ length: doc.queryCount }, (_, i) => queryView(doc, i));
}
