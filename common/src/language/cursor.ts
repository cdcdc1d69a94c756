/**
 * Reading the lossless syntax tree (tree.ts, parser.ts `SyntaxDocument`) at a cursor, for completion: the
 * token the cursor is in, the significant tokens before it within its query, and the nodes that hold a
 * token (docs/architecture.md "The syntax tree"). Nothing is lexed or parsed again: tokens and nodes are
 * read from the tree's typed arrays, their absolute offsets computed on descent from the part's start
 * (`SyntaxDocument.partStart`) and the tokens' widths.
 * Pure: no `vscode`, no connection, no I/O. Never throws on any document or offset.
 */
import type { Token } from './lexer';
import type { SyntaxDocument } from './parser';
import { NODE_KINDS, PART, TK, tokenOf, type GreenBuffer, type NodeKind } from './tree';

/** A token of the tree read at a cursor: the lexer's view of it (kind, span, value, closed) and where it sits in the tree. */
export interface TreeToken {
  /** The lexer's token (lexer.ts `Token`), absolute UTF-16 offsets into the document. */
  token: Token;
  /** The index of its part in the document (`SyntaxDocument.part`). */
  part: number;
  /** Its index in the part's `GreenBuffer`. */
  index: number;
}

/** A node of the tree holding a token (`TreeCursor.nodesOf`). */
export interface TreeNode {
  kind: NodeKind;
  /** Its index in the part's `GreenBuffer`. */
  node: number;
  /** Its tokens, `[from, to)`, indices in the part's `GreenBuffer` (`from === to` for a `missing` node). */
  from: number;
  to: number;
}

const WHITESPACE = TK.whitespace;
const COMMENT = TK.comment;
const BLANK = TK.blank;
const SEMICOLON = TK.semicolon;
const DIRECTIVE = TK.directive;

/**
 * The tree of one document read at one offset. Made by `treeCursorAt`; cheap (no token is read until asked
 * for) and meant for one request: it keeps the token starts of the parts it reads.
 */
export class TreeCursor {
  /** Token starts per part index read so far: `starts[t - tokFrom]` absolute, one more for the part's end. */
  private readonly starts = new Map<number, Float64Array>();

  /**
   * The token the cursor is in or at the end of (`start < offset <= end`), whitespace and blank lines
   * excluded: undefined when the cursor is in either, at the start of a token, or at offset 0.
   */
  get under(): TreeToken | undefined {
    return this.underToken;
  }
  private underToken: TreeToken | undefined;

  /**
   * @param doc the parsed document.
   * @param offset the cursor, a UTF-16 offset into `doc.text` (0 … length).
   */
  private constructor(readonly doc: SyntaxDocument, readonly offset: number) {}

  /** The cursor at `offset` of `doc` (clamped to the text). */
  static at(doc: SyntaxDocument, offset: number): TreeCursor {
    offset = Math.max(0, Math.min(offset, doc.text.length));
    let p = doc.partAt(offset);
    // the token ending at a part's start belongs to the part before
    while (p > 0 && doc.partStart(p) === offset) p--;
    const cursor = new TreeCursor(doc, offset);
    if (p < 0 || offset === 0) return cursor;
    const part = doc.part(p);
    const starts = cursor.startsOf(p);
    // the first token ending at or after the offset (starts are sorted: binary search)
    let lo = part.tokFrom;
    let hi = part.tokTo;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid + 1 - part.tokFrom]! < offset) lo = mid + 1;
      else hi = mid;
    }
    const k = part.buf.kinds[lo];
    if (lo >= part.tokTo || starts[lo - part.tokFrom]! >= offset || k === WHITESPACE || k === BLANK) return cursor;
    cursor.underToken = cursor.tokenAt(p, lo);
    return cursor;
  }

  /** The token starts of part `p` (see `starts`). */
  private startsOf(p: number): Float64Array {
    let s = this.starts.get(p);
    if (!s) {
      const part = this.doc.part(p);
      s = new Float64Array(part.tokTo - part.tokFrom + 1);
      let pos = this.doc.partStart(p);
      for (let t = part.tokFrom; t < part.tokTo; t++) {
        s[t - part.tokFrom] = pos;
        pos += part.buf.width(t);
      }
      s[part.tokTo - part.tokFrom] = pos;
      this.starts.set(p, s);
    }
    return s;
  }

  /** Token `t` of part `p` (not a whitespace token). */
  private tokenAt(p: number, t: number): TreeToken {
    const part = this.doc.part(p);
    const start = this.startsOf(p)[t - part.tokFrom]!;
    const buf = part.buf;
    // a directive's value is no part of the tree: its token is enough as a boundary
    const token = buf.kinds[t] === DIRECTIVE
      ? { kind: 'directive' as const, start, end: start + buf.width(t), value: '', closed: true, innerStart: start, innerEnd: start + buf.width(t) }
      : tokenOf(buf, t, start, this.doc.text);
    return { token, part: p, index: t };
  }

  /**
   * The significant token before `from` (a token of this document), or before the cursor when `from` is
   * undefined, within the cursor's query: whitespace and comments are skipped; a `;`, a blank line or an
   * `@datasource` line ends the query, and then there is none. A blank-line token the cursor is inside of
   * only ends the query when its text up to the cursor holds a blank line.
   * @returns undefined at the start of the query.
   */
  previous(from?: TreeToken): TreeToken | undefined {
    const doc = this.doc;
    let p: number;
    let t: number;
    if (from) {
      p = from.part;
      t = from.index - 1;
    } else {
      p = doc.partAt(this.offset);
      if (p < 0) return undefined;
      const part = doc.part(p);
      const starts = this.startsOf(p);
      // the last token starting before the offset
      t = part.tokFrom - 1;
      let lo = part.tokFrom;
      let hi = part.tokTo;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid - part.tokFrom]! < this.offset) {
          t = mid;
          lo = mid + 1;
        } else hi = mid;
      }
      if (t >= part.tokFrom && part.buf.kinds[t] === BLANK && !holdsBlankLine(doc.text, starts[t - part.tokFrom]!, this.offset)) t--;
    }
    for (; p >= 0; p--) {
      const part = doc.part(p);
      if (t >= part.tokTo) t = part.tokTo - 1;
      const buf = part.buf;
      for (; t >= part.tokFrom; t--) {
        const k = buf.kinds[t]!;
        if (k === WHITESPACE || k === COMMENT) continue;
        if (k === SEMICOLON || k === BLANK || k === DIRECTIVE) return undefined;
        return this.tokenAt(p, t);
      }
      t = Number.MAX_SAFE_INTEGER;
    }
    return undefined;
  }

  /**
   * The nodes holding token `tok`, outermost first (a clause, then its `columnRef` or `value`, …): read
   * from its part's preorder nodes, skipping the subtrees that end before it. Empty for a token of no
   * node (trivia, a directive).
   */
  nodesOf(tok: TreeToken): TreeNode[] {
    const part = this.doc.part(tok.part);
    if (part.kind !== PART.query) return [];
    const buf = part.buf;
    const out: TreeNode[] = [];
    const t = tok.index;
    for (let n = part.nodeFrom, end = part.nodeTo; n < end;) {
      const from = buf.nodeFrom[n]!;
      if (from > t) break;
      const to = buf.nodeEnd(n);
      if (to <= t) {
        n += buf.subtreeSize(n);
        continue;
      }
      out.push({ kind: NODE_KINDS[buf.nodeKinds[n]!]!, node: n, from, to });
      end = n + buf.subtreeSize(n);
      n++;
    }
    return out;
  }

  /** The children of node `node` of part `part`, in order (their own children excluded). */
  childrenOf(part: number, node: TreeNode): TreeNode[] {
    const buf: GreenBuffer = this.doc.part(part).buf;
    const out: TreeNode[] = [];
    for (let n = node.node + 1, end = node.node + buf.subtreeSize(node.node); n < end; n += buf.subtreeSize(n)) {
      out.push({ kind: NODE_KINDS[buf.nodeKinds[n]!]!, node: n, from: buf.nodeFrom[n]!, to: buf.nodeEnd(n) });
    }
    return out;
  }

  /** Token `index` of part `part` as a `TreeToken`, or undefined for whitespace or an index outside the part. */
  token(part: number, index: number): TreeToken | undefined {
    const p = part >= 0 && part < this.doc.partCount ? this.doc.part(part) : undefined;
    if (!p || index < p.tokFrom || index >= p.tokTo || p.buf.kinds[index] === WHITESPACE) return undefined;
    return this.tokenAt(part, index);
  }

  /**
   * Every `calendar.name` of the document except the one at the cursor, as written (a quoted name without
   * its quotes), in document order: the name token of each `calendar` node of three tokens.
   */
  calendarNames(): string[] {
    const doc = this.doc;
    const out: string[] = [];
    const calendar = NODE_KINDS.indexOf('calendar');
    for (let p = 0; p < doc.partCount; p++) {
      if (doc.partKinds[p] !== PART.query) continue;
      const part = doc.part(p);
      const buf = part.buf;
      for (let n = part.nodeFrom, end = part.nodeTo; n < end; n++) {
        if (buf.nodeKinds[n] !== calendar || buf.nodeEnd(n) - buf.nodeFrom[n]! !== 3) continue;
        const name = this.tokenAt(p, buf.nodeEnd(n) - 1).token;
        if (name.start <= this.offset && this.offset <= name.end) continue;
        out.push(name.value);
      }
    }
    return out;
  }
}

/** Whether `text[from, to)` holds a blank line (two line breaks; `\r\n` is one). */
function holdsBlankLine(text: string, from: number, to: number): boolean {
  let breaks = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) breaks++;
  }
  return breaks >= 2;
}

/** The tree of `doc` read at `offset` (see `TreeCursor`). */
export function treeCursorAt(doc: SyntaxDocument, offset: number): TreeCursor {
  return TreeCursor.at(doc, offset);
}
