/**
 * Formatting of `.tsq` documents: canonical spacing, keywords lower-case; column names and values are
 * never touched (docs/service-interface.md §4.3: they are case-sensitive data).
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceContext } from './types';
import type { FormattingOptions, Range, TextEdit } from 'vscode-languageserver-types';
import type { Token } from '../language/lexer';

/**
 * Formatting edits, as small as possible (one per changed gap or token):
 * - one space between tokens on a line; none before `,` `;` `)` nor after `(`; a `.` keeps its spacing
 *   (gluing it would change the meaning);
 * - keywords and `{null}`/`{empty}` lower-case, multi-word keywords with single spaces; `@datasource`
 *   lower-case followed by one space;
 * - no whitespace at the start of the document or at the end of lines; at most one blank line in a row;
 *   a query's continuation lines indented by one unit (`options.tabSize` spaces, or a tab when
 *   `insertSpaces` is false), other lines not indented; the document ends with the line break it had;
 * - comments keep their text (trailing whitespace removed).
 * With `range`, only edits inside it (offsets of the range's start and end) are returned. Never throws.
 */
export function format(ctx: ServiceContext, document: TextDocument, range: Range | undefined, options: FormattingOptions): TextEdit[] {
  const text = document.getText();
  const tokens = ctx.tokens(document).filter((t) => t.kind !== 'blank');
  const doc = ctx.parse(document);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const unit = options && options.insertSpaces === false ? '\t' : ' '.repeat(Math.max(0, Math.min(16, Number(options?.tabSize) || 2)));
  const from = range ? document.offsetAt(range.start) : 0;
  const to = range ? document.offsetAt(range.end) : text.length;
  const edits: TextEdit[] = [];
  const edit = (start: number, end: number, newText: string) => {
    if (start < from || end > to) return;
    if (text.slice(start, end) === newText) return;
    edits.push({ range: { start: document.positionAt(start), end: document.positionAt(end) }, newText });
  };

  let qi = 0;
  const count = doc.queryCount;
  // a query's span, from the tree: its part's start and width
  const startOf = (i: number) => doc.partStart(doc.queryPartIndex(i));
  const endOf = (i: number) => startOf(i) + doc.queryPart(i).width;
  /** True when `offset` is inside a query, after its start (a continuation). */
  const continuation = (offset: number) => {
    while (qi < count && endOf(qi) < offset) qi++;
    return qi < count && startOf(qi) < offset && offset <= endOf(qi);
  };

  let prev: Token | undefined;
  for (const t of tokens) {
    // The gap before the token.
    const gapStart = prev ? prev.end : 0;
    const gap = text.slice(gapStart, t.start);
    let lines = 0;
    for (let k = 0; k < gap.length; k++) {
      const c = gap.charCodeAt(k);
      if (c === 10 || (c === 13 && gap.charCodeAt(k + 1) !== 10)) lines++;
    }
    if (!prev) edit(0, t.start, '');
    else if (lines > 0) edit(gapStart, t.start, eol.repeat(Math.min(lines, 2)) + (continuation(t.start) ? unit : ''));
    else if (t.kind === 'dot' || prev.kind === 'dot') {
      // keep: spacing around a dot is meaningful
    } else if (t.kind === 'comma' || t.kind === 'semicolon' || t.kind === 'rparen' || prev.kind === 'lparen') edit(gapStart, t.start, '');
    else edit(gapStart, t.start, ' ');

    // The token itself.
    const raw = text.slice(t.start, t.end);
    if (t.kind === 'keyword' || t.kind === 'constant') edit(t.start, t.end, raw.toLowerCase().replace(/[ \t]+/g, ' '));
    else if (t.kind === 'comment') edit(t.start, t.end, raw.replace(/\s+$/, ''));
    else if (t.kind === 'directive') {
      const word = '@datasource';
      const rest = text.slice(t.start + word.length, t.end).replace(/^\s+/, '');
      edit(t.start, t.end, rest ? `${word} ${rest}` : word);
    }
    prev = t;
  }
  // Trailing whitespace of the document: keep one line break if there was one.
  const tailStart = prev ? prev.end : 0;
  const tail = text.slice(tailStart);
  if (prev) edit(tailStart, text.length, /[\r\n]/.test(tail) ? eol : '');
  return edits;
}
