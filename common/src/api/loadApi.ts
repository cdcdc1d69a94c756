/**
 * The data-load API of the Analytics Service (docs/service-interface.md §4.1; docs/service-notes.md §4), one method per operation:
 * login, startLoad, uploadChunk, commit, abort, status, badRecords, inputSummary, ping, and `pollLoadStatus`.
 * node_address (docs/service-notes.md §4.4): StartLoad may name a node; the cycle's later calls (upload, commit,
 * abort, status, bad records) go to that node, with a login on that node (the session cookie is per node),
 * only on an approved host (`approvedNodeHost`; else `UnapprovedNodeError`, nothing sent there; SECURITY.md).
 * An empty `{}` (or a missing one) keeps the original host. `inputSummary` stays on the original host.
 * Retries: upload and commit are never re-sent (docs/service-notes.md §4.5: "re-sending a chunk could duplicate rows");
 * status, bad records, input summary, abort and ping are re-sent once after a re-login on 401.
 */
import { type Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { HttpSession } from './session';
import { ConnectionError, LoadFailedError, ServiceError } from './errors';
import { toCount, type CallOptions } from './publicApi';
import { recordOr } from '../guards';
import * as z from 'zod';

/** The path prefix of the load API (docs/service-interface.md §9). */
export const LOAD_PREFIX = '/ts_dataservice/v1';

/** The `format.type` values: `csv` by default (the sample shows upper case; the emulator accepts both). */
const FORMAT_TYPES = ['csv', 'delimited', 'CSV', 'DELIMITED'] as const;

/**
 * The load definition, the body of StartLoad (docs/service-interface.md §2.2), as a schema: `LoadDefinition`
 * is its type, and `parseSavedDefinition` (common/src/load/definition.ts) checks a `<file>.load.json` with
 * it. Every member but the target is optional; defaults are those of docs/service-interface.md §2.2. An
 * error's message is what follows the member's path (`format.field_separator must be one character`).
 */
export const LOAD_DEFINITION_SCHEMA = z.strictObject({
  target: z.strictObject({
    /** '' for an input table (REST API v2 names it by its name alone); a saved definition needs one. */
    database: z.string(),
    /** Default: the destination's default schema (`engine_default_schema`, docs/service-interface.md §2.2). */
    schema: z.string().optional(),
    table: z.string().min(1),
  }),
  format: z
    .strictObject({
      /** Default `csv`. */
      type: z.enum(FORMAT_TYPES, { error: 'must be csv or delimited' }).optional(),
      /** Default `,`. */
      field_separator: z.string().length(1, { error: 'must be one character' }).optional(),
      /** Default false. */
      trailing_field_separator: z.boolean().optional(),
      /** Default `"`; csv only. */
      enclosing_character: z.string().optional(),
      /** Default ``; delimited only. */
      escape_character: z.string().optional(),
      /** Default `(null)`; delimited only. */
      null_value: z.string().optional(),
      /** Default false. */
      has_header_row: z.boolean().optional(),
      /** Default false: the input must match the target schema exactly; true: extra columns dropped, missing ones null. */
      flexible: z.boolean().optional(),
      date_time: z
        .strictObject({
          /** Default true: date/datetime fields are epoch values already (csv). */
          converted_to_epoch: z.boolean().optional(),
          /** Default `%Y%m%d %H:%M:%S`. */
          date_time_format: z.string().optional(),
          /** Default `%Y%m%d`. */
          date_format: z.string().optional(),
          /** Default `%H:%M:%S`. */
          time_format: z.string().optional(),
          /** Default false. */
          skip_second_fraction: z.boolean().optional(),
        })
        .optional(),
      boolean: z
        .strictObject({
          /** Default false; true: 0x0 / 0x1 (csv only). */
          use_bit_values: z.boolean().optional(),
          /** Default `T`. */
          true_format: z.string().optional(),
          /** Default `F`. */
          false_format: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  load_options: z
    .strictObject({
      /** Default false (append); true drops the target's rows first. */
      empty_target: z.boolean().optional(),
      /** Default 0; a load ignoring more rows than this is aborted (docs/service-interface.md §8). */
      max_ignored_rows: z.number().int({ error: 'must be a whole number ≥ 0' }).min(0, { error: 'must be a whole number ≥ 0' }).optional(),
    })
    .optional(),
  advanced_options: z
    .strictObject({
      /** Default 100. */
      max_reported_parsing_errors: z.number().optional(),
    })
    .optional(),
});

/** The load definition (`LOAD_DEFINITION_SCHEMA`'s type). */
export type LoadDefinition = z.infer<typeof LOAD_DEFINITION_SCHEMA>;

/** A node named by StartLoad (docs/service-interface.md §2.3). */
export interface NodeAddress {
  host: string;
  port: number;
}

/** StartLoad's result (docs/service-interface.md §2.3). */
export interface StartLoadResult {
  cycleId: string;
  /** The node the cycle's calls go to; undefined when the service sent `{}` or none (docs/service-notes.md §4.4). */
  nodeAddress?: NodeAddress;
}

/**
 * The status of a cycle (docs/service-notes.md §4.3): the raw JSON plus its members with counts as numbers (the
 * service may send int64 counts as strings). `status.code` is absent while the load is in progress.
 */
export interface LoadStatus {
  cycleId: string;
  /** e.g. `COMMITTING`, `DONE` (docs/service-interface.md §3). */
  internalStage?: string;
  /** `code` is `OK` or e.g. `LOAD_FAILED` with a `message`. */
  status: { code?: string; message?: string };
  rowsWritten: number;
  ignoredRowCount: number;
  parsingErrors?: unknown;
  /** The raw status as the service sent it. */
  raw: Record<string, unknown>;
}

/** Options of `pollLoadStatus`. */
export interface PollOptions extends CallOptions {
  /** First wait between polls in ms (default 250). */
  intervalMs?: number;
  /** Longest wait between polls in ms (default 10000; the reference client polls every 10 s). */
  maxIntervalMs?: number;
  /** Called with every status read. */
  onStatus?: (s: LoadStatus) => void;
}

/** Options of `uploadChunk`. */
export interface UploadOptions extends CallOptions {
  /** File name of the form part (default `chunk-<n>.csv`). */
  filename?: string;
  /** The chunk's number, sent as `X-ts-chunk-id` (docs/service-notes.md §4.2); counted per cycle when omitted. */
  chunkId?: number;
  /** The chunk's size in bytes when known: its deadline grows with it (common/src/api/session.ts, `callDeadlines`). */
  expectedBytes?: number;
}

function parseStatus(raw: Record<string, unknown>, cycleId: string): LoadStatus {
  const st = recordOr(raw.status);
  return {
    cycleId: typeof raw.cycle_id === 'string' ? raw.cycle_id : cycleId,
    internalStage: typeof raw.internal_stage === 'string' ? raw.internal_stage : undefined,
    status: {
      ...(typeof st.code === 'string' ? { code: st.code } : {}),
      ...(typeof st.message === 'string' ? { message: st.message } : {}),
    },
    rowsWritten: toCount(raw.rows_written),
    ignoredRowCount: toCount(raw.ignored_row_count),
    ...(raw.parsing_errors !== undefined ? { parsingErrors: raw.parsing_errors } : {}),
    raw,
  };
}

/**
 * Wraps a chunk as one multipart/form-data part named `file` (docs/service-interface.md §4.1), streamed: preamble, the
 * data as it comes, epilogue. Nothing is buffered beyond the source's own chunks.
 */
export async function* multipartBody(
  boundary: string,
  filename: string,
  data: Readable | AsyncIterable<Uint8Array> | Buffer | Uint8Array | string,
  onSourceError?: (e: unknown) => void,
): AsyncGenerator<Uint8Array> {
  const safeName = filename.replace(/["\r\n\\]/g, '_');
  yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  if (typeof data === 'string') yield Buffer.from(data);
  else if (data instanceof Uint8Array) yield data;
  else {
    const it = (data as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<Uint8Array | string>;
      try {
        r = await it.next();
      } catch (e) {
        onSourceError?.(e);
        throw e;
      }
      if (r.done) break;
      yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    }
  }
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

/** Reading the data of a chunk failed (the source stream's error is the cause); the upload was cut short, so the cycle should be aborted. */
export class ChunkSourceError extends Error {
  constructor(
    readonly cycleId: string,
    cause: unknown,
  ) {
    super(`reading the data of a chunk for load cycle ${cycleId} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ChunkSourceError';
  }
}

/** Builds sessions for an origin (the facade owns the dispatcher and the credentials). */
export type SessionFactory = (origin: string) => HttpSession;

/** The names of this machine's own loopback interface: a node named by one of them is the same host as a connection on another. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A host name as compared: lower case, IPv6 in brackets, no trailing dot. */
function hostKey(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
}

/**
 * Whether a node that StartLoad names may receive the data-load login (the password, or the bearer): its
 * host is one of `approved` (the hosts of the connection's url and loadUrl, and the ones the person
 * approved), any port; `localhost`, `127.0.0.1` and `::1` count as one host.
 * @param approved host names or URLs.
 */
export function approvedNodeHost(host: string, approved: readonly string[]): boolean {
  const keyOf = (h: string) => {
    let k: string;
    try {
      k = /^[a-z][a-z0-9+.-]*:\/\//i.test(h) ? new URL(h).hostname : h;
    } catch {
      k = h;
    }
    const key = hostKey(k);
    return LOOPBACK_NAMES.has(key) ? 'loopback' : key;
  };
  const wanted = keyOf(host);
  return approved.some((a) => keyOf(a) === wanted);
}

/** StartLoad named a node on a host the person has not approved: nothing was sent there. */
export class UnapprovedNodeError extends Error {
  constructor(
    /** The cycle StartLoad started (on the load origin; abort it there). */
    readonly cycleId: string,
    /** `host:port` of the node. */
    readonly node: string,
    /** The approved hosts. */
    readonly approved: readonly string[],
  ) {
    super(
      `The service asked to continue the load on ${node} (node_address), a host this connection does not use (${approved.join(', ')}). TSQ sends the data-load login only to the connection's own hosts and those you approved, so nothing was sent there. If ${node} is a node of your cluster, add its host to the connection's "loadNodes" (in your own settings or connections file), or set "ignoreNodeRedirect": true to keep the load on the connection's address.`,
    );
    this.name = 'UnapprovedNodeError';
  }
}

/** The load API: a session on the load origin, plus one session per redirected node. */
export class LoadApi {
  private readonly nodes = new Map<string, HttpSession>();
  private readonly cycleNode = new Map<string, HttpSession>();
  private readonly chunkCounts = new Map<string, number>();

  /**
   * @param session the session on the load API's origin (`loadUrl`, else `url`).
   * @param makeSession makes a logged-out session for a redirected node's origin.
   * @param ignoreNodeRedirect keep every call on the original origin (a cluster behind an external load balancer; docs/service-notes.md §4.4).
   * @param approvedHosts the hosts a redirected node may be on (`approvedNodeHost`); default the load origin's.
   */
  constructor(
    private readonly session: HttpSession,
    private readonly makeSession: SessionFactory,
    private readonly ignoreNodeRedirect = false,
    private readonly approvedHosts: readonly string[] = [session.origin],
  ) {}

  /**
   * `POST /public/session` with a JSON body `{ username, password }` (docs/service-interface.md §4.1). Keeps the session cookie.
   * @throws AuthenticationError on 401 (the password is never in the message).
   */
  static async login(session: HttpSession, username: string, password: string, signal?: AbortSignal): Promise<void> {
    await session.call({
      operation: 'loadLogin',
      method: 'POST',
      path: `${LOAD_PREFIX}/public/session`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      repeatable: false,
      authenticated: false,
      signal,
    });
  }

  /** The session a cycle's calls go to (its node's, else the load origin's). */
  sessionFor(cycleId: string): HttpSession {
    return this.cycleNode.get(cycleId) ?? this.session;
  }

  /**
   * Whether the service has a data-load API at all: `GET /public/ping` without signing in answers 404
   * where there is none (ThoughtSpot Cloud); any other answer, a 401 included, says it is there.
   * @throws ConnectionError when the service cannot be reached
   */
  async present(opts: CallOptions = {}): Promise<boolean> {
    try {
      await this.session.call({ operation: 'ping', method: 'GET', path: `${LOAD_PREFIX}/public/ping`, authenticated: false, repeatable: true, signal: opts.signal });
      return true;
    } catch (e) {
      if (e instanceof ServiceError && !(e instanceof ConnectionError) && e.status === 404) return false;
      if (e instanceof ConnectionError) throw e;
      return true;
    }
  }

  /** `GET /public/ping` → the service's text (`Ping Received.`; docs/service-notes.md §4.1). */
  async ping(opts: CallOptions = {}): Promise<string> {
    const r = await this.session.call({ operation: 'ping', method: 'GET', path: `${LOAD_PREFIX}/public/ping`, repeatable: true, signal: opts.signal });
    return r.text;
  }

  /**
   * StartLoad, `POST /public/loads` with the nested load definition (docs/service-interface.md §2.2). The result's body is JSON
   * sent as text/plain (docs/service-interface.md §4.1). A non-empty `node_address` different from the load origin routes the
   * cycle's later calls to that node (docs/service-notes.md §4.4), when its host is approved (`approvedNodeHost`).
   * Not re-sent on 401 (it would start a second cycle).
   * @throws ServiceError 400 for an invalid load definition, AuthenticationError, PermissionError;
   * UnapprovedNodeError when the node is on a host not approved (the cycle exists: abort it on the load origin).
   */
  async startLoad(definition: LoadDefinition, opts: CallOptions = {}): Promise<StartLoadResult> {
    const path = `${LOAD_PREFIX}/public/loads`;
    const r = await this.session.call({
      operation: 'startLoad',
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(definition),
      repeatable: false,
      signal: opts.signal,
    });
    let body: { cycle_id?: unknown; node_address?: { host?: unknown; port?: unknown } };
    try {
      body = JSON.parse(r.text);
    } catch {
      throw new ServiceError({ status: r.status, serviceMessage: r.text.slice(0, 200), operation: 'startLoad', method: 'POST', path }, `startLoad (POST ${path}) answered without a cycle id`);
    }
    if (typeof body.cycle_id !== 'string' || !body.cycle_id) {
      throw new ServiceError({ status: r.status, serviceMessage: r.text.slice(0, 200), operation: 'startLoad', method: 'POST', path }, `startLoad (POST ${path}) answered without a cycle id`);
    }
    const cycleId = body.cycle_id;
    const na = body.node_address;
    const nodeAddress = na && typeof na.host === 'string' && na.host && na.port !== undefined && Number.isFinite(Number(na.port)) ? { host: na.host, port: Number(na.port) } : undefined;
    if (nodeAddress && !this.ignoreNodeRedirect) {
      const base = new URL(this.session.origin);
      const host = nodeAddress.host.includes(':') && !nodeAddress.host.startsWith('[') ? `[${nodeAddress.host}]` : nodeAddress.host;
      const origin = new URL(`${base.protocol}//${host}:${nodeAddress.port}`).origin;
      if (origin !== base.origin && !approvedNodeHost(nodeAddress.host, this.approvedHosts)) throw new UnapprovedNodeError(cycleId, `${host}:${nodeAddress.port}`, this.approvedHosts.map((h) => hostKey(/^[a-z][a-z0-9+.-]*:\/\//i.test(h) ? new URL(h).hostname : h)));
      if (origin !== base.origin) {
        let s = this.nodes.get(origin);
        if (!s) {
          s = this.makeSession(origin);
          this.nodes.set(origin, s);
        }
        this.cycleNode.set(cycleId, s);
      }
    }
    return { cycleId, ...(nodeAddress ? { nodeAddress } : {}) };
  }

  /**
   * Load: uploads one chunk for a cycle as multipart/form-data (docs/service-interface.md §4.1), streamed from a `Readable`
   * (or a Buffer/string) without buffering it. Never re-sent: a 401 or a dropped connection is thrown
   * (`AuthenticationError`, `ConnectionError`), since the chunk may have reached the service.
   * @returns the service's text (`Upload Complete.`).
   * @throws ChunkSourceError when reading `data` failed (its error is the cause).
   * @throws NotFoundError for an unknown cycle or an absent table (docs/service-interface.md §7), ConnectionError on abort.
   */
  async uploadChunk(cycleId: string, data: Readable | AsyncIterable<Uint8Array> | Buffer | Uint8Array | string, opts: UploadOptions = {}): Promise<string> {
    const n = opts.chunkId ?? (this.chunkCounts.get(cycleId) ?? 0) + 1;
    this.chunkCounts.set(cycleId, Math.max(n, this.chunkCounts.get(cycleId) ?? 0));
    const boundary = `----tsq${randomBytes(12).toString('hex')}`;
    let sourceError: { e: unknown } | undefined;
    const r = await this.sessionFor(cycleId)
      .call({
        operation: 'uploadChunk',
        method: 'POST',
        path: `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-ts-chunk-id': String(n), accept: 'text/plain, application/json' },
        body: multipartBody(boundary, opts.filename ?? `chunk-${n}.csv`, data, (e) => (sourceError = { e })),
        repeatable: false,
        signal: opts.signal,
        expectedBytes: opts.expectedBytes,
      })
      .catch((e: unknown) => {
        if (!sourceError || opts.signal?.aborted) throw e;
        throw sourceError.e instanceof ChunkSourceError ? sourceError.e : new ChunkSourceError(cycleId, sourceError.e);
      });
    return r.text;
  }

  /**
   * CommitLoad, `POST /public/loads/{cycle}/commit` (docs/service-interface.md §4.1), with `X-ts-chunks` the number of chunks
   * this client uploaded (docs/service-notes.md §4.2). Never re-sent.
   * @returns the service's text (`Commit load cycle request made.`).
   * @throws NotFoundError (500 "… Unknown cycle_id …", docs/service-interface.md §7).
   */
  async commit(cycleId: string, opts: CallOptions = {}): Promise<string> {
    const chunks = this.chunkCounts.get(cycleId);
    const r = await this.sessionFor(cycleId).call({
      operation: 'commitLoad',
      method: 'POST',
      path: `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}/commit`,
      headers: chunks !== undefined ? { 'x-ts-chunks': String(chunks) } : {},
      repeatable: false,
      signal: opts.signal,
    });
    return r.text;
  }

  /** AbortLoad, `POST /public/loads/{cycle}/cancel` (docs/service-interface.md §4.1): the cycle's data is dropped. Safe to repeat. */
  async abort(cycleId: string, opts: CallOptions = {}): Promise<string> {
    const r = await this.sessionFor(cycleId).call({ operation: 'abortLoad', method: 'POST', path: `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}/cancel`, repeatable: true, signal: opts.signal });
    return r.text;
  }

  /** Status of a cycle, `GET /public/loads/{cycle}` (docs/service-notes.md §4.2: the form real clients use). */
  async status(cycleId: string, opts: CallOptions = {}): Promise<LoadStatus> {
    const path = `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}`;
    const r = await this.sessionFor(cycleId).call({ operation: 'loadStatus', method: 'GET', path, repeatable: true, signal: opts.signal });
    let raw: Record<string, unknown>;
    try {
      raw = recordOr(JSON.parse(r.text));
    } catch {
      throw new ServiceError({ status: r.status, serviceMessage: r.text.slice(0, 200), operation: 'loadStatus', method: 'GET', path }, `loadStatus (GET ${path}) answered with a body that is not JSON`);
    }
    return parseStatus(raw ?? {}, cycleId);
  }

  /** The bad records file of a cycle as text, `GET /public/loads/{cycle}/bad_records_file` (docs/service-notes.md §4.2). @throws NotFoundError when there is none (docs/service-interface.md §7). */
  async badRecords(cycleId: string, opts: CallOptions = {}): Promise<string> {
    const r = await this.sessionFor(cycleId).call({
      operation: 'badRecords',
      method: 'GET',
      path: `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}/bad_records_file`,
      headers: { accept: 'text/plain' },
      repeatable: true,
      signal: opts.signal,
    });
    return r.text;
  }

  /** The load parameters of a cycle, `GET /public/loads/{cycle}/input_summary` → `{ load_params }` (docs/service-notes.md §4.2), from the load origin. */
  async inputSummary(cycleId: string, opts: CallOptions = {}): Promise<Record<string, unknown>> {
    const path = `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}/input_summary`;
    const r = await this.session.call({ operation: 'inputSummary', method: 'GET', path, repeatable: true, signal: opts.signal });
    try {
      return JSON.parse(r.text) as Record<string, unknown>;
    } catch {
      return { text: r.text };
    }
  }

  /**
   * Polls a cycle's status with backoff (×1.5 from `intervalMs` up to `maxIntervalMs`) until the load ends
   * (docs/service-interface.md §3): `internal_stage` DONE → resolves with the status; a status code other than OK → throws
   * `LoadFailedError` with the status message as the service's text.
   * @throws LoadFailedError, ConnectionError when `signal` aborts, ServiceError from the status call.
   */
  async pollLoadStatus(cycleId: string, opts: PollOptions = {}): Promise<LoadStatus> {
    let wait = opts.intervalMs ?? 250;
    const max = opts.maxIntervalMs ?? 10_000;
    const path = `${LOAD_PREFIX}/public/loads/${encodeURIComponent(cycleId)}`;
    for (;;) {
      const s = await this.status(cycleId, opts);
      opts.onStatus?.(s);
      if (s.status.code && s.status.code !== 'OK') {
        throw new LoadFailedError({ status: 200, serviceMessage: s.status.message ?? '', operation: 'pollLoadStatus', method: 'GET', path }, cycleId, s.status.code);
      }
      if (s.internalStage === 'DONE') return s;
      await sleep(wait, opts.signal, { operation: 'pollLoadStatus', method: 'GET', path });
      wait = Math.min(max, Math.ceil(wait * 1.5));
    }
  }
}

/**
 * Waits `ms` milliseconds, or until `signal` aborts.
 * @throws the signal's reason when it aborts (at once when it already has)
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `delay` whose abort is a ConnectionError naming the call it interrupted. */
async function sleep(ms: number, signal: AbortSignal | undefined, info: { operation: string; method: string; path: string }): Promise<void> {
  try {
    await delay(ms, signal);
  } catch {
    throw abortError(info, signal!);
  }
}

function abortError(info: { operation: string; method: string; path: string }, signal: AbortSignal): Error {
  return new ConnectionError(info, signal.reason, true);
}
