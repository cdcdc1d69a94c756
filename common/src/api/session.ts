/**
 * HTTP sessions of the Analytics Service client: one `HttpSession` per origin, each with its own cookie
 * jar (cookieJar.ts), over a shared undici `Dispatcher` (one connection pool, TLS options applied).
 * - Both APIs authenticate by cookie (docs/service-notes.md §5.1); a session logs in before its first call.
 * - On 401 a `repeatable` call (reads, searchdata, abort) logs in again and is repeated once; any other
 *   (a chunk, a commit, a start of load) is never re-sent, since a resent chunk duplicates rows
 *   (docs/service-notes.md §4.5). The session cookie is per node (§4.4).
 * - Deadlines: a connect, a first-byte and an idle-body timeout per call, by kind of call
 *   (`deadlineClassOf`; a chunk's first-byte deadline grows with its size), set by `HttpTimeouts` in
 *   seconds, so a service that stops answering ends a call with a `TimeoutError`.
 * No function here logs or puts in an error a password, a cookie or a query string.
 */
import { readFileSync } from 'node:fs';
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import { CookieJar } from './cookieJar';
import { ConnectionError, errorForResponse, serviceMessageOf, ServiceError, TimeoutError, type TimeoutPhase } from './errors';
import { SERVICE_OPERATIONS, type OperationDeadline, type OperationName } from './operations';
import { memberOf } from '../guards';

/** What `onRequest` is told about every HTTP exchange (no secrets: no query string, no body, no cookie). */
export interface RequestLogInfo {
  /** Client operation, e.g. `searchData`. */
  operation: string;
  method: string;
  /** Origin of the call, e.g. `https://host:8442`. */
  origin: string;
  /** Path without the query string. */
  path: string;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** Time from sending to the end of the response body, in milliseconds. */
  ms: number;
  /** Why no answer came (status 0): the caller aborted, a deadline ran out, or the network failed. */
  failure?: 'aborted' | 'timeout' | 'network';
}

/**
 * Kinds of calls with their own deadlines: `metadata` (login, object headers, details, users, a load's
 * status and its small calls), `query` (searchdata, pinboarddata and the administration calls that do
 * work on the service: user sync, view refresh), `upload` (a chunk upload and CommitLoad).
 */
export type DeadlineClass = OperationDeadline;

/**
 * The deadline class of an operation name (see `DeadlineClass`): the `deadline` of its row in
 * `SERVICE_OPERATIONS` (operations.ts); any other name (a login, a token, a poll) is a `metadata` call.
 */
export function deadlineClassOf(operation: string): DeadlineClass {
  return Object.hasOwn(SERVICE_OPERATIONS, operation) ? SERVICE_OPERATIONS[operation as OperationName].deadline : 'metadata';
}

/**
 * Deadlines of HTTP calls, in seconds (the extension's `tsq.http.*` settings). Each applies to the first
 * byte of the answer and to every pause inside its body; `connect` to opening the connection. Zero or a
 * negative number means no deadline.
 */
export interface HttpTimeouts {
  /** Opening a connection (TCP and TLS). Default 10 s. */
  connect?: number;
  /** Metadata calls: login, object headers, details, users, a load's status. Default 30 s. */
  metadata?: number;
  /** searchdata, pinboarddata, user sync, view refresh. Default 120 s. */
  query?: number;
  /** A chunk upload and CommitLoad; a chunk gets `uploadPerMiB` more per MiB of its size. Default 120 s. */
  upload?: number;
  /** Seconds added to a chunk upload's deadline per MiB of the chunk. Default 2 s (the service parses the chunk before it answers). */
  uploadPerMiB?: number;
  /**
   * The names under which a person sets each deadline, put in a `TimeoutError`'s message ("raise
   * tsq.http.queryTimeout"). Default: `connect timeout`, `metadata timeout`, … .
   */
  settingNames?: Partial<Record<DeadlineClass | 'connect', string>>;
}

/** Default deadlines in seconds (see `HttpTimeouts`). */
export const DEFAULT_HTTP_TIMEOUTS: Required<Omit<HttpTimeouts, 'settingNames'>> = { connect: 10, metadata: 30, query: 120, upload: 120, uploadPerMiB: 2 };

/** The deadlines of one call in milliseconds (undefined: none). */
export interface CallDeadlines {
  /** First byte of the answer (undici `headersTimeout`). */
  headersMs?: number;
  /** Longest pause inside the body (undici `bodyTimeout`). */
  bodyMs?: number;
  /** The setting that sets them, for the error. */
  setting: string;
}

/**
 * The deadlines of one call: by its operation's class (`deadlineClassOf`), a chunk upload's first-byte
 * deadline grown by `uploadPerMiB` per MiB of `bytes`.
 */
export function callDeadlines(timeouts: HttpTimeouts | undefined, operation: string, bytes?: number): CallDeadlines {
  const kind = deadlineClassOf(operation);
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...definedOnly(timeouts ?? {}) };
  const base = t[kind];
  const setting = timeouts?.settingNames?.[kind] ?? `${kind} timeout`;
  if (!(base > 0)) return { setting };
  const extra = kind === 'upload' && bytes && t.uploadPerMiB > 0 ? (bytes / (1024 * 1024)) * t.uploadPerMiB : 0;
  return { headersMs: Math.round((base + extra) * 1000), bodyMs: Math.round(base * 1000), setting };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'number' && Number.isFinite(v))) as Partial<T>;
}

/** Transport options shared by every session of a client. */
export interface TransportOptions {
  /** Deadlines of every call, in seconds; defaults in `DEFAULT_HTTP_TIMEOUTS`. */
  timeouts?: HttpTimeouts;
  /** PEM file of the certificate authority (or bundle) that signed the service's certificate; added to Node's defaults. */
  caFile?: string;
  /** PEM text of the CA, as an alternative to `caFile`. */
  ca?: string | Buffer;
  /** Verify the service's TLS certificate (default true). Turn off only for a test cluster you trust. */
  rejectUnauthorized?: boolean;
  /** Called after every HTTP exchange (success or not), e.g. for an output-channel log. */
  onRequest?: (info: RequestLogInfo) => void;
  /** A dispatcher to use instead of the client's own undici `Agent` (TLS options are then the dispatcher's). */
  dispatcher?: Dispatcher;
}

/** Builds the undici `Agent` for the TLS options (certificates verified unless `rejectUnauthorized` is false). */
export function createDispatcher(opts: TransportOptions): Dispatcher {
  if (opts.dispatcher) return opts.dispatcher;
  const ca = opts.ca ?? (opts.caFile ? readFileSync(opts.caFile) : undefined);
  return new Agent({
    connect: { ...(ca ? { ca } : {}), rejectUnauthorized: opts.rejectUnauthorized ?? true, timeout: connectTimeoutMs(opts.timeouts) },
    // each call sets its own first-byte and idle-body deadlines (callDeadlines); these are the ceilings
    headersTimeout: 10 * 60_000,
    bodyTimeout: 10 * 60_000,
  });
}

/** The connect deadline in ms (undici's `connect.timeout`; 0 for none). */
export function connectTimeoutMs(timeouts: HttpTimeouts | undefined): number {
  const s = timeouts?.connect ?? DEFAULT_HTTP_TIMEOUTS.connect;
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 0;
}

/** Query-string values; `undefined` and `null` are left out, arrays are sent as JSON (docs/service-notes.md §0). */
export type QueryValue = string | number | boolean | readonly string[] | undefined | null;

/** One call through a session. */
export interface CallRequest {
  /** Client operation, for errors and `onRequest`. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Path from the origin, e.g. `/callosum/v1/tspublic/v1/searchdata`. */
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /**
   * A body; an async iterable is streamed (chunked transfer encoding); an undici `FormData` is sent as
   * `multipart/form-data` with its own boundary (give no content-type header for it).
   */
  body?: string | Buffer | AsyncIterable<Uint8Array> | FormData;
  /** Safe to send again after a re-login on 401 (never true for a streamed body, a chunk upload or a commit). */
  repeatable: boolean;
  /** False for the login call itself (no lazy login, no cookie required). Default true. */
  authenticated?: boolean;
  signal?: AbortSignal;
  /** Size of a streamed body in bytes when known (a chunk's deadline grows with it; see `callDeadlines`). */
  expectedBytes?: number;
}

/**
 * What a client adds to every call of a session (common/src/api/serviceToday.ts sets them): a bearer
 * token, the connection's rate limiter, and how a 429 is retried. A session without hooks behaves as
 * before (cookie only, no limiter, a 429 is thrown).
 */
export interface SessionHooks {
  /** Headers of an authenticated call (`Authorization: Bearer …`), renewing the token first when it is about to expire. */
  authHeaders?(signal?: AbortSignal): Promise<Record<string, string>>;
  /** Waits for the connection's rate limiter before each HTTP request (every attempt counts). */
  beforeSend?(signal?: AbortSignal): Promise<void>;
  /**
   * After a 429: the milliseconds to wait before sending a repeatable call again, or undefined to give up
   * (the 429 is thrown). `retryAfter` is the response's Retry-After header; `attempt` counts from 1;
   * `waitedMs` is what this call has waited for earlier 429s.
   */
  retryDelay?(attempt: number, retryAfter: string | undefined, waitedMs: number): number | undefined;
}

/** A successful response, body read as text. */
export interface CallResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Encodes a query string from `CallRequest.query`. */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    p.append(k, Array.isArray(v) ? JSON.stringify(v) : String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * A cookie session on one origin. `login` is the operation that authenticates it (it must call
 * `call({ authenticated: false, ... })`; the cookies the response sets are kept).
 */
export class HttpSession {
  readonly origin: string;
  private readonly cookies = new CookieJar();
  private loggedIn = false;
  private loginInFlight: Promise<void> | undefined;
  /** True from a call that got no answer (network failure or deadline) until an answer or `serviceBack()`. */
  private outage = false;
  /** Calls waiting for their first byte; `stale` once they were waiting during an outage (see `serviceBack`). */
  private readonly waiting = new Set<{ stale: boolean; back: AbortController }>();
  /** Bearer token, rate limiter and 429 retries (see `SessionHooks`); none by default. */
  hooks: SessionHooks | undefined;

  /**
   * @param origin `scheme://host:port` of the service (a trailing path is ignored).
   * @param login logs this session in; throws `AuthenticationError` on 401.
   */
  constructor(
    origin: string,
    private readonly dispatcher: Dispatcher,
    private readonly login: (session: HttpSession, signal?: AbortSignal) => Promise<void>,
    private readonly onRequest?: (info: RequestLogInfo) => void,
    private readonly timeouts?: HttpTimeouts,
  ) {
    this.origin = new URL(origin).origin;
  }

  /** True after a successful login and until a 401 or `forget()`. */
  get isLoggedIn(): boolean {
    return this.loggedIn;
  }

  /** Logs in unless already logged in (concurrent callers share one login). */
  async ensureLogin(signal?: AbortSignal): Promise<void> {
    if (this.loggedIn) return;
    await this.relogin(signal);
  }

  /** Logs in now, dropping the old cookies (concurrent callers share one login). */
  async relogin(signal?: AbortSignal): Promise<void> {
    if (!this.loginInFlight) {
      this.cookies.clear();
      this.loginInFlight = this.login(this, signal)
        .then(() => {
          this.loggedIn = true;
        })
        .finally(() => {
          this.loginInFlight = undefined;
        });
    }
    await this.loginInFlight;
  }

  /**
   * Tells the session that the service answers again (the caller's health check saw it back). A call
   * still waiting for its first byte on a connection it took during the outage (sent after a call got no
   * answer and before any call got one, or waiting when one failed) may wait out its whole deadline on a
   * connection that will never
   * answer; each such call is ended now: a `repeatable` one is sent once more at once, on a new connection,
   * and any other fails at once with a `ConnectionError` saying it was not sent again (it may have taken
   * effect). Calls sent before the outage and calls sent after this are not touched. Never throws.
   */
  serviceBack(): void {
    this.outage = false;
    for (const w of this.waiting) if (w.stale) w.back.abort();
  }

  /** The values of the session's cookies (its login), for redaction. */
  cookieValues(): string[] {
    return this.cookies.values();
  }

  /** Drops the session's cookies (after a logout). */
  forget(): void {
    this.cookies.clear();
    this.loggedIn = false;
  }

  /**
   * Sends a call: logs in first when needed, re-logs in once on 401 when `repeatable`.
   * @returns the 2xx response with its body as text.
   * @throws ServiceError subclasses for non-2xx answers (`AuthenticationError` for 401, ...), `ConnectionError` when no answer came or the signal aborted.
   */
  async call(req: CallRequest): Promise<CallResponse> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(req);
      } catch (e) {
        // a 429 is retried only for a call that is safe to send twice (never a chunk or a commit)
        const delay = e instanceof ServiceError && e.status === 429 && req.repeatable ? this.hooks?.retryDelay?.(attempt, (e as ServiceError & { retryAfter?: string }).retryAfter, waited) : undefined;
        if (delay === undefined) throw e;
        waited += delay;
        await sleep(delay, req.signal);
      }
    }
  }

  private async callOnce(req: CallRequest): Promise<CallResponse> {
    const authenticated = req.authenticated ?? true;
    if (authenticated) await this.ensureLogin(req.signal);
    try {
      try {
        return await this.send(req);
      } catch (e) {
        // ended by serviceBack(): a repeatable call goes again on a new connection, once
        if (!(e instanceof StaleCallError)) throw e;
        if (!req.repeatable) throw new ConnectionError({ operation: req.operation, method: req.method, path: req.path }, e, false);
        return await this.send(req);
      }
    } catch (e) {
      if (!authenticated || !(e instanceof ServiceError && e.status === 401)) throw e;
      this.loggedIn = false;
      if (!req.repeatable) throw e;
      await this.relogin(req.signal);
      return await this.send(req);
    }
  }

  private async send(req: CallRequest): Promise<CallResponse> {
    const headers: Record<string, string> = { 'x-requested-by': 'ThoughtSpot', accept: 'application/json', ...req.headers };
    const cookie = this.cookies.header(req.path);
    if (cookie) headers.cookie = cookie;
    if ((req.authenticated ?? true) && this.hooks?.authHeaders) Object.assign(headers, await this.hooks.authHeaders(req.signal));
    await this.hooks?.beforeSend?.(req.signal);
    const started = performance.now();
    const info = { operation: req.operation, method: req.method, path: req.path };
    let status = 0;
    let failure: RequestLogInfo['failure'];
    const bytes = req.expectedBytes ?? (typeof req.body === 'string' ? Buffer.byteLength(req.body) : Buffer.isBuffer(req.body) ? req.body.length : undefined);
    const deadlines = callDeadlines(this.timeouts, req.operation, bytes);
    // undici's own timers tick coarsely (a deadline of 3 s fires after up to 4 s), so the first-byte
    // deadline of a call without an upload is kept here; an upload's stays undici's, which waits while
    // the body is still being sent
    const firstByte = new AbortController();
    const ownTimer = deadlines.headersMs && deadlineClassOf(req.operation) !== 'upload' ? setTimeout(() => firstByte.abort(), deadlines.headersMs) : undefined;
    const back = new AbortController();
    const waiting = { stale: this.outage, back };
    this.waiting.add(waiting);
    const signal = AbortSignal.any([back.signal, ...(req.signal ? [req.signal] : []), ...(ownTimer ? [firstByte.signal] : [])]);
    try {
      const res = await request(this.origin + req.path + encodeQuery(req.query), {
        method: req.method,
        headers,
        // undici streams an async iterable body (chunked); its typings only list Readable
        body: req.body as string | Buffer | FormData | undefined,
        signal,
        dispatcher: this.dispatcher,
        ...(deadlines.headersMs ? { headersTimeout: deadlines.headersMs + (ownTimer ? 1000 : 0), bodyTimeout: deadlines.bodyMs } : {}),
      });
      clearTimeout(ownTimer);
      this.waiting.delete(waiting);
      // an answer: the service is reachable, so calls sent from now on are on live connections
      this.outage = false;
      status = res.statusCode;
      const text = await res.body.text();
      this.cookies.store(res.headers['set-cookie'], req.path);
      if (status < 200 || status >= 300) {
        const { text: serviceMessage, incidentId, code, traceId } = serviceMessageOf(text);
        const err = errorForResponse({ ...info, status, serviceMessage, incidentId, code, traceId });
        if (status === 429) Object.assign(err, { retryAfter: [res.headers['retry-after']].flat()[0] });
        throw err;
      }
      return { status, headers: res.headers, text };
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      if (back.signal.aborted && !req.signal?.aborted) {
        failure = 'network';
        throw new StaleCallError();
      }
      const phase = firstByte.signal.aborted && !req.signal?.aborted ? 'headers' : timeoutPhaseOf(e);
      failure = req.signal?.aborted ? 'aborted' : phase ? 'timeout' : 'network';
      if (failure !== 'aborted') {
        // no answer: the calls still waiting now wait on the same unreachable service
        this.outage = true;
        for (const w of this.waiting) w.stale = true;
      }
      if (phase && !req.signal?.aborted) {
        const connect = phase === 'connect';
        const ms = connect ? connectTimeoutMs(this.timeouts) : phase === 'headers' ? deadlines.headersMs : deadlines.bodyMs;
        const setting = connect ? (this.timeouts?.settingNames?.connect ?? 'connect timeout') : deadlines.setting;
        throw new TimeoutError({ ...info, host: new URL(this.origin).host }, e, phase, ms ?? 0, setting);
      }
      throw new ConnectionError(info, e, req.signal?.aborted ?? false);
    } finally {
      clearTimeout(ownTimer);
      this.waiting.delete(waiting);
      this.onRequest?.({ ...info, origin: this.origin, status, ms: performance.now() - started, ...(failure ? { failure } : {}) });
    }
  }
}

/** A call ended by `HttpSession.serviceBack()`: it waited on a connection taken during an outage. */
class StaleCallError extends Error {
  constructor() {
    super('it was sent while the service was unreachable and got no answer; when the service came back it was not sent again, since it may have taken effect: check before repeating it');
  }
}

/** Which deadline an undici error is (by its `code`), or undefined for any other error. */
function timeoutPhaseOf(e: unknown): TimeoutPhase | undefined {
  const code = memberOf(e, 'code');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect';
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'headers';
  if (code === 'UND_ERR_BODY_TIMEOUT') return 'body';
  return undefined;
}

/** Resolves after `ms` milliseconds (a negative `ms` is 0), or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
