/**
 * Plans the chunks of a CSV load as byte ranges of the file, cut at record boundaries as
 * `recordBoundary.ts` defines them (the same definition the service's splitter uses), holding no more
 * than one read buffer of the file. Ranges, because a chunk is then re-readable: one refused with 401
 * (docs/service-interface.md §7) can be sent again after a new login, while one whose fate is unknown is
 * never sent twice (docs/service-notes.md §4.5). The pipeline reads each range with positioned reads
 * into reused buffers (`ReadPool` in source.ts). Pure: no `vscode`, no file system.
 */

import { RecordBoundaryScanner, type BoundaryFormat } from './recordBoundary';

const LF = 0x0a;

/** A UTF-8 byte-order mark. */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Options of `planChunks`. */
export interface ChunkPlanOptions {
  /** A chunk ends at the first record end after this many bytes (it is longer when a record is). Must be > 0. */
  chunkBytes: number;
  /** Where records end (the load definition's format; `recordBoundary.ts`). Its special characters must be ASCII. */
  format: BoundaryFormat;
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
  /** 1-based chunk number (`X-ts-chunk-id`, docs/service-notes.md §4.2). */
  index: number;
  /** Records in the range (blank lines included: the service skips them). */
  records: number;
}

/** What `planChunks` yields: first, once, the layout (BOM and header row), then the chunks in order. */
export type PlanItem = { kind: 'layout'; bomBytes: number; header?: ByteRange } | ({ kind: 'chunk' } & ChunkRange);

/**
 * The start of a source: while fewer than 3 bytes came and they could be a UTF-8 BOM, `more` with the
 * bytes so far in `head`; then the first buffer (`head` joined to `b`) and its BOM's length (0 or 3).
 * Only the source's first bytes can be a BOM: one at the start of a field is data.
 */
function sourceStart(head: Buffer, b: Buffer): { more: true; head: Buffer } | { more: false; bytes: Buffer; bomBytes: number } {
  if (head.length + b.length < 3 && UTF8_BOM.subarray(0, head.length + b.length).equals(Buffer.concat([head, b]))) return { more: true, head: Buffer.concat([head, b]) };
  const bytes = head.length ? Buffer.concat([head, b]) : b;
  return { more: false, bytes, bomBytes: bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0 };
}

/**
 * Plans the chunks of `source`. Yields `{ kind: 'layout' }` once (as soon as the BOM and the header row
 * are known), then one `{ kind: 'chunk' }` per chunk. A final record without a line break ends the last
 * chunk. Empty input, or input holding only a BOM and a header, yields no chunk. Reads the source lazily:
 * the consumer can upload a chunk before the next one is planned.
 * @throws RangeError when `chunkBytes` is not a positive number, or a special character of the format is not ASCII.
 */
export async function* planChunks(source: AsyncIterable<Uint8Array>, opts: ChunkPlanOptions): AsyncGenerator<PlanItem> {
  if (!(opts.chunkBytes > 0)) throw new RangeError(`chunkBytes must be a positive number of bytes, got ${opts.chunkBytes}`);
  const scanner = new RecordBoundaryScanner(opts.format);
  if (!scanner.byteSafe) throw new RangeError('the field separator, enclosing and escape characters must be ASCII characters to cut the file into chunks');
  let offset = 0; // file offset of the start of the current buffer
  let first = true;
  let bomBytes = 0;
  let headerPending = !!opts.headerRow;
  let header: ByteRange | undefined;
  let layoutSent = false;
  let chunkStart = -1, records = 0, index = 0;
  /** True when the last record end seen is the end of the bytes so far (nothing of a next record yet). */
  let atRecordEnd = true;
  /** Bytes of a BOM split over the first buffers (rare: tiny reads). */
  let head: Buffer = Buffer.alloc(0);

  for await (const raw of source) {
    let b: Buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (b.length === 0) continue;
    if (first) {
      const start = sourceStart(head, b);
      if (start.more) {
        head = start.head;
        continue;
      }
      ({ bytes: b, bomBytes } = start);
      first = false;
    }
    let pos = offset === 0 ? bomBytes : 0;
    while (pos < b.length) {
      if (headerPending) {
        const end = scanner.scanBytes(b, pos);
        if (end < 0) break;
        header = { start: bomBytes, end: offset + end };
        headerPending = false;
        pos = end;
        continue;
      }
      if (!layoutSent) {
        layoutSent = true;
        yield { kind: 'layout', bomBytes, ...(header ? { header } : {}) };
      }
      if (chunkStart < 0) chunkStart = offset + pos;
      // record ends up to where this chunk may end, then the first one after
      const mayEndAt = chunkStart + opts.chunkBytes - offset;
      let from = pos;
      atRecordEnd = false;
      // the first LF from which the chunk may end (searched once per chunk and buffer)
      const lf = b.indexOf(LF, Math.max(from, mayEndAt - 1));
      while (from < b.length) {
        // plain bytes (no enclosing, CR or escape character) up to that LF, or to the end of the buffer:
        // their records are counted at once
        const to = lf < 0 ? b.length : lf + 1;
        const plain = from < to ? scanner.countPlain(b, from, to) : -1;
        if (plain >= 0) {
          records += plain;
          from = to;
          atRecordEnd = to === b.length && b[to - 1] === LF;
          if (lf >= 0) {
            yield { kind: 'chunk', index: ++index, start: chunkStart, end: offset + to, records };
            chunkStart = -1;
            records = 0;
            break;
          }
          continue;
        }
        const end = scanner.scanBytes(b, from);
        if (end < 0) {
          from = b.length;
          break;
        }
        records++;
        from = end;
        atRecordEnd = end === b.length;
        if (end >= mayEndAt) {
          yield { kind: 'chunk', index: ++index, start: chunkStart, end: offset + end, records };
          chunkStart = -1;
          records = 0;
          break;
        }
      }
      pos = from;
    }
    offset += b.length;
  }
  if (first && head.length) {
    // a source shorter than a BOM
    offset = head.length;
    bomBytes = UTF8_BOM.subarray(0, 3).equals(head) ? 3 : 0;
    atRecordEnd = offset === bomBytes;
  }
  if (headerPending && offset > bomBytes) {
    // the whole input is the header (no line break after it, or a CR as its last byte)
    header = { start: bomBytes, end: offset };
  }
  if (!layoutSent) yield { kind: 'layout', bomBytes, ...(header ? { header } : {}) };
  if (chunkStart >= 0 && chunkStart < offset) {
    if (!atRecordEnd) records++;
    yield { kind: 'chunk', index: index + 1, start: chunkStart, end: offset, records };
  }
}
