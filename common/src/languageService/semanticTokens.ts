/**
 * Semantic tokens of a `.tsq` document (LSP `textDocument/semanticTokens/full`), from the lexer's tokens.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceContext } from './types';
import type { SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver-types';
import { findDateBucket, findKeyword } from '../language/keywords';
import type { Token } from '../language/lexer';

/**
 * The legend the server announces. Token types (LSP standard names):
 * - `keyword`: keywords (`sort by`, `top`, `last`, `contains`, …)
 * - `operator`: `=`, `!=`, `<`, `<=`, `>`, `>=`
 * - `string`: quoted values, and the token form's values after a column's dot (`[origin].SEA`, `[destination].'los angeles'`)
 * - `number`: numbers
 * - `comment`: `--` comments
 * - `variable`: columns (`[origin]`, brackets included)
 * - `function`: aggregations (`sum`, `unique count`, …)
 * - `enumMember`: date buckets (`monthly`, `.'day of week'`) and `{null}` / `{empty}`
 * - `macro`: the `@datasource` directive
 * Modifiers: `readonly` marks the data source value of a directive (its `string` token).
 */
export const SEMANTIC_TOKEN_LEGEND: SemanticTokensLegend = {
  tokenTypes: ['keyword', 'operator', 'string', 'number', 'comment', 'variable', 'function', 'enumMember', 'macro'],
  tokenModifiers: ['readonly'],
};

const T = { keyword: 0, operator: 1, string: 2, number: 3, comment: 4, variable: 5, function: 6, enumMember: 7, macro: 8 } as const;

/** Semantic token type index of a token, or -1 when it gets none (words, punctuation, stray characters). */
function typeOf(t: Token, prev: Token | undefined): number {
  switch (t.kind) {
    case 'column': return T.variable;
    case 'value': return prev && prev.kind === 'dot' && prev.end === t.start && findDateBucket(t.value) ? T.enumMember : T.string;
    case 'number': return T.number;
    case 'operator': return T.operator;
    case 'comment': return T.comment;
    case 'constant': return T.enumMember;
    case 'keyword': {
      const cat = findKeyword(t.value)?.category;
      if (cat === 'aggregation') return T.function;
      if (cat === 'bucket') return T.enumMember;
      return T.keyword;
    }
    // after the dot a bucket word, else the token form's value (docs/service-notes.md §2.11)
    case 'word': return prev && prev.kind === 'dot' && prev.end === t.start ? (findDateBucket(t.value) ? T.enumMember : T.string) : -1;
    default: return -1;
  }
}

/**
 * Encodes the tokens of a document as LSP relative semantic tokens (5 integers per token: delta line,
 * delta start character, length, type index, modifier bits), in the legend of `SEMANTIC_TOKEN_LEGEND`.
 * Every token lies on one line (the lexer never lets a token cross a line break). Never throws.
 */
export function getSemanticTokens(ctx: ServiceContext, document: TextDocument): SemanticTokens {
  const text = document.getText();
  const tokens = ctx.tokens(document);
  const data: number[] = [];
  let line = 0;
  let lineStart = 0;
  let scan = 0; // offset up to which line breaks were counted
  let prevLine = 0;
  let prevChar = 0;
  const advance = (offset: number) => {
    for (; scan < offset; scan++) {
      const c = text.charCodeAt(scan);
      if (c === 10 || (c === 13 && text.charCodeAt(scan + 1) !== 10)) {
        line++;
        lineStart = scan + 1;
      }
    }
  };
  const emit = (start: number, end: number, type: number, mods = 0) => {
    if (end <= start) return;
    advance(start);
    const ch = start - lineStart;
    data.push(line - prevLine, line === prevLine ? ch - prevChar : ch, end - start, type, mods);
    prevLine = line;
    prevChar = ch;
  };
  let prev: Token | undefined;
  for (const t of tokens) {
    if (t.kind === 'directive') {
      const wordEnd = t.start + '@datasource'.length;
      emit(t.start, Math.min(wordEnd, t.end), T.macro);
      if (t.value !== '') {
        const s = t.innerStart > 0 && text.charCodeAt(t.innerStart - 1) === 39 ? t.innerStart - 1 : t.innerStart;
        emit(Math.max(s, wordEnd), t.end, T.string, 1);
      }
    } else {
      const type = typeOf(t, prev);
      if (type >= 0) emit(t.start, t.end, type);
    }
    if (t.kind !== 'comment' && t.kind !== 'blank') prev = t;
  }
  return { data };
}
