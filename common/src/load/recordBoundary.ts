/**
 * Where a record ends and how it splits into fields: the ONE definition used by the chunker, the
 * sniffer's preview and the emulator's splitter (emulator/src/load/records.ts), for both formats of
 * docs/service-interface.md §2.2. If the chunker and the service disagreed, a chunk would be cut inside
 * a record and a row lost or invented.
 * - `csv`: the enclosing character (default `"`) encloses only as a field's first character; inside it
 *   is doubled, and separators and line breaks are data; text after the closing one is data (a bad record).
 * - `delimited`: nothing is enclosed; the escape character makes the next character data (a CRLF whole).
 * A record ends at LF, CRLF or a lone CR outside an enclosed or escaped field (a chunk is never cut
 * between CR and LF); an unclosed field runs to the end. Blank records are records; the service skips
 * them. The scanner works on bytes (`scanBytes`, ASCII special characters) or UTF-16 text (`scanText`).
 */

/** The format members that decide record and field boundaries. */
export interface BoundaryFormat {
  type: 'csv' | 'delimited';
  /** One character. */
  fieldSeparator: string;
  /** csv only: one character, or '' for none. */
  enclosingCharacter: string;
  /** delimited only: one character, or '' for none. */
  escapeCharacter: string;
}

/** The boundary format of a load definition's `format` (snake_case members, defaults of §2.2 applied by the caller). */
export function boundaryFormat(f: { type: string; field_separator: string; enclosing_character: string; escape_character: string }): BoundaryFormat {
  return {
    type: f.type.toLowerCase() === 'delimited' ? 'delimited' : 'csv',
    fieldSeparator: f.field_separator,
    enclosingCharacter: f.enclosing_character,
    escapeCharacter: f.escape_character,
  };
}

const LF = 10;
const CR = 13;

// scanner states
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Inside an enclosed field, just after an enclosing character: doubled, or the closing one. */
const QUOTE_SEEN = 3;
const ESCAPED = 4;
/** After an escape character and a CR: an LF next belongs to the escaped line break. */
const ESCAPED_CR = 5;
/** After a CR that ends a record: an LF next belongs to the same line break. */
const CR_SEEN = 6;

// results of feeding one unit
const NONE = 0;
/** The record ended with this unit. */
const END_AFTER = 1;
/** The record ended before this unit, which is not consumed (feed it again). */
const END_BEFORE = 2;

/**
 * Finds record ends in a stream of code units fed in order, keeping its state across pieces.
 * `scanBytes(b, from)` / `scanText(s, from)` return the index just AFTER the first record end in
 * `[from, length)` (after the LF of a CRLF), or -1 when the piece holds none (the state then covers the
 * whole piece). A lone CR at the very end of a piece is reported by the next call (which may return
 * its `from`: the record ended just before it), or by `end()`.
 */
export class RecordBoundaryScanner {
  private state = FIELD_START;
  private readonly sep: number;
  private readonly q: number;
  private readonly esc: number;

  /** @throws RangeError when a separator, enclosing or escape character is not one character. */
  constructor(format: BoundaryFormat) {
    const one = (s: string, what: string, allowEmpty: boolean): number => {
      if (s === '' && allowEmpty) return -1;
      if (s.length !== 1) throw new RangeError(`the ${what} must be one character, not '${s}'`);
      return s.charCodeAt(0);
    };
    this.sep = one(format.fieldSeparator, 'field separator', false);
    this.q = format.type === 'csv' ? one(format.enclosingCharacter, 'enclosing character', true) : -1;
    this.esc = format.type === 'delimited' ? one(format.escapeCharacter, 'escape character', true) : -1;
  }

  /** True when every separator, enclosing and escape character is ASCII, so that `scanBytes` may be used on UTF-8 or a single-byte encoding. */
  get byteSafe(): boolean {
    return this.sep < 128 && this.q < 128 && this.esc < 128;
  }

  /** True when the units so far end inside an enclosed field. */
  get insideField(): boolean {
    return this.state === QUOTED || this.state === QUOTE_SEEN;
  }

  /** True when the units so far end inside an enclosed field that is not closed (at the end of the data: a field never closed). */
  get unclosed(): boolean {
    return this.state === QUOTED;
  }

  /** True when the units so far end with a CR that ends a record (an LF may still follow): at the end of the data, that CR is the record's line break. */
  get endsWithLineBreak(): boolean {
    return this.state === CR_SEEN;
  }

  /** Starts over at the start of a record (a new chunk). */
  reset(): void {
    this.state = FIELD_START;
  }

  /** The transition of one unit: NONE, END_AFTER or END_BEFORE. */
  private feed(c: number): number {
    switch (this.state) {
      case CR_SEEN:
        this.state = FIELD_START;
        return c === LF ? END_AFTER : END_BEFORE;
      case ESCAPED:
        this.state = c === CR ? ESCAPED_CR : UNQUOTED;
        return NONE;
      case ESCAPED_CR:
        this.state = UNQUOTED;
        if (c === LF) return NONE;
        return this.feed(c);
      case QUOTED:
        if (c === this.q) this.state = QUOTE_SEEN;
        return NONE;
      case QUOTE_SEEN:
        if (c === this.q) {
          this.state = QUOTED; // a doubled enclosing character
          return NONE;
        }
        this.state = UNQUOTED; // closed: the rest of the field is data up to a separator or line break
        return this.unquoted(c);
      case FIELD_START:
        if (c === this.q) {
          this.state = QUOTED;
          return NONE;
        }
        return this.unquoted(c);
      default:
        return this.unquoted(c);
    }
  }

  private unquoted(c: number): number {
    if (c === LF) {
      this.state = FIELD_START;
      return END_AFTER;
    }
    if (c === CR) {
      this.state = CR_SEEN;
      return NONE;
    }
    if (c === this.esc) this.state = ESCAPED;
    else if (c === this.sep) this.state = FIELD_START;
    else this.state = UNQUOTED;
    return NONE;
  }

  // Where the next enclosing character, CR and escape character are in the piece last scanned (-1: none
  // left, -2: not looked for yet): each piece is searched once for each, whatever its number of
  // records, and a record without any of them before its LF is passed over with two memchr calls.
  private piece: unknown;
  private pieceFrom = 0;
  private nq = -2;
  private ncr = -2;
  private nesc = -2;
  private nlf = -2;

  /** Resets the positions when a new piece starts (or the same buffer was read into again). */
  private newPiece(piece: unknown, from: number): void {
    if (piece !== this.piece || from < this.pieceFrom) {
      this.piece = piece;
      this.nq = this.ncr = this.nesc = this.nlf = -2;
    }
    this.pieceFrom = from;
  }

  /** See the class comment; `b` holds bytes of an ASCII-compatible encoding. */
  scanBytes(b: Uint8Array, from: number): number {
    this.newPiece(b, from);
    const n = b.length;
    let i = from;
    while (i < n) {
      const st = this.state;
      if (st === QUOTED) {
        if (this.nq !== -1 && this.nq < i) this.nq = b.indexOf(this.q, i);
        if (this.nq < 0) return -1;
        this.state = QUOTE_SEEN;
        i = this.nq + 1;
        continue;
      }
      if (st === FIELD_START || st === UNQUOTED) {
        if (this.nlf !== -1 && this.nlf < i) this.nlf = b.indexOf(LF, i);
        const lf = this.nlf;
        if (this.q >= 0 && this.nq !== -1 && this.nq < i) this.nq = b.indexOf(this.q, i);
        if (this.ncr !== -1 && this.ncr < i) this.ncr = b.indexOf(CR, i);
        if (this.esc >= 0 && this.nesc !== -1 && this.nesc < i) this.nesc = b.indexOf(this.esc, i);
        const stop = this.firstSpecial(lf < 0 ? n : lf);
        if (stop < 0) {
          // nothing but plain units (and separators) up to the LF or the end of the piece
          if (lf >= 0) {
            this.state = FIELD_START;
            return lf + 1;
          }
          this.state = b[n - 1] === this.sep ? FIELD_START : UNQUOTED;
          return -1;
        }
        if (stop > i) {
          this.state = b[stop - 1] === this.sep ? FIELD_START : UNQUOTED;
          i = stop;
        }
      }
      const r = this.feed(b[i]!);
      if (r === NONE) i++;
      else return r === END_AFTER ? i + 1 : i;
    }
    return -1;
  }

  /**
   * Counts the record ends in `b[from, to)` at once instead of one record at a time, when that gives the
   * same: the range holds no enclosing, CR or escape character and the units before it do not end inside
   * an enclosed field, after an escape character or after a CR, so every LF in it ends a record. The
   * state is then left as `scanBytes` over the range would leave it. Why: the chunk planner counts every
   * record of the file, and one `indexOf` call per record (about 30 bytes) was a quarter of the
   * extension host's CPU time while it uploaded (test/bench/load.bench.ts).
   * @returns the number of LFs in the range, or -1 (nothing changed) when the range is not plain.
   */
  countPlain(b: Uint8Array, from: number, to: number): number {
    if (this.state !== FIELD_START && this.state !== UNQUOTED) return -1;
    if (from >= to) return 0;
    this.newPiece(b, from);
    if (this.q >= 0 && this.nq !== -1 && this.nq < from) this.nq = b.indexOf(this.q, from);
    if (this.ncr !== -1 && this.ncr < from) this.ncr = b.indexOf(CR, from);
    if (this.esc >= 0 && this.nesc !== -1 && this.nesc < from) this.nesc = b.indexOf(this.esc, from);
    if (this.firstSpecial(to) >= 0) return -1;
    const last = b[to - 1];
    this.state = last === LF || last === this.sep ? FIELD_START : UNQUOTED;
    return countLf(b, from, to);
  }

  /** See the class comment; `s` is text (UTF-16 code units). */
  scanText(s: string, from: number): number {
    this.newPiece(s, from);
    const n = s.length;
    const quote = this.q >= 0 ? String.fromCharCode(this.q) : '';
    const esc = this.esc >= 0 ? String.fromCharCode(this.esc) : '';
    let i = from;
    while (i < n) {
      const st = this.state;
      if (st === QUOTED) {
        if (this.nq !== -1 && this.nq < i) this.nq = s.indexOf(quote, i);
        if (this.nq < 0) return -1;
        this.state = QUOTE_SEEN;
        i = this.nq + 1;
        continue;
      }
      if (st === FIELD_START || st === UNQUOTED) {
        if (this.nlf !== -1 && this.nlf < i) this.nlf = s.indexOf('\n', i);
        const lf = this.nlf;
        if (quote && this.nq !== -1 && this.nq < i) this.nq = s.indexOf(quote, i);
        if (this.ncr !== -1 && this.ncr < i) this.ncr = s.indexOf('\r', i);
        if (esc && this.nesc !== -1 && this.nesc < i) this.nesc = s.indexOf(esc, i);
        const stop = this.firstSpecial(lf < 0 ? n : lf);
        if (stop < 0) {
          if (lf >= 0) {
            this.state = FIELD_START;
            return lf + 1;
          }
          this.state = s.charCodeAt(n - 1) === this.sep ? FIELD_START : UNQUOTED;
          return -1;
        }
        if (stop > i) {
          this.state = s.charCodeAt(stop - 1) === this.sep ? FIELD_START : UNQUOTED;
          i = stop;
        }
      }
      const r = this.feed(s.charCodeAt(i));
      if (r === NONE) i++;
      else return r === END_AFTER ? i + 1 : i;
    }
    return -1;
  }

  /** The first enclosing character, CR or escape character before `limit` (their positions are up to date), or -1. */
  private firstSpecial(limit: number): number {
    let stop = limit;
    if (this.q >= 0 && this.nq >= 0 && this.nq < stop) stop = this.nq;
    if (this.ncr >= 0 && this.ncr < stop) stop = this.ncr;
    if (this.esc >= 0 && this.nesc >= 0 && this.nesc < stop) stop = this.nesc;
    return stop === limit ? -1 : stop;
  }
}

/**
 * The LF bytes in `b[from, to)`, four bytes at a time (a byte is LF when it XOR 0x0A is zero; the zero
 * bytes of a word are found without carries between bytes, and up to 254 words are summed per byte lane
 * before the lanes are added): two to three times as fast as one `indexOf` per line on lines of ~30 bytes.
 */
export function countLf(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  let i = from;
  // up to the first 4-byte-aligned address, byte by byte
  while (i < to && ((b.byteOffset + i) & 3) !== 0) if (b[i++] === LF) n++;
  // whole pairs of words (two per step: about a fifth faster than one); the odd word is left to the byte loop
  const words = ((to - i) >>> 3) << 1;
  if (words > 0) {
    const w = new Int32Array(b.buffer, b.byteOffset + i, words);
    for (let k = 0; k < words; ) {
      const stop = Math.min(words, k + 254);
      let lanes = 0;
      for (; k < stop; k += 2) {
        const x = w[k]! ^ 0x0a0a0a0a;
        const y = w[k + 1]! ^ 0x0a0a0a0a;
        lanes = (lanes + ((~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) >>> 7) & 0x01010101) + ((~(((y & 0x7f7f7f7f) + 0x7f7f7f7f) | y) >>> 7) & 0x01010101)) | 0;
      }
      n += (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
    }
    i += words * 4;
  }
  while (i < to) if (b[i++] === LF) n++;
  return n;
}

/** Length of the line break at the end of a record's text (`\r\n` 2, `\n` or `\r` 1, none 0). */
export function lineBreakLength(record: string): number {
  const n = record.length;
  if (n === 0) return 0;
  const last = record.charCodeAt(n - 1);
  if (last === LF) return n > 1 && record.charCodeAt(n - 2) === CR ? 2 : 1;
  return last === CR ? 1 : 0;
}

/** Line breaks in `s` (CRLF, LF and lone CR count one each). */
export function countLineBreaks(s: string): number {
  let k = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LF) k++;
    else if (c === CR && s.charCodeAt(i + 1) !== LF) k++;
  }
  return k;
}

/** The fields of one record. */
export interface SplitFields {
  /** Field values; null for a null field (an unenclosed empty field in csv, a field equal to `nullValue` in delimited). */
  fields: (string | null)[];
  /** Why the record is malformed (an enclosed field never closed, text after a closing enclosing character); undefined when it is not. */
  error?: string;
}

/**
 * Splits ONE record's text (as `RecordBoundaryScanner` delimits it, without its final line break) into
 * fields, by the rules in the module comment. `nullValue` applies to `delimited` only.
 * With `trailingFieldSeparator`, a last empty field after a final separator is dropped.
 */
export function splitFields(text: string, format: BoundaryFormat & { nullValue?: string; trailingFieldSeparator?: boolean }): SplitFields {
  const sep = format.fieldSeparator;
  const q = format.type === 'csv' ? format.enclosingCharacter : '';
  const esc = format.type === 'delimited' ? format.escapeCharacter : '';
  const n = text.length;
  const fields: (string | null)[] = [];
  let error: string | undefined;
  let p = 0;
  for (;;) {
    if (q && text[p] === q) {
      // an enclosed field
      let value = '';
      let k = p + 1;
      let closed = false;
      for (;;) {
        const e = text.indexOf(q, k);
        if (e < 0) break;
        if (text[e + 1] === q) {
          value += text.slice(k, e + 1);
          k = e + 2;
          continue;
        }
        value += text.slice(k, e);
        k = e + 1;
        closed = true;
        break;
      }
      if (!closed) {
        fields.push(text.slice(p + 1));
        error ??= 'an enclosed field is not closed before the end of the data';
        break;
      }
      const end = text.indexOf(sep, k);
      const stop = end < 0 ? n : end;
      if (stop > k) {
        error ??= 'text follows the closing enclosing character';
        value += text.slice(k, stop);
      }
      fields.push(value);
      if (end < 0) break;
      p = end + 1;
      continue;
    }
    if (esc) {
      let value = '';
      let k = p;
      let seg = p;
      while (k < n && text[k] !== sep) {
        if (text[k] === esc && k + 1 < n) {
          value += text.slice(seg, k);
          if (text[k + 1] === '\r' && text[k + 2] === '\n') {
            value += '\r\n';
            k += 3;
          } else {
            value += text[k + 1];
            k += 2;
          }
          seg = k;
          continue;
        }
        k++;
      }
      value += text.slice(seg, k);
      fields.push(value === format.nullValue && k - p === value.length ? null : value);
      if (k >= n) break;
      p = k + 1;
      continue;
    }
    const end = text.indexOf(sep, p);
    const value = text.slice(p, end < 0 ? n : end);
    fields.push(format.type === 'csv' ? (value === '' ? null : value) : value === format.nullValue ? null : value);
    if (end < 0) break;
    p = end + 1;
  }
  if (format.trailingFieldSeparator && fields.length > 1) {
    const last = fields[fields.length - 1];
    if (last === null || (last === '' && format.type === 'delimited')) fields.pop();
  }
  return error ? { fields, error } : { fields };
}

/**
 * Splits a whole text into records (previews, tests): each record's fields, its text without the line
 * break, and its 1-based first line. Blank records are left out; a leading U+FEFF is dropped.
 */
export function splitText(text: string, format: BoundaryFormat & { nullValue?: string; trailingFieldSeparator?: boolean }, limit = Infinity): (SplitFields & { raw: string; line: number })[] {
  const out: (SplitFields & { raw: string; line: number })[] = [];
  const scanner = new RecordBoundaryScanner(format);
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (pos < text.length && out.length < limit) {
    let end = scanner.scanText(text, pos);
    // a last record without a record end has no line break, except a final lone CR (an escaped LF is data)
    const cut = end < 0 ? (scanner.endsWithLineBreak ? 1 : 0) : -1;
    if (end < 0) end = text.length;
    const withBreak = text.slice(pos, end);
    const raw = withBreak.slice(0, withBreak.length - (cut >= 0 ? cut : lineBreakLength(withBreak)));
    if (raw.length) out.push({ ...splitFields(raw, format), raw, line });
    line += countLineBreaks(withBreak);
    pos = end;
  }
  return out;
}
