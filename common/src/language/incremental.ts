/**
 * Incremental reparse of a `.tsq` document after an edit, on the lossless tree (tree.ts), after
 * rust-analyzer's `reparsing.rs`: the parts (queries, directives, trivia) the edit touches are parsed
 * again and spliced in; the parts before and after the edit are kept as the same objects, and nothing is
 * shifted, since parts hold widths, not offsets. Each query is independent (parser.ts: a query ends at
 * `;`, a blank line, a directive or the end of the text), so the result equals `parseDocument(text)`.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { TsqDocument } from './ast';
import { SyntaxDocument, parseDocument, parseParts } from './parser';
import * as tree from './tree';

const QUERY_PART = tree.PART.query;
const TRIVIA_PART = tree.PART.trivia;
const SEMICOLON = tree.TK.semicolon;
const BLANK = tree.TK.blank;
type GreenPart = tree.GreenPart;

/**
 * Above this many diagnostics in either parse the caps of the lexer and parser (1,000 and 2,000) could
 * make a piecewise parse differ from a whole one, so the whole text is parsed.
 */
const MAX_DIAGNOSTICS_FOR_REUSE = 500;

/**
 * Parses `text` reusing `previous`, the parse of `previousText`. Equal to `parseDocument(text)` (same
 * tokens, nodes, AST and diagnostics); the parts of the tree the edit does not touch are the previous
 * parse's own objects, before the edit and after it alike. Never throws.
 *
 * Cost: the common prefix and suffix of the two texts (a comparison of blocks; the first read of a text
 * made by concatenation flattens it, a copy of it that its next reader would make otherwise), the parse
 * of the queries the edit touches, and a copy of the list of parts (one pointer each) and of their
 * widths, kinds and starts (the previous starts shifted, so the new document needs no pass to index).
 */
export function reparseDocument(previousText: string, previous: TsqDocument, text: string): SyntaxDocument {
  if (!(previous instanceof SyntaxDocument) || previous.text !== previousText || previous.diagnosticCount > MAX_DIAGNOSTICS_FOR_REUSE || previousText.length === 0) return parseDocument(text);
  const oldLen = previousText.length;
  const newLen = text.length;
  const min = Math.min(oldLen, newLen);
  const prefix = commonPrefix(previousText, text, min);
  if (prefix === oldLen && oldLen === newLen) return previous;
  const suffix = commonSuffix(previousText, text, min - prefix);
  const delta = newLen - oldLen;

  // Restart before the first changed character, where lexing gives the same tokens as lexing from 0 and
  // the builder has nothing pending: at the trivia before a part that begins its line (a token before it
  // on its line may look ahead past its start: an unclosed `[` reads to the line's end, a directive makes
  // the rest of its line one stray token; none looks past a line end), when that trivia follows a query,
  // where the lexer resumed at the query's last token's end (after a directive it resumed past the
  // directive's trailing spaces), or at 0. The trivia is parsed again with the part: a query that becomes
  // trivia (a `--` typed at its start) then joins it into one part, as a whole parse makes it.
  const kindsOf = previous.partKinds;
  let j = previous.partAt(prefix - 1);
  for (; j > 0; j--) {
    const start = previous.partStart(j);
    if (kindsOf[j] === TRIVIA_PART || start >= prefix || gluedAt(previousText, start)) continue;
    // a part beginning its line has trivia before it (the line break); after a query, that trivia must
    // hold what ended the query (a `;` or a blank line), else the query ended at the part (a directive)
    // and would go on if the part stops being one; after a directive, the trivia must start at its line
    // break (the lexer resumes past the spaces after a directive's value)
    const before = j === 1 ? -1 : kindsOf[j - 2]!;
    if (before < 0 || (before === QUERY_PART ? endsQuery(previous.part(j - 1)) : isLineBreak(previousText.charCodeAt(previous.partStart(j - 1))))) {
      j--;
      break;
    }
  }
  const first = j > 0 ? j : 0;
  const from = first > 0 ? previous.partStart(first) : 0;

  // Stop at a query of the previous parse that starts in the unchanged suffix, at the same place (moved),
  // beginning its line in both texts: from there on the tokens, and so the parts, are the same.
  const unchangedFrom = oldLen - suffix;
  let stopPart = -1;
  const isSync = (offset: number): boolean => {
    const old = offset - delta;
    if (old < unchangedFrom) return false;
    const k = previous.partAt(old);
    if (k < 0 || previous.partStart(k) !== old || kindsOf[k] !== QUERY_PART) return false;
    // the query began its line in the previous text; an edit just before it (a line break deleted) may
    // have glued it to a directive's line in this one, where the same tokens mean something else
    if (gluedAt(previousText, old) || gluedAt(text, offset)) return false;
    stopPart = k;
    return true;
  };
  const win = parseParts(text, from, newLen - suffix, isSync);
  if (win.diagnosticCount > MAX_DIAGNOSTICS_FOR_REUSE) return parseDocument(text);
  const slots = previous.slots;
  const last = win.stop < 0 ? slots.length : stopPart;
  let dropped = 0;
  // a part with diagnostics always has an object (parser.ts TreeBuilder)
  for (let k = first; k < last; k++) dropped += slots[k]?.diagnostics?.length ?? 0;
  const count = previous.diagnosticCount - dropped + win.diagnosticCount;
  if (count > MAX_DIAGNOSTICS_FOR_REUSE) return parseDocument(text);
  const m = win.parts.length;
  // one copy of the list of parts (one pointer each), the parts after the window moved when the window
  // has another count of parts than it replaces, and the window's parts put in
  const spliced: (GreenPart | undefined)[] = slots.slice();
  const shift = m - (last - first);
  if (shift > 0) for (let k = slots.length - 1; k >= last; k--) spliced[k + shift] = slots[k];
  else if (shift < 0) {
    for (let k = last; k < slots.length; k++) spliced[k + shift] = slots[k];
    spliced.length = slots.length + shift;
  }
  for (let k = 0; k < m; k++) spliced[first + k] = win.parts[k];
  // a kept trivia part with no object is made from its neighbours (SyntaxDocument.part): the ones next to
  // new parts are made now, from their old neighbours
  if (first > 0 && spliced[first - 1] === undefined) spliced[first - 1] = previous.part(first - 1);
  const after = first + m;
  if (after < spliced.length && spliced[after] === undefined) spliced[after] = previous.part(last);
  // the parts' widths and kinds: copied around the new parts (no offsets in the tree: nothing to shift);
  // their starts, which the document indexes by, are the previous ones before the window and shifted by
  // the edit's length change after it
  const n = spliced.length;
  const widths = new Uint32Array(n);
  const kinds = new Uint8Array(n);
  widths.set(previous.partWidths.subarray(0, first));
  kinds.set(previous.partKinds.subarray(0, first));
  widths.set(win.widths, first);
  kinds.set(win.kinds, first);
  widths.set(previous.partWidths.subarray(last), after);
  kinds.set(previous.partKinds.subarray(last), after);
  const oldStarts = previous.partStarts();
  const starts = new Float64Array(n + 1);
  starts.set(oldStarts.subarray(0, first + 1));
  for (let k = first; k < after; k++) starts[k + 1] = starts[k]! + widths[k]!;
  for (let k = last + 1, o = after + 1; o <= n; k++, o++) starts[o] = oldStarts[k]! + delta;
  return new SyntaxDocument(text, spliced, count, widths, kinds, starts);
}

/** Length of the common prefix of `a` and `b` (at most `min`): blocks of doubling size, then halving. */
function commonPrefix(a: string, b: string, min: number): number {
  let p = 0;
  let step = 64;
  while (p + step <= min && a.slice(p, p + step) === b.slice(p, p + step)) {
    p += step;
    step *= 2;
  }
  for (; step >= 1; step >>= 1) {
    while (p + step <= min && a.slice(p, p + step) === b.slice(p, p + step)) p += step;
  }
  return p;
}

/** Length of the common suffix of `a` and `b` (at most `max`). */
function commonSuffix(a: string, b: string, max: number): number {
  const al = a.length;
  const bl = b.length;
  let s = 0;
  let step = 64;
  while (s + step <= max && a.slice(al - s - step, al - s) === b.slice(bl - s - step, bl - s)) {
    s += step;
    step *= 2;
  }
  for (; step >= 1; step >>= 1) {
    while (s + step <= max && a.slice(al - s - step, al - s) === b.slice(bl - s - step, bl - s)) s += step;
  }
  return s;
}

const isLineBreak = (c: number): boolean => c === 10 || c === 13;

/** Whether a trivia part holds a `;` or a blank line (what ends a query). */
function endsQuery(p: GreenPart): boolean {
  for (let t = p.tokFrom; t < p.tokTo; t++) {
    const k = p.buf.kinds[t];
    if (k === SEMICOLON || k === BLANK) return true;
  }
  return false;
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
