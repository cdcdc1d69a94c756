/**
 * Where the load pipeline's bytes come from: a file (read by positioned reads, so a chunk can be read
 * again), bytes in memory, or a stream (each planned chunk's bytes are kept until it was uploaded, so a
 * chunk the service refused with 401 can still be sent again). The pipeline plans chunk ranges over
 * `scan()` and reads each chunk's body with `body()`.
 *
 * No `vscode` here.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ByteRange } from './chunker';

/**
 * What `runLoad` loads: a file path, a file already open (`handle`: read by positioned reads, never
 * reopened by path, and not closed by the load: its opener closes it; `name` is the file's base name), bytes
 * in memory, or a stream of bytes. A handle is for a file that was checked once opened (`load_csv`,
 * common/src/load/roots.ts), so that the bytes loaded are those of the file checked.
 */
export type LoadInput = string | { path: string } | { handle: FileHandle; name: string } | { data: Uint8Array | string; name?: string } | { stream: AsyncIterable<Uint8Array>; name?: string };

/** The bytes of a load, for the planner and for the chunks' bodies. */
export interface ChunkSource {
  /** A name for logs and the upload's form part (the file's base name). */
  readonly name: string;
  /** Size in bytes when known before reading (files and bytes in memory). */
  readonly size: number | undefined;
  /** The bytes in order, once; each yielded view is valid until the next is asked for. */
  scan(): AsyncIterable<Uint8Array>;
  /**
   * The bytes of `range` (already planned), in pieces; may be called again for the same range until `release`.
   * `onBytes` gets the bytes read so far. `slot` (default 0) names the upload the body is for: bodies of
   * different slots never share read buffers, so two uploads may be in flight at once (one per slot) as long
   * as a slot's next body starts only after its previous one was answered (see `ReadPool`).
   */
  body(range: ByteRange, onBytes: (n: number) => void, slot?: number): AsyncGenerator<Buffer>;
  /** The bytes before `end` will not be asked for again. */
  release(end: number): void;
  /** A body of `slot` (default 0) was cut short (it may still sit in a socket): do not read into its buffers again. */
  abandon(slot?: number): void;
}

/** Opens a `LoadInput` as a `ChunkSource`. @throws the file system's error when a file cannot be read. */
export async function openSource(input: LoadInput): Promise<ChunkSource> {
  if (typeof input === 'string' || 'path' in input) {
    const path = typeof input === 'string' ? input : input.path;
    const size = (await stat(path)).size;
    return new FileSource(basename(path), size, async () => {
      const fh = await open(path, 'r');
      return { fh, done: () => fh.close() };
    });
  }
  if ('handle' in input) {
    const fh = input.handle;
    return new FileSource(basename(input.name), (await fh.stat()).size, () => Promise.resolve({ fh, done: () => Promise.resolve() }));
  }
  if ('data' in input) {
    const data = typeof input.data === 'string' ? Buffer.from(input.data) : Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength);
    return new MemorySource(data, input.name ?? 'data.csv');
  }
  return new StreamSource(input.stream, input.name ?? 'data.csv');
}

/**
 * A few read buffers used in turn for the chunks' bodies, so that uploading a file allocates no
 * buffer per read. Why: every fresh 1 MiB buffer is memory outside the JS heap, and each ~64 MB of it
 * makes V8 run a full mark-compact of the whole heap — in the extension host, the heap of every
 * extension. Loading 1 GB in the extension host (test/bench/load.bench.ts), its GC threads used
 * about 3.5 s of CPU, as much as its main thread, on a machine whose 2 cores the service shared, and
 * its RSS grew by ~90 MB; with the pool, 0.3 s and ~23 MB, and the upload rate rose by 15–40%.
 *
 * When a buffer may be read into again: the HTTP client pulls the next piece of a body only once the
 * socket took the previous one below its high-water mark (16 KiB; undici `writeIterable` waits for
 * 'drain' otherwise), so a full 1 MiB piece has left the process before the next piece is read;
 * only the last, short piece of a range can still be queued. A body reads one piece ahead (the next
 * piece while this one is sent), so at most two buffers of a pool are in use, and `size` (4) buffers in
 * turn means a buffer is read into again `size` pieces later: after the socket took it, or, for the last
 * piece of a range, after the body ended and the service answered. A body whose
 * upload failed may still be in a socket: the source then takes a new pool (`abandon`). The pipeline
 * uploads the next chunk while the previous one's answer is awaited: the two bodies then sit in two
 * sockets, and the drain of one says nothing about the other, so each upload slot has a pool of its own
 * and a slot's next body starts only after its previous one was answered.
 */
export class ReadPool {
  private readonly buffers: Buffer[];
  private i = 0;
  constructor(count = 4, bytes = 1 << 20) {
    this.buffers = Array.from({ length: count }, () => Buffer.allocUnsafe(bytes));
  }

  /** The buffer to read into next. */
  next(): Buffer {
    const b = this.buffers[this.i]!;
    this.i = (this.i + 1) % this.buffers.length;
    return b;
  }
}

/**
 * A file, read by positioned reads only (so that one handle may serve the planner and two bodies at once).
 * `acquire` gives a handle for one scan or body and `done` to call after it: a file given by path is
 * opened for each, a file given as a handle is shared and stays open.
 */
class FileSource implements ChunkSource {
  /** One pool per upload slot, made when the slot is first used. */
  private readonly pools: ReadPool[] = [];
  constructor(
    readonly name: string,
    readonly size: number,
    private readonly acquire: () => Promise<{ fh: FileHandle; done: () => Promise<void> }>,
  ) {}

  /**
   * The file's bytes in order, read into ONE reused buffer: for the chunk planner, which is done with a
   * buffer before it asks for the next (unlike a chunk's body, whose buffers the socket may still hold),
   * so that planning a 1 GB file does not leave a gigabyte of 1 MiB buffers for the garbage collector.
   */
  async *scan(): AsyncGenerator<Uint8Array> {
    const { fh, done } = await this.acquire();
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let pos = 0; ; ) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) return;
        pos += bytesRead;
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await done();
    }
  }

  /**
   * The range in pieces of one read buffer; the next piece is read while this one is sent (a read is a
   * round trip to libuv's thread pool, and without it the socket could run dry while the next piece is
   * read, the service waiting for bytes).
   */
  async *body(range: ByteRange, onBytes: (n: number) => void, slot = 0): AsyncGenerator<Buffer> {
    const pool = (this.pools[slot] ??= new ReadPool());
    const { fh, done } = await this.acquire();
    const readAt = (pos: number) => {
      const buf = pool.next();
      const read = fh.read(buf, 0, Math.min(buf.length, range.end - pos), pos).then(({ bytesRead }) => buf.subarray(0, bytesRead));
      read.catch(() => undefined); // awaited below (or in `finally`); until then a failure must not count as unhandled
      return read;
    };
    let next = range.start < range.end ? readAt(range.start) : undefined;
    try {
      let n = 0;
      for (let pos = range.start; next; ) {
        const piece = await next;
        next = undefined;
        if (piece.length === 0) break; // the file became shorter: the service sees fewer records
        pos += piece.length;
        if (pos < range.end) next = readAt(pos);
        n += piece.length;
        onBytes(n);
        yield piece;
      }
    } finally {
      // a read still under way (the body was cut short) ends before its file handle is closed
      await next?.catch(() => undefined);
      await done();
    }
  }

  release(): void {}

  abandon(slot = 0): void {
    this.pools[slot] = new ReadPool();
  }
}

/** Bytes in memory. */
class MemorySource implements ChunkSource {
  readonly size: number;
  constructor(
    private readonly data: Buffer,
    readonly name: string,
  ) {
    this.size = data.length;
  }
  async *scan(): AsyncGenerator<Uint8Array> {
    for (let pos = 0; pos < this.data.length; pos += 1 << 20) yield this.data.subarray(pos, pos + (1 << 20));
  }
  async *body(range: ByteRange, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
    const b = this.data.subarray(range.start, range.end);
    onBytes(b.length);
    yield b;
  }
  release(): void {}
  abandon(): void {}
}

/**
 * A stream read once: the bytes the planner has seen are kept (copied) until `release`, so that at most
 * the chunks planned but not yet answered are held in memory: three (two uploads in flight, and the
 * pipeline plans one ahead), 48 MiB with the default 16 MiB chunks.
 */
class StreamSource implements ChunkSource {
  readonly size = undefined;
  /** Kept pieces in order; `start` is the offset of the first. */
  private held: Buffer[] = [];
  private heldStart = 0;
  constructor(
    private readonly stream: AsyncIterable<Uint8Array>,
    readonly name: string,
  ) {}

  async *scan(): AsyncGenerator<Uint8Array> {
    const it = this.stream[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<Uint8Array | string>;
      try {
        r = await it.next();
      } catch (e) {
        throw new SourceReadError(this.name, e);
      }
      if (r.done) return;
      const b = Buffer.from(r.value); // a copy: the stream may reuse its buffer
      if (b.length === 0) continue;
      this.held.push(b);
      yield b;
    }
  }

  async *body(range: ByteRange, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
    let pos = this.heldStart;
    let n = 0;
    for (const b of this.held) {
      const from = Math.max(range.start, pos);
      const to = Math.min(range.end, pos + b.length);
      if (to > from) {
        n += to - from;
        onBytes(n);
        yield b.subarray(from - pos, to - pos);
      }
      pos += b.length;
      if (pos >= range.end) return;
    }
  }

  release(end: number): void {
    while (this.held.length && this.heldStart + this.held[0]!.length <= end) this.heldStart += this.held.shift()!.length;
  }

  abandon(): void {}
}

/**
 * The body of one chunk as the service gets it: the header row first (when the file has one: every chunk
 * is a file of its own to the service), then the range's bytes, re-encoded to UTF-8 when the file is in
 * another encoding. Decoding is strict: a byte sequence that is not valid in `encoding` throws a
 * `SourceEncodingError` (never a U+FFFD sent as data).
 */
export async function* chunkBody(source: ChunkSource, range: ByteRange, header: Buffer | undefined, encoding: string, onBytes: (n: number) => void, slot = 0): AsyncGenerator<Buffer> {
  if (encoding === 'utf-8') {
    if (header) yield header;
    yield* source.body(range, onBytes, slot);
    return;
  }
  const strict = (bytes: Uint8Array, decoder: InstanceType<typeof TextDecoder>, stream: boolean): Buffer => {
    try {
      return Buffer.from(decoder.decode(bytes, { stream }));
    } catch (e) {
      throw new SourceEncodingError(encoding, range, { cause: e });
    }
  };
  if (header) yield strict(header, new TextDecoder(encoding, { fatal: true }), false);
  const decoder = new TextDecoder(encoding, { fatal: true });
  for await (const piece of source.body(range, onBytes, slot)) yield strict(piece, decoder, true);
  const rest = strict(new Uint8Array(0), decoder, false);
  if (rest.length) yield rest;
}

/** Bytes of the file that are not valid in its encoding (a multi-byte legacy encoding); the load is stopped before the commit. */
export class SourceEncodingError extends Error {
  constructor(
    readonly encoding: string,
    readonly range: ByteRange,
    options?: { cause?: unknown },
  ) {
    super(`bytes ${range.start}–${range.end} of the file are not valid ${encoding}`, options);
    this.name = 'SourceEncodingError';
  }
}

/** The bytes of a small range (the header row), with a line break added when it has none. */
export async function readHeader(source: ChunkSource, range: ByteRange): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of source.body(range, () => undefined)) parts.push(Buffer.from(b));
  const out = Buffer.concat(parts);
  const last = out[out.length - 1];
  return out.length && last !== 0x0a && last !== 0x0d ? Buffer.concat([out, Buffer.from('\n')]) : out;
}

/** Reading the source failed (the stream's error is the cause): the upload stops and the cycle is aborted. */
export class SourceReadError extends Error {
  constructor(name: string, cause: unknown) {
    super(`reading ${name} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'SourceReadError';
  }
}
