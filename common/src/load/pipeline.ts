/**
 * One load cycle of a CSV file into an existing table (seed 3 "Order of operations for one cycle"):
 * StartLoad, the file streamed in chunks cut at record boundaries (`chunker.ts`), CommitLoad, then the
 * status polled with backoff until DONE or a failure. Either every good row is committed, or the cycle is
 * aborted (AbortLoad) and the table is as it was.
 *
 * Faults (issue "Load CSV into table"):
 * - a dropped connection or any failure before the commit → AbortLoad is attempted and `LoadError`
 *   says the table was not changed; nothing is committed;
 * - 401 on a chunk → the service refused that chunk before taking it (seed 7 "Unable to verify user"),
 *   so after a new login the same chunk (re-read from the file) is sent once more; a chunk whose fate is
 *   unknown (dropped connection) is never sent again (field notes 4.5);
 * - `node_address` → `common/src/api` sends the cycle's calls to that node after a login there (field notes 4.4);
 * - a failed or timed-out CommitLoad → the status is read to learn what happened: still INGESTING
 *   means the commit never took effect (the cycle is aborted, or committed again after a 401), otherwise
 *   the status is polled to its end before anything is reported;
 * - 403 → `LoadError` of kind `permission`, naming the privilege loads need (seed 5).
 *
 * No `vscode` here: the extension, tests and benchmarks run it the same way.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  AuthenticationError,
  ConnectionError,
  LoadFailedError,
  PermissionError,
  ServiceError,
  type AnalyticsServiceClient,
  type LoadDefinition,
  type LoadStatus,
} from '../api';
import { planChunks, type ByteRange } from './chunker';
import { fullFormat } from './values';

/** Default bytes per chunk (setting `tsq.load.chunkSize`): 16 MiB. */
export const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

/** Progress of a load, reported while chunks are uploaded and while the commit is polled. */
export interface LoadProgress {
  phase: 'starting' | 'uploading' | 'committing' | 'done';
  /** Bytes of the file sent so far (header rows repeated per chunk not counted). */
  bytesSent: number;
  /** Size of the file in bytes. */
  bytesTotal: number;
  /** Records in the chunks fully uploaded so far. */
  rows: number;
  /** Chunks fully uploaded. */
  chunks: number;
  /** Upload rate so far in bytes per second. */
  bytesPerSecond: number;
  cycleId?: string;
}

/** Options of `runLoad`. */
export interface RunLoadOptions {
  /** Bytes per chunk (cut at the next record end); default `DEFAULT_CHUNK_BYTES`. */
  chunkBytes?: number;
  /** The file's encoding (a WHATWG label); other than UTF-8, each chunk is sent re-encoded as UTF-8. Default utf-8. */
  encoding?: string;
  /** Cancels the load while it uploads: the cycle is aborted. Ignored once CommitLoad was sent (a commit cannot be taken back). */
  signal?: AbortSignal;
  /** Called at most every `progressIntervalMs` while uploading, and at each phase change. */
  onProgress?: (p: LoadProgress) => void;
  /**
   * Default 500 ms. Each report crosses to the workbench and repaints the progress notification: in the
   * load benchmark (2 cores), reports after every chunk as well (about 14 a second) took about 30% of
   * the 1 GB upload's time, the workbench's renderer taking the CPU the service needed.
   */
  progressIntervalMs?: number;
  /** One line per step (StartLoad, each chunk, commit, each status, abort), with the cycle id. */
  log?: (line: string) => void;
  /** First wait between status polls in ms (default 250); the wait grows ×1.5 up to `maxPollIntervalMs` (default 5000). */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** How long CommitLoad may take before its answer is given up on and the status asked instead (default 120 000 ms). */
  commitTimeoutMs?: number;
}

/** What a successful load reports. */
export interface LoadResult {
  cycleId: string;
  status: LoadStatus;
  rowsWritten: number;
  ignoredRows: number;
  chunks: number;
  /** Bytes of the file sent (without repeated headers and multipart envelopes). */
  bytes: number;
  /** Wall time of the whole cycle in ms. */
  ms: number;
  /** Wall time of the upload (first chunk sent to last chunk answered) in ms. */
  uploadMs: number;
}

/** Why a load did not succeed. */
export type LoadErrorKind = 'cancelled' | 'connection' | 'permission' | 'authentication' | 'refused' | 'failed' | 'source' | 'unknown';

/** A load that did not succeed, with what it means for the table. */
export class LoadError extends Error {
  constructor(
    readonly kind: LoadErrorKind,
    message: string,
    /** True when the table is known to be as it was (the cycle was aborted, refused or failed without writing). */
    readonly tableUnchanged: boolean,
    readonly cycleId?: string,
    /** The final status when the service reported one (a failed load: ignored rows, parsing errors). */
    readonly status?: LoadStatus,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LoadError';
  }
}

/** `database.schema.table` of a load definition's target (schema omitted when not given). */
export function targetName(def: LoadDefinition): string {
  return [def.target.database, def.target.schema, def.target.table].filter(Boolean).join('.');
}

/**
 * Loads `file` with `definition` through `client`.
 * @returns the result once the status says DONE with code OK.
 * @throws LoadError for every failure (its `kind`, `tableUnchanged` and the service's text in the message).
 */
export async function runLoad(client: AnalyticsServiceClient, file: string, definition: LoadDefinition, opts: RunLoadOptions = {}): Promise<LoadResult> {
  const log = opts.log ?? (() => undefined);
  const chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const encoding = new TextDecoder(opts.encoding ?? 'utf-8').encoding;
  const table = targetName(definition);
  const format = fullFormat(definition.format);
  const started = performance.now();
  const size = (await stat(file)).size;
  const progress: LoadProgress = { phase: 'starting', bytesSent: 0, bytesTotal: size, rows: 0, chunks: 0, bytesPerSecond: 0 };
  let lastReport = 0;
  let uploadStarted = 0;
  const report = (force = false) => {
    const now = performance.now();
    if (!force && now - lastReport < (opts.progressIntervalMs ?? 500)) return;
    lastReport = now;
    progress.bytesPerSecond = uploadStarted ? (progress.bytesSent / Math.max(1, now - uploadStarted)) * 1000 : 0;
    opts.onProgress?.({ ...progress });
  };
  report(true);
  if (opts.signal?.aborted) throw new LoadError('cancelled', `The load into ${table} was cancelled before it started; the table was not changed.`, true);

  log(`StartLoad into ${table} from ${basename(file)} (${size} bytes, chunks of ${chunkBytes} bytes, ${encoding})`);
  let cycleId: string;
  try {
    const started = await client.startLoad(definition, { signal: opts.signal });
    cycleId = started.cycleId;
    log(`cycle ${cycleId} started${started.nodeAddress ? ` on node ${started.nodeAddress.host}:${started.nodeAddress.port}` : ''}`);
  } catch (e) {
    throw describe(e, table, undefined, 'StartLoad', true);
  }
  progress.cycleId = cycleId;

  /** Aborts the cycle (errors logged, never thrown) and builds the error to throw. */
  const abortWith = async (error: LoadError): Promise<LoadError> => {
    try {
      const text = await client.abortLoad(cycleId, { signal: AbortSignal.timeout(15_000) });
      log(`AbortLoad of cycle ${cycleId}: ${text || 'done'}`);
      return error;
    } catch (e) {
      log(`AbortLoad of cycle ${cycleId} failed: ${messageOf(e)}`);
      // nothing was committed, so the table is still unchanged; the cycle expires on the service
      return new LoadError(error.kind, `${error.message} (AbortLoad failed too: ${messageOf(e)}; nothing was committed, so the table is unchanged.)`, error.tableUnchanged, cycleId, error.status, { cause: error.cause });
    }
  };

  // ---- upload ----
  const quote = format.type === 'csv' ? format.enclosing_character : '';
  const escape = format.type === 'delimited' ? format.escape_character : '';
  let header: Buffer | undefined;
  let bytesOfChunksDone = 0;
  try {
    const planned = planChunks(readBuffers(file, 1 << 20), { chunkBytes, quote, escape, headerRow: format.has_header_row })[Symbol.asyncIterator]();
    uploadStarted = performance.now();
    progress.phase = 'uploading';
    report(true);
    // The next chunk is planned (its records scanned) while this one uploads, not between two uploads:
    // the planner stays exactly one item ahead (it holds no data, only ranges).
    let next = planned.next();
    let pool = new ReadPool();
    try {
      for (;;) {
        const step = await next;
        if (step.done) break;
        const item = step.value;
        next = planned.next();
        // a planning error surfaces when `next` is awaited; until then it must not count as unhandled
        next.catch(() => undefined);
        if (item.kind === 'layout') {
          if (item.header) header = await readRange(file, item.header);
          if (item.bomBytes) log(`cycle ${cycleId}: the byte-order mark is not sent`);
          continue;
        }
        for (let attempt = 1; ; attempt++) {
          if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('cancelled');
          const body = chunkBody(file, item, header, encoding, pool, (n) => {
            progress.bytesSent = bytesOfChunksDone + n;
            report();
          });
          try {
            await client.uploadChunk(cycleId, body, { chunkId: item.index, signal: opts.signal, filename: basename(file), expectedBytes: item.end - item.start });
            break;
          } catch (e) {
            // the failed body may still sit in a socket: its buffers are not read into again
            pool = new ReadPool();
            if (e instanceof AuthenticationError && attempt === 1 && !opts.signal?.aborted) {
              // 401: the service did not take the chunk; the session logs in again before the next call
              log(`cycle ${cycleId}: chunk ${item.index} was refused with 401 (${e.serviceMessage}); logging in again and sending it again`);
              continue;
            }
            throw e;
          } finally {
            // a body the request stopped reading (a failure, a cancel) still holds its file handle: close it
            void body.return(undefined).catch(() => undefined);
          }
        }
        bytesOfChunksDone += item.end - item.start;
        progress.bytesSent = bytesOfChunksDone;
        progress.rows += item.records;
        progress.chunks = item.index;
        log(`cycle ${cycleId}: chunk ${item.index} uploaded (bytes ${item.start}–${item.end}, ${item.records} records)`);
        report(); // at most every progressIntervalMs, like the reads: each report repaints a notification
      }
    } finally {
      // closes the planner's file handle (after the item it may be planning) when the loop ended early
      void planned.return(undefined).catch(() => undefined);
    }
  } catch (e) {
    if (opts.signal?.aborted) {
      log(`cycle ${cycleId}: cancelled during the upload`);
      throw await abortWith(new LoadError('cancelled', `The load into ${table} was cancelled: cycle ${cycleId} was aborted and the table was not changed.`, true, cycleId, undefined, { cause: e }));
    }
    throw await abortWith(describe(e, table, cycleId, 'the upload', true));
  }
  const uploadMs = performance.now() - uploadStarted;
  if (progress.chunks === 0) {
    throw await abortWith(new LoadError('refused', `${basename(file)} holds no rows to load${format.has_header_row ? ' (only a header row)' : ''}; cycle ${cycleId} was aborted and ${table} was not changed.`, true, cycleId));
  }
  log(`cycle ${cycleId}: ${progress.chunks} chunks, ${bytesOfChunksDone} bytes uploaded in ${Math.round(uploadMs)} ms`);

  // ---- commit ----
  progress.phase = 'committing';
  report(true);
  const commitOnce = async (): Promise<void> => {
    const text = await client.commitLoad(cycleId, { signal: AbortSignal.timeout(opts.commitTimeoutMs ?? 120_000) });
    log(`CommitLoad of cycle ${cycleId}: ${text}`);
  };
  try {
    await commitOnce();
  } catch (e) {
    log(`CommitLoad of cycle ${cycleId} did not answer OK: ${messageOf(e)}; reading the status to learn what happened`);
    if (e instanceof PermissionError) throw await abortWith(describe(e, table, cycleId, 'CommitLoad', true));
    let stage: string | undefined;
    try {
      stage = (await readStatus(client, cycleId, log)).internalStage;
    } catch (s) {
      throw new LoadError('unknown', `CommitLoad of cycle ${cycleId} failed (${messageOf(e)}) and its status cannot be read (${messageOf(s)}): whether ${table} changed is unknown. Look at the table, or at the cycle's status later.`, false, cycleId, undefined, { cause: e });
    }
    if (stage === 'INGESTING' || stage === undefined) {
      if (e instanceof AuthenticationError) {
        log(`cycle ${cycleId} is still open: the commit was refused with 401 before it was taken; committing again after a new login`);
        try {
          await commitOnce();
        } catch (again) {
          throw await abortWith(describe(again, table, cycleId, 'CommitLoad', true));
        }
      } else {
        throw await abortWith(describe(e, table, cycleId, 'CommitLoad', true));
      }
    }
  }

  // ---- status ----
  let status: LoadStatus;
  try {
    status = await client.pollLoadStatus(cycleId, {
      intervalMs: opts.pollIntervalMs ?? 250,
      maxIntervalMs: opts.maxPollIntervalMs ?? 5000,
      onStatus: (s) => log(`status of cycle ${cycleId}: ${s.internalStage ?? '?'}${s.status.code ? ` ${s.status.code}` : ''}, ${s.rowsWritten} rows written, ${s.ignoredRowCount} ignored`),
    });
  } catch (e) {
    if (e instanceof LoadFailedError) {
      let failed: LoadStatus | undefined;
      try {
        failed = await client.loadStatus(cycleId);
      } catch {
        // the message is enough
      }
      throw new LoadError(
        'failed',
        `The load into ${table} failed (${e.loadCode}): ${e.serviceMessage || 'no reason given'}. Cycle ${cycleId} wrote no rows; the table was not changed.`,
        true,
        cycleId,
        failed,
        { cause: e },
      );
    }
    throw new LoadError('unknown', `The status of cycle ${cycleId} could not be read after the commit (${messageOf(e)}): whether ${table} changed is unknown.`, false, cycleId, undefined, { cause: e });
  }
  progress.phase = 'done';
  report(true);
  const result: LoadResult = {
    cycleId,
    status,
    rowsWritten: status.rowsWritten,
    ignoredRows: status.ignoredRowCount,
    chunks: progress.chunks,
    bytes: bytesOfChunksDone,
    ms: performance.now() - started,
    uploadMs,
  };
  log(`cycle ${cycleId} DONE: ${result.rowsWritten} rows written, ${result.ignoredRows} ignored, ${Math.round(result.ms)} ms`);
  return result;
}

/** Reads a status, once more after a short wait when the first read fails (a commit that timed out may still be busy). */
async function readStatus(client: AnalyticsServiceClient, cycleId: string, log: (l: string) => void): Promise<LoadStatus> {
  try {
    return await client.loadStatus(cycleId, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    log(`status of cycle ${cycleId} could not be read (${messageOf(e)}); trying once more`);
    await new Promise((r) => setTimeout(r, 1000));
    return client.loadStatus(cycleId, { signal: AbortSignal.timeout(30_000) });
  }
}

/**
 * The file's bytes in order, read into ONE reused buffer of `size` bytes: each yielded view is valid
 * until the next one is asked for. For the chunk planner, which is done with a buffer before it asks
 * for the next (unlike a chunk's body, whose buffers the socket may still hold), so that planning a
 * 1 GB file does not leave a gigabyte of 1 MiB buffers for the garbage collector.
 */
async function* readBuffers(file: string, size: number): AsyncGenerator<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, size, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** The bytes of a range of the file (the header row). */
async function readRange(file: string, range: ByteRange): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(range.end - range.start);
    const { bytesRead } = await fh.read(buf, 0, buf.length, range.start);
    const out = buf.subarray(0, bytesRead);
    return out.length && out[out.length - 1] !== 0x0a ? Buffer.concat([out, Buffer.from('\n')]) : out;
  } finally {
    await fh.close();
  }
}

/**
 * The body of one chunk: the header row (when the file has one: every chunk is a file of its own to the
 * service), then the range read from the file, re-encoded to UTF-8 when the file is not UTF-8.
 * `onBytes` gets the file bytes of the range read so far.
 */
async function* chunkBody(file: string, range: ByteRange, header: Buffer | undefined, encoding: string, pool: ReadPool, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  const decoder = encoding === 'utf-8' ? undefined : new TextDecoder(encoding);
  if (header) yield decoder ? Buffer.from(new TextDecoder(encoding).decode(header)) : header;
  const fh = await open(file, 'r');
  try {
    let n = 0;
    for (let pos = range.start; pos < range.end; ) {
      const buf = pool.next();
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, range.end - pos), pos);
      if (bytesRead === 0) break; // the file became shorter: the service sees fewer records
      pos += bytesRead;
      n += bytesRead;
      onBytes(n);
      yield decoder ? Buffer.from(decoder.decode(buf.subarray(0, bytesRead), { stream: true })) : buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
  if (decoder) {
    const rest = decoder.decode();
    if (rest) yield Buffer.from(rest);
  }
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
 * only the last, short piece of a range can still be queued, and `size` buffers in turn means it is
 * read into again `size` pieces later, after the body ended and the service answered. A body whose
 * upload failed may still be in a socket: the pipeline then takes a new pool (`runLoad`).
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

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A `LoadError` for a failure of `step`, for a person: what happened, what it means, what to do, the service's text. */
function describe(e: unknown, table: string, cycleId: string | undefined, step: string, unchanged: boolean): LoadError {
  if (e instanceof LoadError) return e;
  const cycle = cycleId ? ` Cycle ${cycleId} was aborted;` : '';
  const same = unchanged ? ' the table was not changed.' : '';
  if (e instanceof PermissionError) {
    return new LoadError(
      'permission',
      `The service refused ${step} into ${table}: the user lacks the privilege "Can manage data" (DATAMANAGEMENT) or administration (ADMINISTRATION) that loads need. Ask an administrator to grant it.${cycle}${same} Service: ${e.serviceMessage}`,
      unchanged,
      cycleId,
      undefined,
      { cause: e },
    );
  }
  if (e instanceof AuthenticationError) {
    return new LoadError('authentication', `The service could not verify the user during ${step} into ${table} (${e.serviceMessage}). Check the connection's user name and password.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  if (e instanceof ConnectionError) {
    return new LoadError('connection', `The connection to the service was lost during ${step} into ${table} (${e.message}).${cycle}${same} Nothing was committed; load the file again when the service can be reached.`, unchanged, cycleId, undefined, { cause: e });
  }
  if (e instanceof ServiceError) {
    return new LoadError('refused', `The service refused ${step} into ${table} (HTTP ${e.status}): ${e.serviceMessage || e.message}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  if ((e as { name?: string })?.name === 'ChunkSourceError' || (e as { code?: string })?.code?.startsWith?.('E')) {
    return new LoadError('source', `Reading the file failed during ${step} into ${table}: ${messageOf(e)}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  return new LoadError('unknown', `${step} into ${table} failed: ${messageOf(e)}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
}
