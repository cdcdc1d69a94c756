/**
 * Splitting an uploaded chunk into records and fields, for the two input formats of the load definition
 * (seed 2.2 `format`):
 *
 * - `csv`: fields may be wrapped in the enclosing character (default `"`); inside, the enclosing
 *   character is written twice; an enclosed field may hold the separator and line breaks. An unenclosed
 *   empty field is a null; an enclosed empty field (`""`) is the empty string. `escape_character` and
 *   `null_value` do not apply (seed 2.2).
 * - `delimited`: no enclosing; the escape character (when given) makes the next character literal
 *   (the separator, a line break, or the escape character itself); a field equal to `null_value`
 *   (default `(null)`) is a null.
 *
 * Records end at `\n` or `\r\n` outside an enclosed field. Blank lines are skipped. A byte-order mark at
 * the start of a chunk is dropped. Every record keeps its raw text (for the bad records file) and the
 * 1-based line number where it starts (for `parsing_errors`).
 *
 * Why not csv-parse: it cannot apply an escape character outside enclosing characters (the delimited
 * format), it can tell an enclosed empty field from an unenclosed one only through its per-field `cast`
 * hook, and with that hook it parsed about 1.6 MB/s here against DuckDB's ~90 MB/s for the same file,
 * far from the commit throughput the emulator must reach. This scanner is tested against csv-stringify
 * output (test/unit/load-records.test.ts).
 */

/** The splitting options taken from a load definition's `format`. */
export interface RecordFormat {
  /** `csv` (enclosing characters) or `delimited` (escape character, null value). */
  type: 'csv' | 'delimited';
  /** One character. */
  fieldSeparator: string;
  /** csv only: one character, or '' for none. */
  enclosingCharacter: string;
  /** delimited only: one character, or '' for none. */
  escapeCharacter: string;
  /** delimited only: the text of a null field. */
  nullValue: string;
  /** When true, each record ends with a separator, which is dropped. */
  trailingFieldSeparator: boolean;
}

/** One record of a chunk. */
export interface RawRecord {
  /** Field values; null for a null field (see the module comment for what is null in each format). */
  fields: (string | null)[];
  /** The record's text as uploaded, without its line break. */
  raw: string;
  /** 1-based line of the chunk where the record starts. */
  line: number;
  /** Set when the record cannot be split (an enclosed field that is never closed, text after a closing enclosing character). */
  error?: string;
}

const LF = 10;
const CR = 13;

/**
 * A push-style record splitter: feed it text with `push`, then call `end`; it calls `onRecord` for
 * every record in order. Keeps only the unfinished record between pushes, never the whole chunk.
 */
export class RecordSplitter {
  private pending = '';
  private line = 1;
  private first = true;
  private readonly sep: number;
  private readonly quote: number;
  private readonly esc: number;

  constructor(
    private readonly format: RecordFormat,
    private readonly onRecord: (r: RawRecord) => void,
  ) {
    this.sep = format.fieldSeparator.charCodeAt(0);
    this.quote = format.type === 'csv' && format.enclosingCharacter !== '' ? format.enclosingCharacter.charCodeAt(0) : -1;
    this.esc = format.type === 'delimited' && format.escapeCharacter !== '' ? format.escapeCharacter.charCodeAt(0) : -1;
  }

  /** Feeds the next piece of decoded text. */
  push(text: string): void {
    if (this.first) {
      if (text.length === 0) return;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    const buf = this.pending.length ? this.pending + text : text;
    const consumed = this.scan(buf, false);
    this.pending = consumed < buf.length ? buf.slice(consumed) : '';
  }

  /** Flushes the last record (a record without a final line break, or an unclosed enclosed field). */
  end(): void {
    if (this.pending.length) this.scan(this.pending, true);
    this.pending = '';
  }

  /** Scans complete records of `buf`; returns how many characters were consumed. */
  private scan(buf: string, atEnd: boolean): number {
    const n = buf.length;
    let pos = 0;
    while (pos < n) {
      const start = pos;
      const fields: (string | null)[] = [];
      let lines = 0; // line breaks inside the record
      let error: string | undefined;
      let p = pos;
      let complete: boolean;
      let recordEnd: number; // index of the record's line break (or n)
      let next: number; // index after the line break
      for (;;) {
        // one field starting at p
        if (p < n && buf.charCodeAt(p) === this.quote) {
          let q = p + 1;
          let value = '';
          let closed = false;
          for (;;) {
            const k = buf.indexOf(this.format.enclosingCharacter, q);
            if (k < 0) break;
            if (k + 1 < n && buf.charCodeAt(k + 1) === this.quote) {
              value += buf.slice(q, k + 1);
              q = k + 2;
              continue;
            }
            if (k + 1 >= n && !atEnd) break; // the next piece may bring a second enclosing character
            value += buf.slice(q, k);
            q = k + 1;
            closed = true;
            break;
          }
          if (!closed) {
            if (!atEnd) return start;
            // an enclosed field that never closes: the rest of the chunk is one bad record
            lines += countBreaks(buf, p, n);
            fields.push(buf.slice(p + 1));
            error = 'an enclosed field is not closed before the end of the data';
            recordEnd = n;
            next = n;
            complete = true;
            break;
          }
          lines += countBreaks(value, 0, value.length);
          fields.push(value);
          p = q;
          if (p >= n) {
            if (!atEnd) return start;
            recordEnd = n;
            next = n;
            complete = true;
            break;
          }
          const c = buf.charCodeAt(p);
          if (c === this.sep) {
            p++;
            continue;
          }
          if (c === LF || (c === CR && p + 1 < n && buf.charCodeAt(p + 1) === LF)) {
            recordEnd = p;
            next = c === LF ? p + 1 : p + 2;
            complete = true;
            break;
          }
          if (c === CR && p + 1 >= n) {
            if (!atEnd) return start;
            recordEnd = p;
            next = n;
            complete = true;
            break;
          }
          // text after the closing enclosing character: take the rest of the field literally, mark the record bad
          error = `text follows the closing enclosing character at line ${this.line + lines}`;
          const e = this.plainEnd(buf, p, n);
          if (e < 0 && !atEnd) return start;
          const end = e < 0 ? n : e;
          fields[fields.length - 1] = (fields[fields.length - 1] as string) + buf.slice(p, end);
          p = end;
          if (p < n && buf.charCodeAt(p) === this.sep) {
            p++;
            continue;
          }
          recordEnd = p;
          next = p >= n ? n : buf.charCodeAt(p) === LF ? p + 1 : p + 2;
          complete = true;
          break;
        }
        // an unenclosed field
        if (this.esc >= 0) {
          let value = '';
          let q = p;
          let segment = p;
          let ended = false;
          while (q < n) {
            const c = buf.charCodeAt(q);
            if (c === this.esc) {
              if (q + 1 >= n) {
                if (!atEnd) return start;
                q++;
                break; // an escape character at the very end stays literal
              }
              value += buf.slice(segment, q);
              const d = buf.charCodeAt(q + 1);
              if (d === CR && q + 2 < n && buf.charCodeAt(q + 2) === LF) {
                value += '\r\n';
                q += 3;
              } else {
                value += buf[q + 1];
                q += 2;
              }
              if (d === LF || d === CR) lines++;
              segment = q;
              continue;
            }
            if (c === this.sep || c === LF || (c === CR && (q + 1 >= n || buf.charCodeAt(q + 1) === LF))) {
              ended = true;
              break;
            }
            q++;
          }
          if (!ended && !atEnd) return start;
          if (q < n && buf.charCodeAt(q) === CR && q + 1 >= n && !atEnd) return start;
          value += buf.slice(segment, Math.min(q, n));
          fields.push(this.plainValue(value, q - p));
          p = q;
        } else {
          const e = this.plainEnd(buf, p, n);
          if (e < 0 && !atEnd) return start;
          const end = e < 0 ? n : e;
          fields.push(this.plainValue(buf.slice(p, end), end - p));
          p = end;
        }
        if (p >= n) {
          recordEnd = n;
          next = n;
          complete = true;
          break;
        }
        const c = buf.charCodeAt(p);
        if (c === this.sep) {
          p++;
          if (p >= n && !atEnd) return start;
          continue;
        }
        recordEnd = p;
        next = c === LF ? p + 1 : p + 2;
        complete = true;
        break;
      }
      if (!complete) return start;
      const raw = buf.slice(start, recordEnd);
      const line = this.line;
      this.line += lines + (next > recordEnd ? 1 : 0);
      pos = next;
      if (raw.length === 0) continue; // blank line
      if (this.format.trailingFieldSeparator && fields.length > 1 && fields[fields.length - 1] === null) fields.pop();
      else if (this.format.trailingFieldSeparator && fields.length > 1 && fields[fields.length - 1] === '' && this.format.type === 'delimited') fields.pop();
      this.onRecord(error ? { fields, raw, line, error } : { fields, raw, line });
    }
    return pos;
  }

  /** End of an unenclosed field without escapes: index of the separator or line break, -1 when not in `buf`. */
  private plainEnd(buf: string, p: number, n: number): number {
    for (let q = p; q < n; q++) {
      const c = buf.charCodeAt(q);
      if (c === this.sep || c === LF) return q;
      if (c === CR) {
        if (q + 1 >= n) return -1;
        if (buf.charCodeAt(q + 1) === LF) return q;
      }
    }
    return -1;
  }

  /** The value of an unenclosed field: null for an empty csv field or a delimited `null_value`. */
  private plainValue(value: string, rawLength: number): string | null {
    if (this.format.type === 'csv') return rawLength === 0 ? null : value;
    return value === this.format.nullValue && rawLength === value.length ? null : value;
  }
}

/** Number of line breaks (`\n`) in `s` between `from` and `to`. */
function countBreaks(s: string, from: number, to: number): number {
  let k = 0;
  for (let i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1)) k++;
  return k;
}

/** Splits a whole text at once (tests and small inputs). */
export function splitRecords(text: string, format: RecordFormat): RawRecord[] {
  const out: RawRecord[] = [];
  const s = new RecordSplitter(format, (r) => out.push(r));
  s.push(text);
  s.end();
  return out;
}
