/**
 * Plans the chunks of a CSV load as byte ranges of the file, cut at record boundaries (a newline that is
 * not inside an enclosed field), without ever holding more than one read buffer of the file.
 *
 * Why ranges rather than the bytes themselves: a chunk is then re-readable from the file, so a chunk that
 * the service refused with 401 (it did not take it; seed 7 "Unable to verify user") can be sent again after
 * a new login, while a chunk whose fate is unknown (a dropped connection) is never sent twice (field notes
 * 4.5: re-sending a chunk could duplicate rows). The load pipeline reads each range with positioned reads
 * into a few reused buffers (`ReadPool` in pipeline.ts) right after it was planned, from the page cache.
 *
 * Pure: no `vscode`, no file system (the source is any async iterable of bytes).
 */

/** A UTF-8 byte-order mark. */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Options of `planChunks`. */
export interface ChunkPlanOptions {
  /** A chunk ends at the first record end after this many bytes (it is longer when a record is). Must be > 0. */
  chunkBytes: number;
  /** The enclosing character (format `csv`, seed 2.2): newlines between a pair of them are inside a field. Omit or '' for none (format `delimited`). */
  quote?: string;
  /** The escape character (format `delimited`): the byte after it is literal, so an escaped newline is not a record end. */
  escape?: string;
  /** The first record is a header row: it is reported once as `header` and left out of the chunks. */
  headerRow?: boolean;
}

/** A half-open byte range `[start, end)` of the source. */
export interface ByteRange {
  start: number;
  end: number;
}

/** One planned chunk: a byte range holding whole records. */
export interface ChunkRange extends ByteRange {
  /** 1-based chunk number (`X-ts-chunk-id`, field notes 4.2). */
  index: number;
  /** Records in the range (blank lines included: the service skips them). */
  records: number;
}

/** What `planChunks` yields: first, once, the layout (BOM and header row), then the chunks in order. */
export type PlanItem = { kind: 'layout'; bomBytes: number; header?: ByteRange } | ({ kind: 'chunk' } & ChunkRange);

const NL = 0x0a;

/**
 * Tracks the quote and escape state across buffers and finds record ends. A record ends at `\n` outside
 * an enclosed field (a `\r` before it belongs to the record end; CRLF files are cut after the `\n`).
 * A doubled enclosing character (`""` inside a field) flips the state twice, so it needs no special case.
 */
export class RecordBoundaryScanner {
  private inQuote = false;
  private escaped = false;
  private readonly q: number;
  private readonly esc: number;
  /** The buffer last scanned and the index of its next enclosing character at or after the scan position (-1: none left, -2: not looked for yet). */
  private buf: Buffer | undefined;
  private nextQ = -2;

  constructor(quote?: string, escape?: string) {
    this.q = quote && quote.length === 1 ? quote.charCodeAt(0) : -1;
    this.esc = escape && escape.length === 1 && this.q < 0 ? escape.charCodeAt(0) : -1;
  }

  /** True when the bytes so far end inside an enclosed field. */
  get insideField(): boolean {
    return this.inQuote;
  }

  /**
   * Index of the first record end (`\n`) in `b[from, b.length)`, or -1 when there is none (the state
   * then covers all of `b`). Calls must cover the source's bytes in order, each byte once.
   */
  nextRecordEnd(b: Buffer, from: number): number {
    if (this.q < 0 && this.esc < 0) return b.indexOf(NL, from);
    if (this.esc >= 0) {
      for (let i = from; i < b.length; i++) {
        const c = b[i];
        if (this.escaped) this.escaped = false;
        else if (c === this.esc) this.escaped = true;
        else if (c === NL) return i;
      }
      return -1;
    }
    if (b !== this.buf) {
      this.buf = b;
      this.nextQ = -2;
    }
    let pos = from;
    for (;;) {
      const nl = b.indexOf(NL, pos);
      const stop = nl < 0 ? b.length : nl;
      // the next enclosing character at or after pos, found once per buffer position (no rescans per line)
      if (this.nextQ !== -1 && this.nextQ < pos) this.nextQ = b.indexOf(this.q, pos);
      while (this.nextQ >= 0 && this.nextQ < stop) {
        this.inQuote = !this.inQuote;
        this.nextQ = b.indexOf(this.q, this.nextQ + 1);
      }
      if (nl < 0) return -1;
      if (!this.inQuote) return nl;
      pos = nl + 1;
    }
  }
}

/**
 * Plans the chunks of `source`. Yields `{ kind: 'layout' }` once (as soon as the BOM and the header row
 * are known), then one `{ kind: 'chunk' }` per chunk. A final record without a newline ends the last
 * chunk. Empty input, or input holding only a BOM and a header, yields no chunk. Reads the source lazily:
 * the consumer can upload a chunk before the next one is planned.
 * @throws RangeError when `chunkBytes` is not a positive number.
 */
export async function* planChunks(source: AsyncIterable<Uint8Array>, opts: ChunkPlanOptions): AsyncGenerator<PlanItem> {
  if (!(opts.chunkBytes > 0)) throw new RangeError(`chunkBytes must be a positive number of bytes, got ${opts.chunkBytes}`);
  const scanner = new RecordBoundaryScanner(opts.quote, opts.escape);
  let offset = 0; // file offset of the start of the current buffer
  let first = true;
  let bomBytes = 0;
  let headerPending = !!opts.headerRow;
  let header: ByteRange | undefined;
  let layoutSent = false;
  let chunkStart = -1;
  let records = 0;
  let index = 0;
  let lastByte = -1;
  /** Bytes of a BOM split over the first buffers (rare: tiny reads). */
  let head = Buffer.alloc(0);

  for await (const raw of source) {
    let b = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (b.length === 0) continue;
    if (first) {
      if (head.length + b.length < 3 && UTF8_BOM.subarray(0, head.length + b.length).equals(Buffer.concat([head, b]))) {
        head = Buffer.concat([head, b]);
        continue;
      }
      if (head.length) b = Buffer.concat([head, b]);
      first = false;
      if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) bomBytes = 3;
    }
    let pos = offset === 0 ? bomBytes : 0;
    while (pos < b.length) {
      if (headerPending) {
        const end = scanner.nextRecordEnd(b, pos);
        if (end < 0) break;
        header = { start: bomBytes, end: offset + end + 1 };
        headerPending = false;
        pos = end + 1;
        continue;
      }
      if (!layoutSent) {
        layoutSent = true;
        yield { kind: 'layout', bomBytes, ...(header ? { header } : {}) };
      }
      if (chunkStart < 0) chunkStart = offset + pos;
      // skip ahead to where this chunk may end, scanning the state up to there
      const mayEndAt = chunkStart + opts.chunkBytes - 1 - offset;
      let from = pos;
      while (from < b.length) {
        const end = scanner.nextRecordEnd(b, from);
        if (end < 0) {
          from = b.length;
          break;
        }
        records++;
        from = end + 1;
        if (end >= mayEndAt) {
          index++;
          yield { kind: 'chunk', index, start: chunkStart, end: offset + end + 1, records };
          chunkStart = -1;
          records = 0;
          break;
        }
      }
      pos = from;
    }
    lastByte = b[b.length - 1];
    offset += b.length;
  }
  if (first && head.length) {
    // a source shorter than a BOM
    offset = head.length;
    bomBytes = UTF8_BOM.subarray(0, 3).equals(head) ? 3 : 0;
    lastByte = head[head.length - 1];
  }
  if (headerPending && offset > bomBytes) {
    // the whole input is the header (no newline after it)
    header = { start: bomBytes, end: offset };
  }
  if (!layoutSent) yield { kind: 'layout', bomBytes, ...(header ? { header } : {}) };
  if (chunkStart >= 0 && chunkStart < offset) {
    if (lastByte !== NL) records++;
    index++;
    yield { kind: 'chunk', index, start: chunkStart, end: offset, records };
  }
}
