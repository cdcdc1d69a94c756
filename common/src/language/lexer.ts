/**
 * The `.tsq` lexer: one pass over the text, no backtracking, every token with its offsets (docs/service-interface.md §4.3 token
 * types; keywords of docs/service-notes.md section 2, multi-word ones as one token, case-insensitive, longest match).
 * It writes tokens into typed arrays (`TokenStore`: kind codes, widths, keyword ids), which the syntax tree
 * keeps (tree.ts); `Token` objects are made from them for the readers that want objects (`tokenize`).
 *
 * Pure: no `vscode`, no connection, no I/O. Never throws: any input (binary bytes, huge lines, unbalanced
 * brackets and quotes) gives tokens, and problems go to the optional diagnostics sink.
 */
import type { ParseDiagnostic } from './ast';
import * as codes from './diagnosticCodes';
import { KEYWORDS, WORD_KEYWORD_SPELLINGS, findKeyword } from './keywords';

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
 * A keyword's id: its index in the catalogue (`KEYWORDS`) + 1, so that 0 means "no keyword". A keyword
 * token's `details` entry (see `TokenStore`) is its id; `keywordName(id)` is its canonical name.
 */
export type KeywordId = number;
/** `KeywordId` by canonical name (the catalogue's names are unique). */
const KEYWORD_IDS = new Map<string, KeywordId>(KEYWORDS.map((k, i) => [k.name, i + 1]));
// a token's `details` byte holds a keyword's id (see `TokenStore`)
if (KEYWORDS.length > 254) throw new Error('lexer.ts: the keyword catalogue outgrew the one-byte keyword id: make TokenStore.details a Uint16Array.');

/**
 * The id of a keyword by its canonical name (keywords.ts `KEYWORDS`); throws when `name` is none, so that a
 * module deriving its tables at load time fails at once on a name the catalogue dropped.
 */
export function keywordId(name: string): KeywordId {
  const id = KEYWORD_IDS.get(name);
  if (id === undefined) throw new Error(`lexer.ts: "${name}" is no keyword of the catalogue (keywords.ts).`);
  return id;
}

/** The id of a keyword by its canonical name, 0 when `name` is none. */
export function keywordIdOf(name: string): KeywordId {
  return KEYWORD_IDS.get(name) ?? 0;
}

/** The canonical name of keyword `id` (`KeywordId`). */
export function keywordName(id: KeywordId): string {
  return KEYWORD_NAMES[id - 1]!;
}
/**
 * The catalogue's canonical names in `KEYWORDS` order, a list of this module's own: where modules load as
 * CommonJS (tsx, the tests and benchmarks), every use of an imported name calls an export getter, which
 * the parser's `keywordName` calls made a few per cent of a parse.
 */
const KEYWORD_NAMES: readonly string[] = KEYWORDS.map((k) => k.name);

/** The number of keyword ids (the catalogue's size + 1): a table indexed by `KeywordId` has this length. */
export const KEYWORD_ID_COUNT = KEYWORDS.length + 1;

/**
 * What a lower-case word can start: `id` = the keyword when the word alone is one (0 when not);
 * `phrases` = the remaining words of multi-word spellings starting with it (longest first), each with its
 * keyword's id.
 */
interface WordInfo {
  id: KeywordId;
  phrases: { rest: string[]; id: KeywordId }[] | undefined;
}
const WORDS = new Map<string, WordInfo>();
for (const spelling of WORD_KEYWORD_SPELLINGS) {
  const words = spelling.split(' ');
  const id = KEYWORD_IDS.get(findKeyword(spelling)!.name)!;
  let info = WORDS.get(words[0]!);
  if (!info) WORDS.set(words[0]!, (info = { id: 0, phrases: undefined }));
  if (words.length === 1) info.id = id;
  else (info.phrases ??= []).push({ rest: words.slice(1), id });
}
for (const info of WORDS.values()) info.phrases?.sort((a, b) => b.rest.length - a.rest.length);

/** FNV-1a step over one UTF-16 code unit (32-bit). */
const fnv = (h: number, c: number) => Math.imul(h ^ c, 16777619);
const FNV_START = 0x811c9dc5 | 0;
/** Words of up to this many ASCII characters are compared as one number: 7 bits a character, exact in a double. */
const PACKED_MAX = 7;
/** `p` with one more 7-bit character `c`. */
const pack = (p: number, c: number) => p * 128 + c;
/**
 * `WORDS` by the FNV-1a hash of the lower-case word, so that the lexer finds a keyword from the characters
 * it scanned without making a string per word (all spellings are ASCII): an open-addressed table (linear
 * probing, a power of two at least 4 times the words) in parallel typed arrays, so that a probe reads
 * numbers rather than an object per slot. By slot: `SLOT_LENGTH` the word's length (0: empty slot),
 * `SLOT_HASH` its hash, `SLOT_PACKED` its characters as one number (`pack`) when it has at most
 * `PACKED_MAX` of them (else -1), `SLOT_WORD` and `SLOT_INFO`.
 */
const WORD_SLOTS = (() => {
  let size = 64;
  while (size < WORDS.size * 4) size *= 2;
  return size;
})();
const SLOT_MASK = WORD_SLOTS - 1;
const SLOT_LENGTH = new Uint8Array(WORD_SLOTS);
const SLOT_HASH = new Int32Array(WORD_SLOTS);
const SLOT_PACKED = new Float64Array(WORD_SLOTS);
const SLOT_WORD: string[] = new Array<string>(WORD_SLOTS).fill('');
const SLOT_INFO: (WordInfo | undefined)[] = new Array<WordInfo | undefined>(WORD_SLOTS).fill(undefined);
for (const [word, info] of WORDS) {
  if (word.length === 0 || word.length > 255) throw new Error(`lexer.ts: keyword word "${word}" does not fit the word table.`);
  let h = FNV_START;
  for (let k = 0; k < word.length; k++) h = fnv(h, word.charCodeAt(k));
  let slot = h & SLOT_MASK;
  while (SLOT_LENGTH[slot] !== 0) slot = (slot + 1) & SLOT_MASK;
  let packed = 0;
  for (let k = 0; k < word.length; k++) packed = pack(packed, word.charCodeAt(k));
  SLOT_LENGTH[slot] = word.length;
  SLOT_HASH[slot] = h;
  SLOT_PACKED[slot] = word.length <= PACKED_MAX ? packed : -1;
  SLOT_WORD[slot] = word;
  SLOT_INFO[slot] = info;
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

/** A token kind's code: its index in `TOKEN_KINDS`. */
const K_COLUMN = 0, K_VALUE = 1, K_NUMBER = 2, K_OPERATOR = 3, K_KEYWORD = 4, K_WORD = 5, K_CONSTANT = 6,
  K_COMMA = 7, K_DOT = 8, K_SEMICOLON = 9, K_LPAREN = 10, K_RPAREN = 11, K_COMMENT = 12, K_DIRECTIVE = 13, K_BLANK = 14, K_STRAY = 15;
/** The code of the whitespace runs between tokens that a `TokenStore` holds as tokens of their own (after `TOKEN_KINDS`; tree.ts `whitespace`). */
export const WHITESPACE_CODE = TOKEN_KINDS.length;
// the codes above are the kinds' indices (checked once at load: a reordered TOKEN_KINDS fails here)
if (TOKEN_KINDS.indexOf('column') !== K_COLUMN || TOKEN_KINDS.indexOf('keyword') !== K_KEYWORD || TOKEN_KINDS.indexOf('directive') !== K_DIRECTIVE || TOKEN_KINDS.indexOf('stray') !== K_STRAY || TOKEN_KINDS.length !== 16) {
  throw new Error('lexer.ts: the token kind codes do not match TOKEN_KINDS.');
}

/** A number token's `details` bits (see `TokenStore`): digits only (no sign, no fraction: `isDigits` of parser.ts). */
export const NUMBER_DIGITS = 1;
/** … and a year: four digits, 1000–2999 (`isYear` of parser.ts). */
export const NUMBER_YEAR = 2;

/** The `details` of the number token `text[start, end)`: `NUMBER_DIGITS`, with `NUMBER_YEAR`, or 0. */
export function numberDetail(text: string, start: number, end: number): number {
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return 0;
  }
  if (end === start) return 0;
  const first = text.charCodeAt(start);
  return end - start === 4 && (first === 49 || first === 50) ? NUMBER_DIGITS | NUMBER_YEAR : NUMBER_DIGITS;
}

/** The largest token width a 16-bit entry holds; larger ones are escaped (see `TokenStore`). */
export const WIDTH_ESCAPE = 0xffff;

/**
 * Tokens as typed arrays, what the lexer writes (`Lexer.scanInto`) and the syntax tree keeps (tree.ts
 * `GreenBuffer` extends it): `kinds` (a `TOKEN_KINDS` index, or `WHITESPACE_CODE` for the whitespace
 * between two tokens), `widths` (UTF-16 code units; a width of 65,535 or more is stored as 65,535 and kept
 * in a map by index: read widths with `width`) and `details` (a keyword's `KeywordId`; 1 for a closed
 * column, value or quoted directive, 0 when unclosed; `{null}` 0, `{empty}` 1; a number's `NUMBER_DIGITS`
 * and `NUMBER_YEAR` bits; 0 otherwise). No offsets:
 * a token's start is the sum of the widths before it from where the scan began. Arrays grow by doubling.
 */
export class TokenStore {
  kinds: Uint8Array;
  widths: Uint16Array;
  details: Uint8Array;
  tokenCount = 0;
  /** The absolute end of the last token the lexer appended (where the next whitespace run starts). */
  end = 0;
  /** The escaped widths by index (see the class comment); undefined while there is none. */
  protected longWidths?: Map<number, number>;

  /** @param tokens expected tokens (room grows as needed); @param from the offset the scan starts at. */
  constructor(tokens = 64, from = 0) {
    const t = Math.max(16, tokens);
    this.kinds = new Uint8Array(t);
    this.widths = new Uint16Array(t);
    this.details = new Uint8Array(t);
    this.end = from;
  }

  /** Appends a token of `width` UTF-16 code units; returns its index. */
  addToken(kind: number, width: number, detail: number): number {
    const i = this.tokenCount;
    if (i === this.kinds.length) this.growTokens();
    this.kinds[i] = kind;
    if (width < WIDTH_ESCAPE) this.widths[i] = width;
    else {
      this.widths[i] = WIDTH_ESCAPE;
      (this.longWidths ??= new Map()).set(i, width);
    }
    this.details[i] = detail;
    this.tokenCount = i + 1;
    return i;
  }

  /** Makes room for `more` tokens after `tokenCount`: when short, the arrays grow once, to double or to what is needed if more. */
  reserve(more: number): void {
    const need = this.tokenCount + more;
    if (need > this.kinds.length) this.growTokens(need);
  }

  /** Stores width `w` of token `i` (escaped when 65,535 or more). */
  setWidth(i: number, w: number): void {
    if (w < WIDTH_ESCAPE) this.widths[i] = w;
    else {
      this.widths[i] = WIDTH_ESCAPE;
      (this.longWidths ??= new Map()).set(i, w);
    }
  }

  private growTokens(need = 0): void {
    const n = Math.max(this.kinds.length * 2, need);
    const kinds = new Uint8Array(n);
    kinds.set(this.kinds);
    const widths = new Uint16Array(n);
    widths.set(this.widths);
    const details = new Uint8Array(n);
    details.set(this.details);
    this.kinds = kinds;
    this.widths = widths;
    this.details = details;
  }

  /** The width of token `i` in UTF-16 code units. */
  width(i: number): number {
    const w = this.widths[i]!;
    return w === WIDTH_ESCAPE ? this.longWidths!.get(i)! : w;
  }
}

/**
 * The tokens that end a query (`;`, blank lines, directives) as the lexer appends them (`Lexer.scanInto`):
 * `[token index, start, end]` triples (UTF-16 offsets) in `data`, `length` numbers in use; a typed array
 * grown by doubling and emptied by setting `length` to 0, so that a whole-document parse, which empties it
 * after every chunk of tokens, keeps one array instead of growing a list again each time.
 */
export class QueryEnds {
  data = new Int32Array(96);
  length = 0;

  /** Appends the triple of token `t` over `[start, end)`. */
  add(t: number, start: number, end: number): void {
    let n = this.length;
    if (n + 3 > this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    const d = this.data;
    d[n++] = t;
    d[n++] = start;
    d[n++] = end;
    this.length = n;
  }
}

/**
 * The lexer's token (`Token`) of kind code `kind` (a `TOKEN_KINDS` index; not `directive`, whose value
 * needs its line scanned again) and `detail` (see `TokenStore`) at `[start, end)` of `text`: its value
 * read from the text (the name of a column, the content of a value, the canonical name of a keyword).
 */
export function makeToken(kind: number, detail: number, start: number, end: number, text: string): Token {
  switch (kind) {
    case K_KEYWORD:
      return new TokenNode('keyword', start, end, KEYWORD_NAMES[detail - 1]!, true, start, end);
    case K_COLUMN:
    case K_VALUE: {
      const innerEnd = detail === 1 ? end - 1 : end;
      return new TokenNode(TOKEN_KINDS[kind]!, start, end, text.slice(start + 1, innerEnd), detail === 1, start + 1, innerEnd);
    }
    case K_CONSTANT:
      return new TokenNode('constant', start, end, detail === 1 ? 'empty' : 'null', true, start, end);
    case K_COMMENT:
    case K_BLANK:
      return new TokenNode(TOKEN_KINDS[kind]!, start, end, '', true, start, end);
    default:
      return new TokenNode(TOKEN_KINDS[kind]!, start, end, text.slice(start, end), true, start, end);
  }
}

/**
 * An incremental lexer over one text: `scanInto(store, count)` appends the next tokens to a `TokenStore`
 * (typed arrays, what the parser reads), `scan(out, count)` as `Token` objects, so a caller can parse a
 * large text a chunk at a time (parser.ts `parseDocument`). The tokens and diagnostics are exactly those
 * of `tokenize`.
 */
export class Lexer {
  private readonly state: ScanState;

  /**
   * @param diagnostics optional sink for lexical problems (see `tokenize`).
   * @param from where to start scanning: 0, or the start of a token of a previous scan of a text equal up
   *   to and including that character (the tokens from there are then the same as a scan from 0 would give).
   */
  constructor(private readonly text: string, private readonly diagnostics?: ParseDiagnostic[], from = 0) {
    this.state = { pos: from, diagCount: 0, stopFrom: -1, stopAt: -1, directives: undefined, nextCr: -2 };
  }

  /** True once the whole text was scanned. */
  get done(): boolean {
    return this.state.pos >= this.text.length;
  }

  /** The offset where the next scan starts. */
  get pos(): number {
    return this.state.pos;
  }

  /** Appends at least `count` tokens to `out` (a few more when one construct makes several), or all that are left. Never throws. */
  scan(out: Token[], count: number): void {
    const from = this.state.pos;
    const store = new TokenStore(Math.min(2 * count, tokenEstimate(this.text.length - from)), from);
    const directives: number[] = [];
    this.state.directives = directives;
    for (let left = count; left > 0 && !this.done;) left -= scanTokens(this.text, this.diagnostics, this.state, store, left);
    this.state.directives = undefined;
    let pos = from;
    let d = 0;
    for (let t = 0; t < store.tokenCount; t++) {
      const w = store.width(t);
      const k = store.kinds[t]!;
      if (k === K_DIRECTIVE) {
        // directives: [token index, value start, value end] triples, in order
        const vs = directives[d + 1]!;
        const ve = directives[d + 2]!;
        d += 3;
        out.push(new TokenNode('directive', pos, pos + w, this.text.slice(vs, ve).trim(), store.details[t] === 1, vs, ve));
      } else if (k !== WHITESPACE_CODE) out.push(makeToken(k, store.details[t]!, pos, pos + w, this.text));
      pos += w;
    }
  }

  /**
   * Appends at least `count` tokens (a few more when one construct makes several), or all that are left,
   * to `store`, each preceded by the whitespace before it as a `WHITESPACE_CODE` token (the store's `end`
   * must be where this scan starts: the previous scan's end, or `from`); whitespace after the last token
   * is not appended. Returns how many tokens other than whitespace it appended. Never throws.
   * @param marks when given, each `;`, blank-line and directive token appended (what ends a query) is
   *   added there (`QueryEnds.add`): its index in the store, its start and its end.
   */
  scanInto(store: TokenStore, count: number, marks?: QueryEnds): number {
    let done = 0;
    while (done < count && !this.done) done += scanTokens(this.text, this.diagnostics, this.state, store, count - done, marks);
    return done;
  }
}

/** Where a `Lexer` is between two `scan` calls. */
interface ScanState {
  pos: number;
  diagCount: number;
  /** The `[` scan cache (see the column case of `scanTokens`); -1 when empty. */
  stopFrom: number;
  stopAt: number;
  /** When set, each directive's store index, value start and value end are pushed here (`Lexer.scan`). */
  directives: number[] | undefined;
  /** The first `\r` at or after where `lineEnd` last looked, -1 when there is none, -2 before the first look. */
  nextCr: number;
}

/**
 * The store entries (tokens and the whitespace between them) expected in `chars` UTF-16 code units of
 * text: about one in 3.5 characters (the realistic benchmark file has 1 in 3.8); what a `TokenStore` is
 * first sized to before a scan (it grows when the text holds more).
 */
export function tokenEstimate(chars: number): number {
  return Math.ceil(chars / 3.5);
}

/** The most tokens one `scanTokens` call appends (`scan` and `scanInto` append at least `count`: they loop). */
const SCAN_CHUNK = 16384;
/** The fewest tokens a `scanTokens` call has room for (the store grows when it has less). */
const SCAN_MIN_ROOM = 64;

/** The scanning loop of `Lexer.scan` (a plain function: V8 optimizes it better than a method); appends up to `min(count, SCAN_CHUNK)` tokens (a few more when one construct makes several). */
function scanTokens(text: string, diagnostics: ParseDiagnostic[] | undefined, state: ScanState, store: TokenStore, count: number, marks?: QueryEnds): number {
  const n = text.length;
  /** Tokens other than whitespace written so far. */
  let len = 0;
  // Room for every token this call may append (an iteration appends at most two, each after whitespace),
  // so `put` checks none. The call stops where the store's room ends rather than growing the store to a
  // whole chunk's worth (a small text's store, sized to its length, would grow many times); the store
  // grows (doubling) only when less than a few iterations' room is left, and the caller loops.
  if (store.kinds.length - store.tokenCount < 2 * (SCAN_MIN_ROOM + 2)) store.reserve(2 * (Math.min(count, SCAN_MIN_ROOM) + 2));
  const target = Math.min(count, SCAN_CHUNK, ((store.kinds.length - store.tokenCount) >>> 1) - 2);
  /** Cache of the `[` scan: the stop found from `stopFrom` is `stopAt` (see the column case). */
  let stopFrom = state.stopFrom;
  let stopAt = state.stopAt;
  let i = state.pos;
  while (i < n && len < target) {
    let c = text.charCodeAt(i);

    // Whitespace; a run with two line breaks holds a blank line. Most runs are one space before a token,
    // skipped here to read that token at once.
    if (c === 32) {
      const d = text.charCodeAt(i + 1);
      if (d > 32 && d < 128) c = text.charCodeAt(++i);
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
      if (lines >= 2) {
        len = put(store, len, K_BLANK, s, i, 0);
        if (marks) marks.add(store.tokenCount - 1, s, i);
      }
      continue;
    }

    // Words and keywords (longest multi-word match).
    if (isWordStart(c)) {
      const s = i;
      // The hash of the lower-case word, computed while scanning; non-ASCII words (no keyword is) go the
      // slow way, through toLowerCase, so that case folding stays exactly JavaScript's.
      let nonAscii = c >= 128;
      const first = c >= 65 && c <= 90 ? c + 32 : c;
      let h = fnv(FNV_START, first);
      // the lower-case characters packed as they are read: a short word is then compared as one number
      let packed = first;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 128) {
          const lower = WORD_LOWER[d]!;
          if (lower === 0 || (lower === 45 && text.charCodeAt(i + 1) === 45)) break;
          h = fnv(h, lower);
          packed = pack(packed, lower);
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
        const length = i - s;
        let slot = h & SLOT_MASK;
        for (let l = SLOT_LENGTH[slot]!; l !== 0; l = SLOT_LENGTH[(slot = (slot + 1) & SLOT_MASK)]!) {
          if (l === length && SLOT_HASH[slot] === h) {
            const p = SLOT_PACKED[slot]!;
            if (p >= 0 ? p === packed : sameLower(text, s, SLOT_WORD[slot]!)) {
              info = SLOT_INFO[slot];
              break;
            }
          }
        }
      }
      if (info) {
        if (info.phrases) {
          let matched = 0;
          const phrases = info.phrases;
          for (let f = 0; f < phrases.length; f++) {
            const phrase = phrases[f]!;
            const rest = phrase.rest;
            let p = i;
            let ok = true;
            for (let r = 0; r < rest.length; r++) {
              const w = rest[r]!;
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
              matched = phrase.id;
              break;
            }
          }
          if (matched !== 0) {
            len = put(store, len, K_KEYWORD, s, i, matched);
            continue;
          }
        }
        if (info.id !== 0) {
          len = put(store, len, K_KEYWORD, s, i, info.id);
          continue;
        }
      }
      len = put(store, len, K_WORD, s, i, 0);
      continue;
    }

    // Numbers (a leading '-' makes them negative); digits glued to letters, '/' or ':' make a word (10/31/2014).
    if (isDigit(c) || (c === 45 && isDigit(text.charCodeAt(i + 1)))) {
      const s = i;
      i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      // NUMBER_DIGITS (no sign, no fraction), with NUMBER_YEAR for four digits starting 1 or 2
      let detail = c === 45 ? 0 : i - s === 4 && (c === 49 || c === 50) ? NUMBER_DIGITS | NUMBER_YEAR : NUMBER_DIGITS;
      if (text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
        detail = 0;
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
        len = put(store, len, K_WORD, s, i, 0);
      } else len = put(store, len, K_NUMBER, s, i, detail);
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
            // Most characters of a name are printable ASCII other than brackets: a tight loop over them
            // (one table look-up each), then the character that ended the run.
            const run = j;
            let d = text.charCodeAt(j);
            while (d < 128 && NAME_PLAIN[d] === 1) d = text.charCodeAt(++j);
            if (j !== run) seen |= 2;
            if (j >= n || d === 93 || d === 10 || d === 13) break;
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
          len = put(store, len, K_COLUMN, s, j + 1, 1);
          if (inner) report(state, diagnostics, n, s, j + 1, codes.BRACKET_IN_COLUMN, `Column names cannot contain [ or ] (docs/service-interface.md §8.4): [${text.slice(s + 1, j)}].`);
          else if ((seen < 0 || (seen & 2) === 0) && text.slice(s + 1, j).trim() === '') report(state, diagnostics, n, s, j + 1, codes.EMPTY_COLUMN, 'Empty column name: write the column between the brackets, e.g. [origin].');
          i = j + 1;
        } else {
          // A quote, operator or separator cuts an unclosed name short (the scan stops there, so it is
          // linear in what the token consumes).
          let e = s + 1;
          while (e < j && !isColumnCut(text.charCodeAt(e))) e++;
          while (e > s + 1 && isWs(text.charCodeAt(e - 1))) e--;
          len = put(store, len, K_COLUMN, s, e, 0);
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
          len = put(store, len, K_VALUE, s, le, 0);
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
            len = put(store, len, K_VALUE, s, j + 1, 0);
            report(state, diagnostics, n, s, j + 1, codes.QUOTE_IN_VALUE, 'A value cannot contain quotes (docs/service-interface.md §8.5).');
            i = j + 1;
            continue;
          }
        }
        len = put(store, len, K_VALUE, s, j + 1, 1);
        if (quoteInside) report(state, diagnostics, n, s, j + 1, codes.QUOTE_IN_VALUE, 'A value cannot contain quotes (docs/service-interface.md §8.5).');
        else if (c === 34) report(state, diagnostics, n, s, j + 1, codes.DOUBLE_QUOTED_VALUE, "Values are written in single quotes in the API syntax (docs/service-interface.md §4.3): '…'.", 'warning');
        i = j + 1;
        continue;
      }
      case 45: // - (not followed by a digit: that was a number)
        if (text.charCodeAt(i + 1) === 45) {
          const e = lineEnd(text, i, state);
          len = put(store, len, K_COMMENT, i, e, 0);
          i = e;
          continue;
        }
        break;
      case 61: len = put(store, len, K_OPERATOR, i, i + 1, 0); i++; continue;
      case 33:
        if (text.charCodeAt(i + 1) === 61) {
          len = put(store, len, K_OPERATOR, i, i + 2, 0);
          i += 2;
          continue;
        }
        break;
      case 60:
      case 62: {
        const w = text.charCodeAt(i + 1) === 61 ? 2 : 1;
        len = put(store, len, K_OPERATOR, i, i + w, 0);
        i += w;
        continue;
      }
      case 44: len = put(store, len, K_COMMA, i, i + 1, 0); i++; continue;
      case 46: len = put(store, len, K_DOT, i, i + 1, 0); i++; continue;
      case 59:
        len = put(store, len, K_SEMICOLON, i, i + 1, 0);
        if (marks) marks.add(store.tokenCount - 1, i, i + 1);
        i++;
        continue;
      case 40: len = put(store, len, K_LPAREN, i, i + 1, 0); i++; continue;
      case 41: len = put(store, len, K_RPAREN, i, i + 1, 0); i++; continue;
      case 123: { // {null} {empty}
        if (wordAtBrace(text, i, 'null}')) {
          len = put(store, len, K_CONSTANT, i, i + 6, 0);
          i += 6;
          continue;
        }
        if (wordAtBrace(text, i, 'empty}')) {
          len = put(store, len, K_CONSTANT, i, i + 7, 1);
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
          const e = lineEnd(text, i, state);
          len = put(store, len, K_COMMENT, s, e, 0);
          i = e;
          continue;
        }
        if (word !== 'datasource') {
          len = put(store, len, K_STRAY, s, j, 0);
          report(state, diagnostics, n, s, j, codes.UNKNOWN_DIRECTIVE, `Unknown directive ${text.slice(s, j) || '@'}: the directives are ${DIRECTIVES.map((d) => `@${d}`).join(' and ')}, as in @datasource 'name or GUID'.`);
          i = j;
          continue;
        }
        const le = lineEnd(text, j, state);
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
        if (state.directives) state.directives.push(store.tokenCount + (s > store.end ? 1 : 0), vs, ve);
        len = put(store, len, K_DIRECTIVE, s, end, closedQuote ? 1 : 0);
        if (marks) marks.add(store.tokenCount - 1, s, end);
        if (value === '') report(state, diagnostics, n, s, end, codes.DIRECTIVE_WITHOUT_VALUE, "@datasource needs a data source name or GUID: @datasource 'Flights'.");
        // Anything else on the line (except a comment) is stray.
        let r = end;
        while (r < le && isWs(text.charCodeAt(r))) r++;
        if (r < le && !(text.charCodeAt(r) === 45 && text.charCodeAt(r + 1) === 45)) {
          let t = r;
          while (t < le && !(text.charCodeAt(t) === 45 && text.charCodeAt(t + 1) === 45)) t++;
          while (t > r && isWs(text.charCodeAt(t - 1))) t--;
          len = put(store, len, K_STRAY, r, t, 0);
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
    len = put(store, len, K_STRAY, s, i, 0);
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
 * Appends a token of code `kind` over `[start, end)` to `store`, after the whitespace since the store's
 * `end` as one `WHITESPACE_CODE` token; returns `len + 1`. A plain function, not a closure over the scan's
 * locals: V8 then keeps the scan's text and offsets in registers.
 */
function put(store: TokenStore, len: number, kind: number, start: number, end: number, detail: number): number {
  let i = store.tokenCount;
  const kinds = store.kinds;
  const details = store.details;
  const gap = start - store.end;
  if (gap > 0) {
    kinds[i] = WHITESPACE_CODE;
    details[i] = 0;
    if (gap < WIDTH_ESCAPE) store.widths[i] = gap;
    else store.setWidth(i, gap);
    i++;
  }
  kinds[i] = kind;
  details[i] = detail;
  const w = end - start;
  if (w < WIDTH_ESCAPE) store.widths[i] = w;
  else store.setWidth(i, w);
  store.tokenCount = i + 1;
  store.end = end;
  return len + 1;
}

/**
 * End of the line at `from` (offset of its `\r` or `\n`, or the text's length), found by `indexOf` (a
 * native search) rather than a loop over the characters; the next `\r` is kept in `state.nextCr`, so that
 * a text without one is searched for it once, not once per line (`from` only grows in one scan).
 */
function lineEnd(text: string, from: number, state: ScanState): number {
  let cr = state.nextCr;
  if (cr !== -1 && cr < from) state.nextCr = cr = text.indexOf('\r', from);
  const nl = text.indexOf('\n', from);
  const e = nl < 0 ? text.length : nl;
  return cr >= 0 && cr < e ? cr : e;
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
