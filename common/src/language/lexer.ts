/**
 * The `.tsq` lexer: one pass over the text, no backtracking, every token with its offsets (docs/service-interface.md §4.3 token
 * types; keywords of docs/service-notes.md section 2, multi-word ones as one token, case-insensitive, longest match).
 *
 * Pure: no `vscode`, no connection, no I/O. Never throws: any input (binary bytes, huge lines, unbalanced
 * brackets and quotes) gives tokens, and problems go to the optional diagnostics sink.
 */
import type { ParseDiagnostic } from './ast';
import * as codes from './diagnosticCodes';
import { WORD_KEYWORD_SPELLINGS, findKeyword } from './keywords';

/**
 * Kinds of token:
 * - `column`: `[name]` (`value` = the name as written, `closed` false when `]` is missing; `inner*` = the name's span)
 * - `value`: `'text'` (or `"text"`) (`value` = the content, `closed` false when unterminated; `inner*` = the content's span)
 * - `number`: `42`, `-5`, `3.14` (`value` = the raw text)
 * - `operator`: `=`, `!=`, `<`, `<=`, `>`, `>=` (`value` = the operator)
 * - `keyword`: a catalogue keyword, possibly several words (`value` = its canonical name, e.g. `sort by`, `day`)
 * - `word`: a bare word that is no keyword (`value` = the text)
 * - `constant`: `{null}` or `{empty}` (`value` = `null` or `empty`)
 * - `comma`, `dot`, `semicolon`, `lparen`, `rparen`: punctuation
 * - `comment`: `-- …` to the end of the line
 * - `directive`: `@datasource value` (`value` = the data source, '' when missing; `inner*` = its span)
 * - `blank`: a whitespace run holding a blank line (it ends a query)
 * - `stray`: a run of characters that start no token
 */
export const TOKEN_KINDS = [
  'column', 'value', 'number', 'operator', 'keyword', 'word', 'constant',
  'comma', 'dot', 'semicolon', 'lparen', 'rparen',
  'comment', 'directive', 'blank', 'stray',
] as const;
/** One of `TOKEN_KINDS` (the syntax tree stores a token's kind as its index there, tree.ts). */
export type TokenKind = typeof TOKEN_KINDS[number];

/** A token: `[start, end)` UTF-16 offsets into the text, end exclusive. */
export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** Meaning depends on `kind` (see `TokenKind`). */
  value: string;
  /** Columns: `]` present; values: closing quote present; true for other kinds. */
  closed: boolean;
  /** Span of the column name / value content / directive value; equal to start/end for other kinds. */
  innerStart: number;
  innerEnd: number;
}

/** Upper bound on diagnostics collected per text (a 10 MB file of binary bytes must not give millions). */
export const MAX_LEXER_DIAGNOSTICS = 1000;

/**
 * The directives of a `.tsq` file, without their `@`: `@datasource 'name or GUID'` (the data source of the
 * queries after it) and `@answer 'GUID'` (the saved Answer a query came from, common/src/tml/answerLink.ts).
 * The TextMate grammar (scripts/tmGrammar.ts) is generated from this list.
 */
export const DIRECTIVES = ['datasource', 'answer'] as const;

// Character classes, by char code.
const WS = 1, WORD_START = 2, WORD_PART = 4, DIGIT = 8;
const cls = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  let v = 0;
  if (c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 32) v |= WS;
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95) v |= WORD_START | WORD_PART;
  if (c >= 48 && c <= 57) v |= DIGIT | WORD_PART;
  if (c === 45) v |= WORD_PART; // '-' inside words (year-over-year)
  cls[c] = v;
}
const isWs = (c: number) => (c < 128 ? (cls[c]! & WS) !== 0 : c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a));
// Non-ASCII letters (column-like words in any language) count as word characters; control and
// replacement characters do not.
const isHighWord = (c: number) => c >= 0xc0 && !isWs(c) && c !== 0xfffd;
const isWordStart = (c: number) => (c < 128 ? (cls[c]! & WORD_START) !== 0 : isHighWord(c));
const isWordPart = (c: number) => (c < 128 ? (cls[c]! & WORD_PART) !== 0 : isHighWord(c));
const isDigit = (c: number) => c >= 48 && c <= 57;
/** An ASCII word character's lower-case code (the words' hash is of the lower-case word); 0 for other characters. */
const WORD_LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) if ((cls[c]! & WORD_PART) !== 0) WORD_LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

/**
 * What a lower-case word can start: `name` = the canonical keyword when the word alone is one;
 * `phrases` = the remaining words of multi-word spellings starting with it (longest first), each with its
 * canonical keyword name.
 */
interface WordInfo {
  name: string | undefined;
  phrases: { rest: string[]; name: string }[] | undefined;
}
const WORDS = new Map<string, WordInfo>();
for (const spelling of WORD_KEYWORD_SPELLINGS) {
  const words = spelling.split(' ');
  const name = findKeyword(spelling)!.name;
  let info = WORDS.get(words[0]!);
  if (!info) WORDS.set(words[0]!, (info = { name: undefined, phrases: undefined }));
  if (words.length === 1) info.name = name;
  else (info.phrases ??= []).push({ rest: words.slice(1), name });
}
for (const info of WORDS.values()) info.phrases?.sort((a, b) => b.rest.length - a.rest.length);

/** FNV-1a step over one UTF-16 code unit (32-bit). */
const fnv = (h: number, c: number) => Math.imul(h ^ c, 16777619);
const FNV_START = 0x811c9dc5 | 0;
/**
 * `WORDS` by the FNV-1a hash of the lower-case word, so that the lexer finds a keyword from the characters
 * it scanned without making a string per word (all spellings are ASCII).
 */
interface HashedWord {
  hash: number;
  word: string;
  info: WordInfo;
}
/** An open-addressed table (linear probing, a power of two at least 4 times the words): no `Map` hashing per word. */
const WORD_SLOTS = (() => {
  let size = 64;
  while (size < WORDS.size * 4) size *= 2;
  return size;
})();
const WORDS_BY_HASH: (HashedWord | undefined)[] = new Array<HashedWord | undefined>(WORD_SLOTS).fill(undefined);
for (const [word, info] of WORDS) {
  let h = FNV_START;
  for (let k = 0; k < word.length; k++) h = fnv(h, word.charCodeAt(k));
  let slot = h & (WORD_SLOTS - 1);
  while (WORDS_BY_HASH[slot] !== undefined) slot = (slot + 1) & (WORD_SLOTS - 1);
  WORDS_BY_HASH[slot] = { hash: h, word, info };
}

/** Printable ASCII characters other than `[` and `]` (inside a column name they need no other check). */
const NAME_PLAIN = new Uint8Array(128);
for (let c = 33; c < 128; c++) if (c !== 91 && c !== 93) NAME_PLAIN[c] = 1;

/** Characters that cut the name of an unclosed column short (so `[origin = 'SEA'` still sees the filter). */
const CUT = new Uint8Array(128);
for (const ch of `'"=<>!;,()`) CUT[ch.charCodeAt(0)] = 1;
const isColumnCut = (c: number) => c < 128 && CUT[c] === 1;

/**
 * Splits a text into tokens. Whitespace is skipped except for whitespace runs holding a blank line (a line
 * that is empty or whitespace-only), which become `blank` tokens.
 *
 * @param text any text (a whole `.tsq` document or one query string).
 * @param diagnostics optional sink for lexical problems (codes of diagnosticCodes.ts: unterminated value,
 *   unclosed bracket, empty column, bracket in column, quote in value, double-quoted value, stray character,
 *   unknown directive, directive without value); at most `MAX_LEXER_DIAGNOSTICS` are added.
 * @returns the tokens in order, comments included. Never throws.
 */
export function tokenize(text: string, diagnostics?: ParseDiagnostic[]): Token[] {
  const tokens: Token[] = [];
  new Lexer(text, diagnostics).scan(tokens, Infinity);
  return tokens;
}

/**
 * An incremental lexer over one text: `scan(out, count)` appends the next tokens, so a caller can parse
 * a large text without keeping every token alive at once (parser.ts `parseDocument`). The tokens and
 * diagnostics are exactly those of `tokenize`.
 */
export class Lexer {
  private readonly state: ScanState;

  /**
   * @param diagnostics optional sink for lexical problems (see `tokenize`).
   * @param from where to start scanning: 0, or the start of a token of a previous scan of a text equal up
   *   to and including that character (the tokens from there are then the same as a scan from 0 would give).
   */
  constructor(private readonly text: string, private readonly diagnostics?: ParseDiagnostic[], from = 0) {
    this.state = { pos: from, diagCount: 0, stopFrom: -1, stopAt: -1 };
  }

  /** True once the whole text was scanned. */
  get done(): boolean {
    return this.state.pos >= this.text.length;
  }

  /** Appends at least `count` tokens to `out` (a few more when one construct makes several), or all that are left. Never throws. */
  scan(out: Token[], count: number): void {
    scanTokens(this.text, this.diagnostics, this.state, out, count, false);
  }

  /**
   * Like `scan`, but overwrites the token objects already in `pool` (from index 0) instead of making new
   * ones, appending objects only when the pool is too short; returns how many tokens it wrote. The tokens
   * are valid until the next call: a caller that keeps one longer copies it. A large document then makes
   * a few hundred token objects instead of one per token, so parsing allocates mostly what it returns.
   */
  scanReusing(pool: Token[], count: number): number {
    return scanTokens(this.text, this.diagnostics, this.state, pool, count, true);
  }
}

/** Where a `Lexer` is between two `scan` calls. */
interface ScanState {
  pos: number;
  diagCount: number;
  /** The `[` scan cache (see the column case of `scanTokens`); -1 when empty. */
  stopFrom: number;
  stopAt: number;
}

/** The scanning loop of `Lexer.scan` (a plain function: V8 optimizes it better than a method). */
function scanTokens(text: string, diagnostics: ParseDiagnostic[] | undefined, state: ScanState, out: Token[], count: number, reuse: boolean): number {
  const n = text.length;
  const tokens = out;
  /** Tokens written so far: `out.length` when appending, the next pool slot when reusing. */
  let len = reuse ? 0 : out.length;
  const target = count === Infinity ? Number.MAX_SAFE_INTEGER : len + count;
  /** Cache of the `[` scan: the stop found from `stopFrom` is `stopAt` (see the column case). */
  let stopFrom = state.stopFrom;
  let stopAt = state.stopAt;
  let i = state.pos;
  while (i < n && len < target) {
    const c = text.charCodeAt(i);

    // Whitespace; a run with two line breaks holds a blank line. Most runs are one space before a token.
    if (c === 32) {
      const d = text.charCodeAt(i + 1);
      if (d > 32 && d < 128) {
        i++;
        continue;
      }
    }
    if (isWs(c)) {
      const s = i;
      let lines = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (!isWs(d)) break;
        if (d === 10) lines++;
        else if (d === 13 && text.charCodeAt(i + 1) !== 10) lines++;
        i++;
      }
      if (lines >= 2) len = put(tokens, len, reuse, 'blank', s, i, '');
      continue;
    }

    // Words and keywords (longest multi-word match).
    if (isWordStart(c)) {
      const s = i;
      // The hash of the lower-case word, computed while scanning; non-ASCII words (no keyword is) go the
      // slow way, through toLowerCase, so that case folding stays exactly JavaScript's.
      let nonAscii = c >= 128;
      let h = fnv(FNV_START, c >= 65 && c <= 90 ? c + 32 : c);
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 128) {
          const lower = WORD_LOWER[d]!;
          if (lower === 0 || (lower === 45 && text.charCodeAt(i + 1) === 45)) break;
          h = fnv(h, lower);
        } else {
          if (!isHighWord(d)) break;
          nonAscii = true;
          h = fnv(h, d);
        }
        i++;
      }
      let info: WordInfo | undefined;
      if (nonAscii) info = WORDS.get(text.slice(s, i).toLowerCase());
      else {
        let slot = h & (WORD_SLOTS - 1);
        for (let entry = WORDS_BY_HASH[slot]; entry !== undefined; entry = WORDS_BY_HASH[(slot = (slot + 1) & (WORD_SLOTS - 1))]) {
          if (entry.hash === h && entry.word.length === i - s && sameLower(text, s, entry.word)) {
            info = entry.info;
            break;
          }
        }
      }
      if (info) {
        if (info.phrases) {
          let matched: string | undefined;
          for (const phrase of info.phrases) {
            let p = i;
            let ok = true;
            for (const w of phrase.rest) {
              let q = p;
              while (q < n && (text.charCodeAt(q) === 32 || text.charCodeAt(q) === 9)) q++;
              if (q === p || !wordAt(text, q, w)) {
                ok = false;
                break;
              }
              p = q + w.length;
            }
            if (ok) {
              i = p;
              matched = phrase.name;
              break;
            }
          }
          if (matched !== undefined) {
            len = put(tokens, len, reuse, 'keyword', s, i, matched);
            continue;
          }
        }
        if (info.name !== undefined) {
          len = put(tokens, len, reuse, 'keyword', s, i, info.name);
          continue;
        }
      }
      len = put(tokens, len, reuse, 'word', s, i, text.slice(s, i));
      continue;
    }

    // Numbers (a leading '-' makes them negative); digits glued to letters, '/' or ':' make a word (10/31/2014).
    if (isDigit(c) || (c === 45 && isDigit(text.charCodeAt(i + 1)))) {
      const s = i;
      i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
        i += 2;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      const d = text.charCodeAt(i);
      if (i < n && (isWordPart(d) || d === 47 || d === 58) && !(d === 45 && text.charCodeAt(i + 1) === 45)) {
        while (i < n) {
          const e = text.charCodeAt(i);
          if (!(isWordPart(e) || e === 47 || e === 58 || e === 46) || (e === 45 && text.charCodeAt(i + 1) === 45)) break;
          i++;
        }
        len = put(tokens, len, reuse, 'word', s, i, text.slice(s, i));
      } else len = put(tokens, len, reuse, 'number', s, i, text.slice(s, i));
      continue;
    }

    switch (c) {
      case 91: { // [
        const s = i;
        // Where the name stops: the first `]`, line break or `[` after whitespace. The answer does not
        // depend on `s`, so it is kept for the next `[` before it: `['['['…` (an unclosed column cut
        // short at each quote) finds its stop once, not once per bracket (which was quadratic).
        let j: number;
        // While scanning for the stop: whether a `[` was passed (1) and a character other than
        // whitespace, printable ASCII, seen (2); unknown (-1) when the stop came from the cache.
        let seen = 0;
        if (stopFrom >= 0 && stopFrom <= s + 1 && s + 1 <= stopAt) {
          j = stopAt;
          seen = -1;
        } else {
          j = s + 1;
          while (j < n) {
            const d = text.charCodeAt(j);
            // Most characters of a name are printable ASCII other than brackets: one table look-up.
            if (d < 128 && NAME_PLAIN[d] === 1) {
              seen |= 2;
              j++;
              continue;
            }
            if (d === 93 || d === 10 || d === 13) break;
            if (d === 91) {
              if (isWs(text.charCodeAt(j - 1))) break;
              seen |= 1;
            }
            if (d > 32 && d < 128) seen |= 2; // surely not trimmed (others: ask trim below)
            j++;
          }
          stopFrom = s + 1;
          stopAt = j;
        }
        const closed = j < n && text.charCodeAt(j) === 93;
        if (closed) {
          let inner = (seen & 1) !== 0;
          if (seen < 0) {
            for (let k = s + 1; k < j; k++) {
              if (text.charCodeAt(k) === 91) {
                inner = true;
                break;
              }
            }
          }
          // `[a]b]` or `[[a]]`: a ']' inside the name.
          let p = j + 1;
          while (p < n && (isWordPart(text.charCodeAt(p)) && text.charCodeAt(p) !== 45)) p++;
          if (p < n && text.charCodeAt(p) === 93) {
            inner = true;
            j = p;
          }
          const name = text.slice(s + 1, j);
          len = put(tokens, len, reuse, 'column', s, j + 1, name, true, s + 1, j);
          if (inner) report(state, diagnostics, n, s, j + 1, codes.BRACKET_IN_COLUMN, `Column names cannot contain [ or ] (docs/service-interface.md §8.4): [${name}].`);
          else if ((seen < 0 || (seen & 2) === 0) && name.trim() === '') report(state, diagnostics, n, s, j + 1, codes.EMPTY_COLUMN, 'Empty column name: write the column between the brackets, e.g. [origin].');
          i = j + 1;
        } else {
          // A quote, operator or separator cuts an unclosed name short (the scan stops there, so it is
          // linear in what the token consumes).
          let e = s + 1;
          while (e < j && !isColumnCut(text.charCodeAt(e))) e++;
          while (e > s + 1 && isWs(text.charCodeAt(e - 1))) e--;
          len = put(tokens, len, reuse, 'column', s, e, text.slice(s + 1, e), false, s + 1, e);
          report(state, diagnostics, n, s, e, codes.UNCLOSED_BRACKET, 'Unclosed [: the column name needs a closing ].');
          i = e;
        }
        continue;
      }
      case 39: // '
      case 34: { // "
        const s = i;
        let j = i + 1;
        for (; j < n; j++) {
          const d = text.charCodeAt(j);
          if (d === c || d === 10 || d === 13) break;
        }
        if (j >= n || text.charCodeAt(j) !== c) {
          const le = j;
          len = put(tokens, len, reuse, 'value', s, le, text.slice(s + 1, le), false, s + 1, le);
          report(state, diagnostics, n, s, le, codes.UNTERMINATED_VALUE, `Unterminated value: add the closing ${c === 39 ? "'" : '"'}.`);
          i = le;
          continue;
        }
        // A quote inside the value: 'tom's' or 'it''s'.
        let quoteInside = false;
        const after = text.charCodeAt(j + 1);
        if (j + 1 < n && (after === c || isWordStart(after) || isDigit(after))) {
          // Word characters are never line breaks, so the scan stays on the line without looking for its
          // end (which made `''''…` quadratic).
          let p = j + 1;
          if (after === c) p++;
          while (p < n && (isWordStart(text.charCodeAt(p)) || isDigit(text.charCodeAt(p)))) p++;
          if (p < n && text.charCodeAt(p) === c) j = p;
          else j = p - 1;
          quoteInside = true;
          // `j` is now the last character of the value; normalise to the closing-quote index below.
          if (text.charCodeAt(j) !== c) {
            len = put(tokens, len, reuse, 'value', s, j + 1, text.slice(s + 1, j + 1), false, s + 1, j + 1);
            report(state, diagnostics, n, s, j + 1, codes.QUOTE_IN_VALUE, 'A value cannot contain quotes (docs/service-interface.md §8.5).');
            i = j + 1;
            continue;
          }
        }
        len = put(tokens, len, reuse, 'value', s, j + 1, text.slice(s + 1, j), true, s + 1, j);
        if (quoteInside) report(state, diagnostics, n, s, j + 1, codes.QUOTE_IN_VALUE, 'A value cannot contain quotes (docs/service-interface.md §8.5).');
        else if (c === 34) report(state, diagnostics, n, s, j + 1, codes.DOUBLE_QUOTED_VALUE, "Values are written in single quotes in the API syntax (docs/service-interface.md §4.3): '…'.", 'warning');
        i = j + 1;
        continue;
      }
      case 45: // - (not followed by a digit: that was a number)
        if (text.charCodeAt(i + 1) === 45) {
          const e = lineEnd(text, i);
          len = put(tokens, len, reuse, 'comment', i, e, '');
          i = e;
          continue;
        }
        break;
      case 61: len = put(tokens, len, reuse, 'operator', i, i + 1, '='); i++; continue;
      case 33:
        if (text.charCodeAt(i + 1) === 61) {
          len = put(tokens, len, reuse, 'operator', i, i + 2, '!=');
          i += 2;
          continue;
        }
        break;
      case 60:
      case 62: {
        const eq = text.charCodeAt(i + 1) === 61;
        const op = (c === 60 ? '<' : '>') + (eq ? '=' : '');
        len = put(tokens, len, reuse, 'operator', i, i + op.length, op);
        i += op.length;
        continue;
      }
      case 44: len = put(tokens, len, reuse, 'comma', i, i + 1, ','); i++; continue;
      case 46: len = put(tokens, len, reuse, 'dot', i, i + 1, '.'); i++; continue;
      case 59: len = put(tokens, len, reuse, 'semicolon', i, i + 1, ';'); i++; continue;
      case 40: len = put(tokens, len, reuse, 'lparen', i, i + 1, '('); i++; continue;
      case 41: len = put(tokens, len, reuse, 'rparen', i, i + 1, ')'); i++; continue;
      case 123: { // {null} {empty}
        if (wordAtBrace(text, i, 'null}')) {
          len = put(tokens, len, reuse, 'constant', i, i + 6, 'null');
          i += 6;
          continue;
        }
        if (wordAtBrace(text, i, 'empty}')) {
          len = put(tokens, len, reuse, 'constant', i, i + 7, 'empty');
          i += 7;
          continue;
        }
        break;
      }
      case 64: { // @datasource
        const s = i;
        let j = i + 1;
        while (j < n && isWordPart(text.charCodeAt(j))) j++;
        const word = text.slice(i + 1, j).toLowerCase();
        if (word === 'answer') {
          // `@answer 'GUID'`: the saved Answer the file's query came from (common/src/tml/answerLink.ts); trivia here
          const e = lineEnd(text, i);
          len = put(tokens, len, reuse, 'comment', s, e, '');
          i = e;
          continue;
        }
        if (word !== 'datasource') {
          len = put(tokens, len, reuse, 'stray', s, j, text.slice(s, j));
          report(state, diagnostics, n, s, j, codes.UNKNOWN_DIRECTIVE, `Unknown directive ${text.slice(s, j) || '@'}: the directives are ${DIRECTIVES.map((d) => `@${d}`).join(' and ')}, as in @datasource 'name or GUID'.`);
          i = j;
          continue;
        }
        const le = lineEnd(text, j);
        let p = j;
        while (p < le && isWs(text.charCodeAt(p))) p++;
        let vs = p, ve = p, end = j;
        let closedQuote = true;
        if (p < le && text.charCodeAt(p) === 39) {
          const q = text.indexOf("'", p + 1);
          vs = p + 1;
          if (q < 0 || q > le) {
            ve = le;
            end = le;
            closedQuote = false;
            report(state, diagnostics, n, p, le, codes.UNTERMINATED_VALUE, "Unterminated data source name: add the closing '.");
          } else {
            ve = q;
            end = q + 1;
          }
        } else if (p < le && !(text.charCodeAt(p) === 45 && text.charCodeAt(p + 1) === 45)) {
          let q = p;
          while (q < le && !(text.charCodeAt(q) === 45 && text.charCodeAt(q + 1) === 45)) q++;
          while (q > p && isWs(text.charCodeAt(q - 1))) q--;
          ve = q;
          end = q;
        }
        const value = text.slice(vs, ve).trim();
        len = put(tokens, len, reuse, 'directive', s, end, value, closedQuote, vs, ve);
        if (value === '') report(state, diagnostics, n, s, end, codes.DIRECTIVE_WITHOUT_VALUE, "@datasource needs a data source name or GUID: @datasource 'Flights'.");
        // Anything else on the line (except a comment) is stray.
        let r = end;
        while (r < le && isWs(text.charCodeAt(r))) r++;
        if (r < le && !(text.charCodeAt(r) === 45 && text.charCodeAt(r + 1) === 45)) {
          let t = r;
          while (t < le && !(text.charCodeAt(t) === 45 && text.charCodeAt(t + 1) === 45)) t++;
          while (t > r && isWs(text.charCodeAt(t - 1))) t--;
          len = put(tokens, len, reuse, 'stray', r, t, text.slice(r, t));
          report(state, diagnostics, n, r, t, codes.STRAY_CHARACTER, 'Unexpected text after the @datasource value: a directive is alone on its line.');
          i = t;
        } else i = r;
        continue;
      }
      default:
        break;
    }

    // Stray characters: group the run so that binary input gives one token per run.
    const s = i;
    i++;
    while (i < n && i - s < 4096) {
      const d = text.charCodeAt(i);
      if (isWs(d) || isWordStart(d) || isDigit(d) || startsToken(d, text.charCodeAt(i + 1))) break;
      i++;
    }
    // Never split a surrogate pair.
    if (i < n && i > s && (text.charCodeAt(i) & 0xfc00) === 0xdc00) i++;
    len = put(tokens, len, reuse, 'stray', s, i, text.slice(s, i));
    // Arithmetic (`[a] + [b]`) is a formula, which the parser reports as such (docs/service-interface.md §8.6).
    if (/^[-+*/%^]+$/.test(text.slice(s, i))) continue;
    const shown = text.slice(s, Math.min(i, s + 20)).replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    report(state, diagnostics, n, s, i, codes.STRAY_CHARACTER, `Unexpected character${i - s > 1 ? 's' : ''} ${JSON.stringify(shown)}: columns go in [brackets], values in 'quotes'.`);
  }
  state.pos = i;
  state.stopFrom = stopFrom;
  state.stopAt = stopAt;
  return len;
}

/**
 * A token as a plain object made by a constructor rather than a literal: V8 never moves a constructor's
 * objects to the old generation ahead of time, which for the literal made `tokenize` of a large text
 * slow on every other call (see nodes.ts for the same choice for the AST).
 */
const TokenNode = function (this: Token, kind: TokenKind, start: number, end: number, value: string, closed: boolean, innerStart: number, innerEnd: number) {
  this.kind = kind;
  this.start = start;
  this.end = end;
  this.value = value;
  this.closed = closed;
  this.innerStart = innerStart;
  this.innerEnd = innerEnd;
} as unknown as new (kind: TokenKind, start: number, end: number, value: string, closed: boolean, innerStart: number, innerEnd: number) => Token;
(TokenNode as unknown as { prototype: object }).prototype = Object.prototype;

/** Appends a diagnostic for `scanTokens` unless there is no sink or its cap is reached. */
function report(state: ScanState, diagnostics: ParseDiagnostic[] | undefined, n: number, start: number, end: number, code: string, message: string, severity: 'error' | 'warning' = 'error'): void {
  if (!diagnostics || state.diagCount >= MAX_LEXER_DIAGNOSTICS) return;
  state.diagCount++;
  diagnostics.push({ start, end: Math.max(end, Math.min(start + 1, n)), code, message, severity });
}

/**
 * Writes token number `len` of `tokens` (overwriting the object there when `reuse`, else appending a
 * new one); returns `len + 1`. A plain function, not a closure over the scan's locals: V8 then keeps
 * the scan's text and offsets in registers.
 */
function put(tokens: Token[], len: number, reuse: boolean, kind: TokenKind, start: number, end: number, value: string, closed = true, innerStart = start, innerEnd = end): number {
  if (reuse && len < tokens.length) {
    const t = tokens[len]!;
    t.kind = kind;
    t.start = start;
    t.end = end;
    t.value = value;
    t.closed = closed;
    t.innerStart = innerStart;
    t.innerEnd = innerEnd;
  } else tokens.push(new TokenNode(kind, start, end, value, closed, innerStart, innerEnd));
  return len + 1;
}

/** End of the line at `from` (offset of its `\r` or `\n`, or the text's length). */
function lineEnd(text: string, from: number): number {
  const n = text.length;
  let j = from;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 10 || c === 13) break;
    j++;
  }
  return j;
}

/** Case-insensitive (ASCII) match of a lower-case word at `pos`, nothing said about what follows. */
function sameLower(text: string, pos: number, word: string): boolean {
  for (let j = 0; j < word.length; j++) {
    let c = text.charCodeAt(pos + j);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(j)) return false;
  }
  return true;
}

/** Case-insensitive match of a lower-case word at `pos` followed by a word boundary. */
function wordAt(text: string, pos: number, word: string): boolean {
  const n = text.length;
  const len = word.length;
  if (pos + len > n) return false;
  if (!sameLower(text, pos, word)) return false;
  return pos + len === n || !isWordPart(text.charCodeAt(pos + len));
}

/** `{` followed case-insensitively by `rest` (e.g. `null}`). */
function wordAtBrace(text: string, i: number, rest: string): boolean {
  return text.substr(i + 1, rest.length).toLowerCase() === rest;
}

/** Whether a character (with the next one) starts a non-stray token. */
function startsToken(c: number, next: number): boolean {
  switch (c) {
    case 91: case 39: case 34: case 61: case 60: case 62: case 44: case 46: case 59: case 40: case 41: case 64: case 123:
      return true;
    case 45: return next === 45 || isDigit(next);
    case 33: return next === 61;
    default: return false;
  }
}
