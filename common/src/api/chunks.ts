/**
 * Cuts a CSV byte stream into load chunks at record boundaries, streaming: each chunk is an async
 * iterable of the source's own buffers (the last one cut at the first record end after `chunkBytes`),
 * so nothing is held beyond one read buffer. Used by `AnalyticsServiceClient.loadCsv`.
 */

/** Options of `splitCsvChunks`. */
export interface SplitOptions {
  /** Bytes after which a chunk ends at the next record end (a newline outside quotes). Must be > 0. */
  chunkBytes: number;
  /** The first record is a header row: it is repeated at the head of every chunk (each chunk is a file of its own to the service). */
  headerRow?: boolean;
  /** The enclosing character (csv): newlines between a pair of them are inside a field and never cut. Omit for none. */
  quote?: string;
}

const NL = 0x0a;

/**
 * Splits `source` into chunks. Each yielded chunk must be consumed to its end before asking for the next.
 * Empty input yields no chunk; a source with only a header row yields no chunk.
 * @throws RangeError when `chunkBytes` is not a positive number.
 */
export async function* splitCsvChunks(source: AsyncIterable<Uint8Array | string>, opts: SplitOptions): AsyncGenerator<AsyncIterable<Buffer>> {
  if (!(opts.chunkBytes > 0)) throw new RangeError(`chunkBytes must be a positive number of bytes, got ${opts.chunkBytes}`);
  const it = source[Symbol.asyncIterator]();
  const q = opts.quote && opts.quote.length === 1 ? opts.quote.charCodeAt(0) : -1;
  let pending: Buffer | undefined;
  let done = false;
  let inQuote = false;

  const next = async (): Promise<Buffer | undefined> => {
    if (pending) {
      const p = pending;
      pending = undefined;
      return p;
    }
    while (!done) {
      const r = await it.next();
      if (r.done) {
        done = true;
        return undefined;
      }
      const b = typeof r.value === 'string' ? Buffer.from(r.value) : Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
      if (b.length) return b;
    }
    return undefined;
  };
  /** Flips the quote state for each enclosing character in b[from, to). */
  const scanQuotes = (b: Buffer, from: number, to: number): void => {
    if (q < 0) return;
    for (let i = b.indexOf(q, from); i >= 0 && i < to; i = b.indexOf(q, i + 1)) inQuote = !inQuote;
  };
  /** Index of the first record end at or after `from` (quote state kept), or -1 after scanning all of b. */
  const recordEnd = (b: Buffer, from: number): number => {
    let pos = from;
    for (;;) {
      const nl = b.indexOf(NL, pos);
      if (nl < 0) {
        scanQuotes(b, pos, b.length);
        return -1;
      }
      scanQuotes(b, pos, nl);
      if (!inQuote) return nl;
      pos = nl + 1;
    }
  };

  let header: Buffer | undefined;
  if (opts.headerRow) {
    const parts: Buffer[] = [];
    for (;;) {
      const b = await next();
      if (!b) break;
      const end = recordEnd(b, 0);
      if (end < 0) {
        parts.push(b);
        continue;
      }
      parts.push(b.subarray(0, end + 1));
      if (end + 1 < b.length) pending = b.subarray(end + 1);
      break;
    }
    header = Buffer.concat(parts);
    if (header.length && header[header.length - 1] !== NL) header = Buffer.concat([header, Buffer.from('\n')]);
  }

  for (;;) {
    const first = await next();
    if (!first) return;
    pending = first;
    inQuote = false;
    const chunk = async function* (): AsyncGenerator<Buffer> {
      if (header?.length) yield header;
      let sent = 0;
      for (;;) {
        const b = await next();
        if (!b) return;
        if (sent + b.length < opts.chunkBytes) {
          scanQuotes(b, 0, b.length);
          sent += b.length;
          yield b;
          continue;
        }
        const start = Math.max(0, opts.chunkBytes - 1 - sent);
        scanQuotes(b, 0, start);
        const end = recordEnd(b, start);
        if (end < 0) {
          sent += b.length;
          yield b;
          continue;
        }
        yield b.subarray(0, end + 1);
        if (end + 1 < b.length) pending = b.subarray(end + 1);
        return;
      }
    };
    yield chunk();
  }
}
