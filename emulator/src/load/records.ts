/**
 * Splitting an uploaded chunk into records and fields (docs/service-interface.md §2.2 `format`), by the
 * ONE definition of common/src/load/recordBoundary.ts that the client's chunker uses too.
 * - `csv`: an unenclosed empty field is a null, an enclosed one (`""`) the empty string;
 *   `escape_character` and `null_value` do not apply.
 * - `delimited`: a field equal to `null_value` (default `(null)`) is a null.
 * Blank lines and a leading byte-order mark are dropped. A record keeps its raw text and 1-based start
 * line; bytes that are not UTF-8 make it a bad record naming them (`pushBytes`), never a U+FFFD.
 * Not csv-parse: it has no escape character outside enclosing ones, and its per-field `cast` hook was far
 * slower than DuckDB. Tested against csv-stringify (test/unit/load-records.test.ts) and csv-parse
 * (test/emulator/load-property.test.ts).
 */
import { RecordBoundaryScanner, countLineBreaks, lineBreakLength, splitFields, type BoundaryFormat } from '../../../common/src/load/recordBoundary';
import { Utf8Decoder } from '../../../common/src/load/utf8';

/** The splitting options taken from a load definition's `format`. */
export interface RecordFormat extends BoundaryFormat {
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
  /** Set when the record cannot be split (an enclosed field that is never closed, text after a closing enclosing character, bytes that are not UTF-8). */
  error?: string;
}

/** A byte that is not part of valid UTF-8, where its U+FFFD stands in the decoded text. */
interface InvalidByte {
  /** Index in the splitter's text stream (all text pushed so far). */
  at: number;
  /** Offset of the byte in the chunk. */
  byteOffset: number;
  byte: number;
}

/**
 * A push-style record splitter: feed it text with `push` (or bytes with `pushBytes`), then call `end`;
 * it calls `onRecord` for every record in order. Keeps only the unfinished record between pushes.
 */
export class RecordSplitter {
  private pending = '';
  /** Index in the text stream of `pending[0]`. */
  private base = 0;
  /** Where the scanner goes on in `pending` (it has consumed everything before). */
  private scanPos = 0;
  private line = 1;
  private first = true;
  private readonly scanner: RecordBoundaryScanner;
  private readonly utf8 = new Utf8Decoder();
  private invalid: InvalidByte[] = [];

  constructor(
    private readonly format: RecordFormat,
    private readonly onRecord: (r: RawRecord) => void,
  ) {
    this.scanner = new RecordBoundaryScanner(format);
  }

  /** Feeds the next piece of decoded text. */
  push(text: string): void {
    if (this.first) {
      if (text.length === 0) return;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    this.pending = this.pending.length ? this.pending + text : text;
    let start = 0;
    for (;;) {
      const end = this.scanner.scanText(this.pending, this.scanPos);
      if (end < 0) break;
      this.emit(start, end);
      start = end;
      this.scanPos = end;
    }
    this.pending = start ? this.pending.slice(start) : this.pending;
    this.base += start;
    this.scanPos = this.pending.length;
  }

  /** Feeds the next bytes of a UTF-8 chunk; bytes that are not UTF-8 make their record bad. */
  pushBytes(bytes: Uint8Array): void {
    const { text, invalid } = this.utf8.decode(bytes, false);
    this.addInvalid(text, invalid);
  }

  /** Flushes the last record (a record without a final line break, or an unclosed enclosed field). */
  end(): void {
    const { text, invalid } = this.utf8.decode(new Uint8Array(0), true);
    if (text || invalid.length) this.addInvalid(text, invalid);
    // the last record ran to the end of the data: its line break is a final lone CR or none (an escaped LF is data)
    if (this.pending.length) this.emit(0, this.pending.length, this.scanner.endsWithLineBreak ? 1 : 0);
    this.base += this.pending.length;
    this.pending = '';
    this.scanPos = 0;
  }

  private addInvalid(text: string, invalid: { index: number; byteOffset: number; byte: number }[]): void {
    // a BOM dropped by `push` shifts the text by one
    const shift = this.first && text.charCodeAt(0) === 0xfeff ? -1 : 0;
    const at = this.base + this.pending.length + shift;
    for (const b of invalid) this.invalid.push({ at: at + b.index, byteOffset: b.byteOffset, byte: b.byte });
    this.push(text);
  }

  /** Emits the record `pending[start, end)` (its line break included; `breakLength` when known). */
  private emit(start: number, end: number, breakLength?: number): void {
    const withBreak = this.pending.slice(start, end);
    const raw = withBreak.slice(0, withBreak.length - (breakLength ?? lineBreakLength(withBreak)));
    const line = this.line;
    this.line += countLineBreaks(withBreak);
    let error: string | undefined;
    if (this.invalid.length) {
      const from = this.base + start;
      const to = this.base + end;
      while (this.invalid.length && this.invalid[0]!.at < from) this.invalid.shift();
      const bad = this.invalid[0];
      if (bad && bad.at < to) error = `byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')} at byte offset ${bad.byteOffset} of the chunk is not valid UTF-8 (the data must be UTF-8 encoded)`;
    }
    if (raw.length === 0) return; // blank line
    const split = splitFields(raw, this.format);
    error ??= split.error;
    this.onRecord(error ? { fields: split.fields, raw, line, error } : { fields: split.fields, raw, line });
  }
}

/** Splits a whole text at once (tests and small inputs). */
export function splitRecords(text: string, format: RecordFormat): RawRecord[] {
  const out: RawRecord[] = [];
  const s = new RecordSplitter(format, (r) => out.push(r));
  s.push(text);
  s.end();
  return out;
}
