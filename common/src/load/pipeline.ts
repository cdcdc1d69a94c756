/**
 * The ONE load pipeline (the extension, `tsq load`, `load_csv`, the tests, the benchmarks): StartLoad, the file in
 * chunks cut at record boundaries (chunker.ts, recordBoundary.ts), CommitLoad, the status polled to DONE
 * (docs/service-interface.md §3). Every good row is committed, or the cycle is aborted and the table is
 * as it was. Two uploads are in flight: the next body goes out once the previous one was sent, its
 * answer still awaited, bodies in file order numbered by `X-ts-chunk-id` (docs/service-notes.md §4.2);
 * a failure of either cuts the other and settles as with one (test/emulator/load-inflight.test.ts).
 * Faults: 401 on StartLoad or on a chunk → login and send it once more; a chunk of unknown fate is never
 * re-sent (service-notes §4.5); any failure before the commit → AbortLoad, `LoadError`; a failed commit
 * → the status tells what happened; status reads retry with backoff (status.ts) and "unknown" comes only
 * after `unreachableMs`; `node_address` → that node (§4.4); 403 → `LoadError` of kind `permission`.
 */
import { AuthenticationError, ConnectionError, PermissionError, ServiceError } from '../api/errors';
import { UnapprovedNodeError, type LoadDefinition, type LoadStatus } from '../api/loadApi';
import type { AnalyticsServiceClient } from '../api/index';
import { planChunks, type ChunkRange, type PlanItem } from './chunker';
import { boundaryFormat } from './recordBoundary';
import { chunkBody, openSource, readHeader, SourceEncodingError, type ChunkSource, type LoadInput } from './source';
import { awaitOutcome, CycleFailedError, readStatusPatiently, DEFAULT_UNREACHABLE_MS, StatusUnreachableError } from './status';
import { Utf8Decoder } from './utf8';
import { fullFormat, type FullFormat } from './values';

export type { LoadInput } from './source';
export { LoadError, targetName, type InvalidBytes, type LoadErrorKind, type LoadPath, type LoadResult } from './result';
import { LoadError, targetName, type InvalidBytes, type LoadPath, type LoadResult } from './result';
import { runInputTableLoad, type InputTableChoice } from './inputTable';
import { memberOf } from '../guards';

/** Default bytes per chunk (setting `tsq.load.chunkSize`): 16 MiB. */
export const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

/** Progress of a load, reported while chunks are uploaded and while the commit is polled. */
export interface LoadProgress {
  phase: 'starting' | 'uploading' | 'committing' | 'done';
  /** Bytes of the file sent so far (header rows repeated per chunk not counted). */
  bytesSent: number;
  /** Size of the file in bytes (0 when the source is a stream of unknown length). */
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
  /** How long status reads may fail (service unreachable) after the commit before the load is reported unknown (default `DEFAULT_UNREACHABLE_MS`). */
  unreachableMs?: number;
  /** How the rows are written (`loadPathOf`): default input tables on a service that speaks REST API v2 only, else the data-load API. */
  via?: LoadPath;
  /** On the input-table path: which input table, or a new one (inputTable.ts). */
  inputTable?: InputTableChoice;
}

/**
 * The path of a load: `opts.via`; an input table when one is chosen (`opts.inputTable`), or when the
 * service speaks REST API v2 only and its data-load API (`/ts_dataservice/v1`, a Software cluster's:
 * Cloud has none) answers its `ping` 404 (`hasDataLoadApi`); else the data-load API.
 */
export async function loadPathOf(client: AnalyticsServiceClient, opts: Pick<RunLoadOptions, 'via' | 'inputTable' | 'signal'> = {}): Promise<LoadPath> {
  if (opts.via) return opts.via;
  if (opts.inputTable) return 'inputTable';
  if ((await client.apiGeneration(opts.signal)) !== 'v2') return 'dataLoad';
  try {
    return (await client.hasDataLoadApi({ signal: opts.signal })) ? 'dataLoad' : 'inputTable';
  } catch {
    // unreachable: the data-load path reports it as it always did
    return 'dataLoad';
  }
}

/**
 * Single-byte encodings: every byte is one character, so the ASCII separator, enclosing and escape
 * characters are found byte by byte. UTF-8 is safe too (bytes of its multi-byte sequences are ≥ 0x80).
 */
const SINGLE_BYTE = /^(windows-125\d|windows-874|iso-8859-\d+|koi8-[ru]|macintosh|ibm866|x-mac-cyrillic)$/;

/**
 * Why the file cannot be cut into chunks byte by byte in `encoding` with this format, or undefined when
 * it can. In the multi-byte legacy encodings (Shift_JIS, GBK, GB18030, Big5) the second byte of a
 * character may be any byte from 0x40 up, so a separator, enclosing or escape character from 0x40 up
 * (`|`, `\`, `@`…) could be part of a character; ISO-2022-JP switches modes with ASCII bytes.
 * EUC-JP and EUC-KR use bytes ≥ 0xA1 only.
 */
export function encodingProblem(encoding: string, format: FullFormat): string | undefined {
  const specials = [format.field_separator, format.type === 'csv' ? format.enclosing_character : format.escape_character].filter((c) => c);
  if (specials.some((c) => c.charCodeAt(0) >= 0x80)) return `the field separator, enclosing and escape characters must be ASCII characters (got ${specials.join(' ')})`;
  if (encoding === 'utf-8' || SINGLE_BYTE.test(encoding) || encoding === 'euc-jp' || encoding === 'euc-kr') return undefined;
  if (/^utf-(16|32)/.test(encoding) || encoding === 'iso-2022-jp') return `${encoding} files cannot be cut into chunks; save the file as UTF-8`;
  const risky = specials.filter((c) => c.charCodeAt(0) >= 0x40);
  return risky.length ? `in ${encoding} the character ${risky.join(' ')} can be the second byte of a two-byte character; save the file as UTF-8 or use a separator below 0x40 (comma, tab, semicolon)` : undefined;
}

/**
 * Loads `input` (a file path, bytes, or a stream) with `definition` through `client`, by the path
 * `loadPathOf` chooses: the data-load API's cycle, or an input table's update (inputTable.ts).
 * @returns the result once the status says DONE with code OK.
 * @throws LoadError for every failure (its `kind`, `tableUnchanged` and the service's text in the message).
 */
export async function runLoad(client: AnalyticsServiceClient, input: LoadInput, definition: LoadDefinition, opts: RunLoadOptions = {}): Promise<LoadResult> {
  if ((await loadPathOf(client, opts)) === 'inputTable') return runInputTableLoad(client, input, definition, opts);
  const run = new LoadRun(client, await openInput(input, definition), definition, opts);
  await run.start();
  await run.upload();
  await run.commit();
  return run.outcome();
}

async function openInput(input: LoadInput, definition: LoadDefinition): Promise<ChunkSource> {
  try {
    return await openSource(input);
  } catch (e) {
    throw new LoadError('source', `The file to load into ${targetName(definition)} cannot be read: ${messageOf(e)}. Nothing was sent; the table was not changed.`, true, undefined, undefined, { cause: e });
  }
}

/** The state of one `runLoad`, one method per step. */
class LoadRun {
  private readonly log: (line: string) => void;
  private readonly chunkBytes: number;
  private readonly encoding: string;
  private readonly table: string;
  private readonly format: FullFormat;
  private readonly started = performance.now();
  private readonly progress: LoadProgress;
  private lastReport = 0;
  private uploadStarted = 0;
  private uploadMs = 0;
  private bytesDone = 0;
  private cycleId = '';
  private header: Buffer | undefined;
  private invalid: InvalidBytes | undefined;

  constructor(
    private readonly client: AnalyticsServiceClient,
    private readonly source: ChunkSource,
    private readonly definition: LoadDefinition,
    private readonly opts: RunLoadOptions,
  ) {
    this.log = opts.log ?? (() => undefined);
    this.chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.encoding = new TextDecoder(opts.encoding ?? 'utf-8').encoding;
    this.table = targetName(definition);
    this.format = fullFormat(definition.format);
    this.progress = { phase: 'starting', bytesSent: 0, bytesTotal: source.size ?? 0, rows: 0, chunks: 0, bytesPerSecond: 0 };
  }

  private report(force = false): void {
    const now = performance.now();
    if (!force && now - this.lastReport < (this.opts.progressIntervalMs ?? 500)) return;
    this.lastReport = now;
    this.progress.bytesPerSecond = this.uploadStarted ? (this.progress.bytesSent / Math.max(1, now - this.uploadStarted)) * 1000 : 0;
    this.opts.onProgress?.({ ...this.progress });
  }

  /** Checks what can be checked before the service is asked, then StartLoad (once more after a 401: no cycle exists after a 401). */
  async start(): Promise<void> {
    const { table, opts } = this;
    this.report(true);
    if (opts.signal?.aborted) throw new LoadError('cancelled', `The load into ${table} was cancelled before it started; the table was not changed.`, true);
    const problem = encodingProblem(this.encoding, this.format);
    if (problem) throw new LoadError('source', `${this.source.name} cannot be loaded into ${table}: ${problem}. Nothing was sent; the table was not changed.`, true);
    if (!(this.chunkBytes > 0)) throw new LoadError('source', `The chunk size must be a positive number of bytes, not ${this.chunkBytes}. Nothing was sent; the table was not changed.`, true);
    this.log(`StartLoad into ${table} from ${this.source.name} (${this.source.size ?? 'unknown'} bytes, chunks of ${this.chunkBytes} bytes, ${this.encoding})`);
    for (let attempt = 1; ; attempt++) {
      try {
        const started = await this.client.startLoad(this.definition, { signal: opts.signal });
        this.cycleId = started.cycleId;
        this.log(`cycle ${this.cycleId} started${started.nodeAddress ? ` on node ${started.nodeAddress.host}:${started.nodeAddress.port}` : ''}`);
        break;
      } catch (e) {
        if (e instanceof UnapprovedNodeError) {
          // the cycle exists on the load origin: abort it there; nothing went to the node
          this.cycleId = e.cycleId;
          this.log(`cycle ${e.cycleId}: StartLoad named the node ${e.node}, on a host that is not approved; nothing is sent there`);
          throw await this.abortWith(new LoadError('refused', `${e.message} Cycle ${e.cycleId} was aborted and ${table} was not changed.`, true, e.cycleId, undefined, { cause: e }));
        }
        if (e instanceof AuthenticationError && attempt === 1 && !opts.signal?.aborted) {
          // the service refused StartLoad before creating a cycle: the session logs in again before the next call
          this.log(`StartLoad into ${table} was refused with 401 (${e.serviceMessage}); logging in again and starting once more`);
          continue;
        }
        throw describe(e, table, undefined, 'StartLoad', true);
      }
    }
    this.progress.cycleId = this.cycleId;
  }

  /** Sends AbortLoad for the cycle; returns undefined when it was aborted, else the failure (logged, never thrown). */
  private async tryAbort(): Promise<unknown> {
    const { cycleId } = this;
    try {
      const text = await this.client.abortLoad(cycleId, { signal: AbortSignal.timeout(15_000) });
      this.log(`AbortLoad of cycle ${cycleId}: ${text || 'done'}`);
      return undefined;
    } catch (e) {
      this.log(`AbortLoad of cycle ${cycleId} failed: ${messageOf(e)}`);
      return e ?? new Error('AbortLoad failed');
    }
  }

  /** Aborts the cycle (errors logged, never thrown) and returns the error to throw. */
  private async abortWith(error: LoadError): Promise<LoadError> {
    const failure = await this.tryAbort();
    if (failure === undefined) return error;
    // nothing was committed, so the table is still unchanged; the cycle expires on the service
    return new LoadError(error.kind, `${error.message} (AbortLoad failed too: ${messageOf(failure)}; nothing was committed, so the table is unchanged.)`, error.tableUnchanged, this.cycleId, error.status, { cause: error.cause });
  }

  /** The source's bytes for the planner, checked as UTF-8 on the way when the file is UTF-8. */
  private async *scanned(): AsyncGenerator<Uint8Array> {
    const checker = this.encoding === 'utf-8' ? new Utf8Decoder() : undefined;
    const note = (found: { byteOffset: number; byte: number }[]) => {
      if (!found.length) return;
      if (!this.invalid) {
        this.invalid = { count: 0, firstOffset: found[0]!.byteOffset, firstByte: found[0]!.byte };
        this.log(`cycle ${this.cycleId}: byte 0x${found[0]!.byte.toString(16).toUpperCase()} at file offset ${found[0]!.byteOffset} is not UTF-8; the service will refuse its record as a bad record`);
      }
      this.invalid.count += found.length;
    };
    for await (const b of this.source.scan()) {
      if (checker) note(checker.check(b, false));
      yield b;
    }
    if (checker) note(checker.check(new Uint8Array(0), true));
  }

  /**
   * Every chunk, planned one ahead of its upload, with up to two uploads in flight (see the module
   * comment); AbortLoad and a `LoadError` when anything fails.
   */
  async upload(): Promise<void> {
    const { cycleId, table, opts } = this;
    // cuts the other upload in flight when one fails (its fate no longer matters: the cycle is aborted)
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    const inFlight = new Set<Promise<void>>();
    try {
      const planned = planChunks(this.scanned(), { chunkBytes: this.chunkBytes, format: boundaryFormat(this.format), headerRow: this.format.has_header_row })[Symbol.asyncIterator]();
      this.uploadStarted = performance.now();
      this.progress.phase = 'uploading';
      this.report(true);
      // The next chunk is planned (its records scanned) while this one uploads, not between two uploads:
      // the planner stays exactly one item ahead (it holds no data, only ranges).
      let next = planned.next();
      /** The answer of the chunk before the one whose body is being sent. */
      let previous: Promise<void> | undefined;
      try {
        for (;;) {
          const step: IteratorResult<PlanItem> = await next;
          if (step.done) break;
          next = planned.next();
          // a planning error surfaces when `next` is awaited; until then it must not count as unhandled
          next.catch(() => undefined);
          const item = step.value;
          if (item.kind === 'layout') {
            await this.layout(item);
            continue;
          }
          const { sent, answered } = this.sendChunk(item, signal);
          inFlight.add(answered);
          // settled here or in the catch below; a failure must not count as unhandled meanwhile
          void answered.then(() => inFlight.delete(answered), () => undefined);
          // the next chunk starts once this body was handed over and the chunk before was answered; a
          // failure of either ends the wait at once
          const earlier = previous;
          await Promise.race([Promise.all([sent, earlier]), answered.then(() => earlier)]);
          previous = answered;
        }
        await previous;
      } finally {
        // closes the planner's file handle (after the item it may be planning) when the loop ended early
        void planned.return(undefined).catch(() => undefined);
      }
    } catch (e) {
      stop.abort();
      await Promise.allSettled(inFlight);
      if (opts.signal?.aborted) {
        this.log(`cycle ${cycleId}: cancelled during the upload`);
        throw await this.abortWith(new LoadError('cancelled', `The load into ${table} was cancelled: cycle ${cycleId} was aborted and the table was not changed.`, true, cycleId, undefined, { cause: e }));
      }
      throw await this.abortWith(describe(e, table, cycleId, 'the upload', true));
    }
    this.uploadMs = performance.now() - this.uploadStarted;
    if (this.progress.chunks === 0) {
      throw await this.abortWith(new LoadError('refused', `${this.source.name} holds no rows to load${this.format.has_header_row ? ' (only a header row)' : ''}; cycle ${cycleId} was aborted and ${table} was not changed.`, true, cycleId));
    }
    this.log(`cycle ${cycleId}: ${this.progress.chunks} chunks, ${this.bytesDone} bytes uploaded in ${Math.round(this.uploadMs)} ms`);
  }

  /** The layout item: the header row is read (it starts every chunk), the BOM noted. */
  private async layout(item: Extract<PlanItem, { kind: 'layout' }>): Promise<void> {
    if (item.header) this.header = await readHeader(this.source, item.header);
    if (item.bomBytes) this.log(`cycle ${this.cycleId}: the byte-order mark is not sent`);
  }

  /**
   * Uploads one chunk (once more after a 401) on upload slot `index % 2` (its own read buffers, `ReadPool`).
   * `sent` resolves once a body of the chunk was completely handed to the HTTP client (or the upload
   * settled); `answered` once the service took the chunk, and rejects with the failure otherwise.
   */
  private sendChunk(item: ChunkRange, signal: AbortSignal): { sent: Promise<void>; answered: Promise<void> } {
    const { cycleId } = this;
    const slot = item.index % 2;
    let markSent: () => void = () => undefined;
    const sent = new Promise<void>((resolve) => (markSent = resolve));
    const answered = (async () => {
      try {
        for (let attempt = 1; ; attempt++) {
          if (signal.aborted) throw signal.reason ?? new Error('cancelled');
          const body = withEnd(
            chunkBody(this.source, item, this.header, this.encoding, (n) => this.bodyProgress(item.index, n), slot),
            markSent,
          );
          try {
            await this.client.uploadChunk(cycleId, body, { chunkId: item.index, signal, filename: this.source.name, expectedBytes: item.end - item.start });
            break;
          } catch (e) {
            // the failed body may still sit in a socket: its buffers are not read into again
            this.source.abandon(slot);
            if (e instanceof AuthenticationError && attempt === 1 && !signal.aborted) {
              // 401: the service did not take the chunk; the session logs in again before the next call
              this.log(`cycle ${cycleId}: chunk ${item.index} was refused with 401 (${e.serviceMessage}); logging in again and sending it again`);
              continue;
            }
            throw e;
          } finally {
            // a body the request stopped reading (a failure, a cancel) still holds its file handle: close it
            void body.return(undefined).catch(() => undefined);
          }
        }
      } finally {
        markSent();
      }
      this.chunkDone(item);
    })();
    return { sent, answered };
  }

  /** Bytes of the chunks in flight read so far, by chunk index. */
  private readonly partial = new Map<number, number>();
  /** Ends of answered chunks not yet released to the source, by index; `released` chunks were released in order. */
  private readonly answeredEnds = new Map<number, number>();
  private released = 0;

  private bodyProgress(index: number, n: number): void {
    this.partial.set(index, n);
    this.progress.bytesSent = this.bytesSentNow();
    this.report();
  }

  /** Bytes of the answered chunks plus those read so far of the chunks in flight. */
  private bytesSentNow(): number {
    let inFlight = 0;
    for (const b of this.partial.values()) inFlight += b;
    return this.bytesDone + inFlight;
  }

  private chunkDone(item: ChunkRange): void {
    this.partial.delete(item.index);
    // a stream source keeps its bytes until released, and a chunk answered before the one ahead of it
    // (that one was refused with 401 and is sent again) must not release the bytes still to be re-sent
    this.answeredEnds.set(item.index, item.end);
    for (let end; (end = this.answeredEnds.get(this.released + 1)) !== undefined; this.released++) {
      this.answeredEnds.delete(this.released + 1);
      this.source.release(end);
    }
    this.bytesDone += item.end - item.start;
    // the other chunk in flight keeps its part: the figure never goes back while both upload
    this.progress.bytesSent = this.bytesSentNow();
    this.progress.rows += item.records;
    this.progress.chunks++;
    this.log(`cycle ${this.cycleId}: chunk ${item.index} uploaded (bytes ${item.start}–${item.end}, ${item.records} records)`);
    this.report(); // at most every progressIntervalMs, like the reads: each report repaints a notification
  }

  /**
   * CommitLoad; when its answer is not OK, the status says whether it took effect. A commit refused with 401
   * before it was taken is sent once more after a new login. Every failed attempt is followed by a status
   * read: a cut connection or a lost answer may hide a commit the service took, so the cycle is aborted
   * (and the table called unchanged) only while the status still shows it open.
   */
  async commit(): Promise<void> {
    const { cycleId, table } = this;
    this.progress.phase = 'committing';
    this.report(true);
    for (let attempt = 1; ; attempt++) {
      try {
        const text = await this.client.commitLoad(cycleId, { signal: AbortSignal.timeout(this.opts.commitTimeoutMs ?? 120_000) });
        this.log(`CommitLoad of cycle ${cycleId}: ${text}`);
        return;
      } catch (e) {
        this.log(`CommitLoad of cycle ${cycleId} did not answer OK: ${messageOf(e)}; reading the status to learn what happened`);
        if (e instanceof PermissionError) throw await this.abortWith(describe(e, table, cycleId, 'CommitLoad', true));
        if (await this.commitTaken(e)) return; // the commit was taken: the status tells the rest
        if (e instanceof AuthenticationError && attempt === 1) {
          this.log(`cycle ${cycleId} is still open: the commit was refused with 401 before it was taken; committing again after a new login`);
          continue;
        }
        const error = await this.abortAfterCommit(describe(e, table, cycleId, 'CommitLoad', true));
        if (error) throw error;
        return; // the abort came too late: the commit was taken after all, and the status tells the rest
      }
    }
  }

  /**
   * Whether the service took the cycle's commit (its stage is past INGESTING), from a patient status read.
   * @throws LoadError ('unknown') when the status cannot be read: whether the table changed is not known.
   */
  private async commitTaken(failure: unknown): Promise<boolean> {
    const { cycleId } = this;
    let stage: string | undefined;
    try {
      stage = (await readStatusPatiently(this.client, cycleId, this.statusOptions())).internalStage;
    } catch (s) {
      throw this.unknown(`CommitLoad of cycle ${cycleId} failed (${messageOf(failure)}) and its status cannot be read (${messageOf(s)})`, failure);
    }
    return stage !== 'INGESTING' && stage !== undefined;
  }

  /**
   * Aborts a cycle whose commit failed while the status showed it open. A CommitLoad whose connection was
   * cut may still be under way on the service, so when the abort is refused the status decides: still open
   * means nothing was committed (the error, table unchanged); past INGESTING means the commit was taken after
   * all, and undefined is returned so that the outcome is read as for any commit.
   * @throws LoadError ('unknown') when the status cannot be read after a failed abort.
   */
  private async abortAfterCommit(error: LoadError): Promise<LoadError | undefined> {
    const failure = await this.tryAbort();
    if (failure === undefined) return error;
    this.log(`cycle ${this.cycleId}: reading the status, since the commit may have been taken after all`);
    if (await this.commitTaken(error)) return undefined;
    return new LoadError(error.kind, `${error.message} (AbortLoad failed too: ${messageOf(failure)}; the cycle is still open and was never committed, so the table is unchanged.)`, true, this.cycleId, error.status, { cause: error.cause });
  }

  private statusOptions() {
    return {
      log: this.log,
      intervalMs: this.opts.pollIntervalMs ?? 250,
      maxIntervalMs: this.opts.maxPollIntervalMs ?? 5000,
      unreachableMs: this.opts.unreachableMs ?? DEFAULT_UNREACHABLE_MS,
    };
  }

  /** A load whose outcome is not known, naming the cycle to check later. */
  private unknown(what: string, cause: unknown): LoadError {
    return new LoadError(
      'unknown',
      `${what}: whether ${this.table} changed is unknown. Check cycle ${this.cycleId} later (command "TSQ: Check Load Status", cycle id ${this.cycleId}), or look at the table, before loading the file again.`,
      false,
      this.cycleId,
      undefined,
      { cause },
    );
  }

  /** Polls the status to its end and builds the result. */
  async outcome(): Promise<LoadResult> {
    const { cycleId, table } = this;
    let status: LoadStatus;
    try {
      status = await awaitOutcome(this.client, cycleId, this.statusOptions());
    } catch (e) {
      if (e instanceof CycleFailedError) {
        const st = e.status.status;
        throw new LoadError('failed', `The load into ${table} failed (${st.code}): ${st.message || 'no reason given'}. Cycle ${cycleId} wrote no rows; the table was not changed.`, true, cycleId, e.status, { cause: e });
      }
      if (e instanceof StatusUnreachableError) throw this.unknown(e.message, e);
      throw this.unknown(`The status of cycle ${cycleId} could not be read after the commit (${messageOf(e)})`, e);
    }
    this.progress.phase = 'done';
    this.report(true);
    const result: LoadResult = {
      via: 'dataLoad',
      cycleId,
      status,
      rowsWritten: status.rowsWritten,
      ignoredRows: status.ignoredRowCount,
      chunks: this.progress.chunks,
      bytes: this.bytesDone,
      ms: performance.now() - this.started,
      uploadMs: this.uploadMs,
      ...(this.invalid ? { invalidUtf8: this.invalid } : {}),
    };
    this.log(`cycle ${cycleId} DONE: ${result.rowsWritten} rows written, ${result.ignoredRows} ignored, ${Math.round(result.ms)} ms`);
    return result;
  }
}

/** `body`, then `onEnd()` once all of it was taken (not when it was cut short). */
async function* withEnd(body: AsyncGenerator<Buffer>, onEnd: () => void): AsyncGenerator<Buffer> {
  yield* body;
  onEnd();
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
    return new LoadError('authentication', `The service could not verify the user during ${step} into ${table}${e.serviceMessage ? ` (${e.serviceMessage})` : ''}. ${e.advice ?? "Check the connection's user name and password."}${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  if (e instanceof ConnectionError) {
    return new LoadError('connection', `The connection to the service was lost during ${step} into ${table} (${e.message}).${cycle}${same} Nothing was committed; load the file again when the service can be reached.`, unchanged, cycleId, undefined, { cause: e });
  }
  if (e instanceof ServiceError) {
    return new LoadError('refused', `The service refused ${step} into ${table} (HTTP ${e.status}): ${e.serviceMessage || e.message}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  if (e instanceof SourceEncodingError) {
    return new LoadError('source', `${e.message}: the file is not in the encoding it is loaded as, and no character is guessed in its place.${cycle}${same} Pick the file's real encoding, or save it as UTF-8, and load it again.`, unchanged, cycleId, undefined, { cause: e });
  }
  const code = memberOf(e, 'code');
  if (memberOf(e, 'name') === 'ChunkSourceError' || memberOf(e, 'name') === 'SourceReadError' || (typeof code === 'string' && code.startsWith('E'))) {
    return new LoadError('source', `Reading the file failed during ${step} into ${table}: ${messageOf(e)}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
  }
  return new LoadError('unknown', `${step} into ${table} failed: ${messageOf(e)}.${cycle}${same}`, unchanged, cycleId, undefined, { cause: e });
}
