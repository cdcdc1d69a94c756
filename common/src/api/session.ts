/**
 * HTTP sessions of the Analytics Service client: one `HttpSession` per origin (scheme, host, port), each
 * with its own cookie jar, over a shared undici `Dispatcher` (one connection pool, TLS options applied).
 *
 * Session rules:
 * - Both APIs authenticate by cookie (seed 5; field notes 5.1: `JSESSIONID`, `clientId`). A session logs in
 *   lazily before its first authenticated call.
 * - On 401 a call marked `repeatable` (safe to send twice: reads, searchdata, abort, ...) logs in again
 *   once and is repeated once. A call that is not repeatable (a chunk upload, a commit, a start of load)
 *   is never re-sent: resending a chunk that may have reached the server duplicates rows (field notes
 *   4.5). Its 401 is thrown, and the session logs in again before its next call.
 * - The session cookie is per node (field notes 4.4): the load API's redirected node gets its own session.
 *
 * No function here logs or puts in an error a password, a cookie or a query string.
 */
import { readFileSync } from 'node:fs';
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import { ConnectionError, errorForResponse, serviceMessageOf, ServiceError } from './errors';

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
}

/** Transport options shared by every session of a client. */
export interface TransportOptions {
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
    connect: { ...(ca ? { ca } : {}), rejectUnauthorized: opts.rejectUnauthorized ?? true },
    // loads and commits can take long on a real cluster; the caller's AbortSignal is the way to stop earlier
    headersTimeout: 10 * 60_000,
    bodyTimeout: 10 * 60_000,
  });
}

/** Query-string values; `undefined` and `null` are left out, arrays are sent as JSON (field notes 0). */
export type QueryValue = string | number | boolean | readonly string[] | undefined | null;

/** One call through a session. */
export interface CallRequest {
  /** Client operation, for errors and `onRequest`. */
  operation: string;
  method: 'GET' | 'POST';
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
  private readonly cookies = new Map<string, string>();
  private loggedIn = false;
  private loginInFlight: Promise<void> | undefined;

  /**
   * @param origin `scheme://host:port` of the service (a trailing path is ignored).
   * @param login logs this session in; throws `AuthenticationError` on 401.
   */
  constructor(
    origin: string,
    private readonly dispatcher: Dispatcher,
    private readonly login: (session: HttpSession, signal?: AbortSignal) => Promise<void>,
    private readonly onRequest?: (info: RequestLogInfo) => void,
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
    const authenticated = req.authenticated ?? true;
    if (authenticated) await this.ensureLogin(req.signal);
    try {
      return await this.send(req);
    } catch (e) {
      if (!authenticated || (e as ServiceError).status !== 401) throw e;
      this.loggedIn = false;
      if (!req.repeatable) throw e;
      await this.relogin(req.signal);
      return await this.send(req);
    }
  }

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keepCookies(setCookie: string | string[] | undefined): void {
    if (!setCookie) return;
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const first = line.split(';', 1)[0];
      const eq = first.indexOf('=');
      if (eq <= 0) continue;
      const name = first.slice(0, eq).trim();
      const value = first.slice(eq + 1).trim();
      // an expired or emptied cookie removes it
      if (value === '' || /;\s*max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private async send(req: CallRequest): Promise<CallResponse> {
    const headers: Record<string, string> = { 'x-requested-by': 'ThoughtSpot', accept: 'application/json', ...req.headers };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    const started = performance.now();
    const info = { operation: req.operation, method: req.method, path: req.path };
    let status = 0;
    try {
      const res = await request(this.origin + req.path + encodeQuery(req.query), {
        method: req.method,
        headers,
        // undici streams an async iterable body (chunked); its typings only list Readable
        body: req.body as string | Buffer | FormData | undefined,
        signal: req.signal,
        dispatcher: this.dispatcher,
      });
      status = res.statusCode;
      const text = await res.body.text();
      this.keepCookies(res.headers['set-cookie']);
      if (status < 200 || status >= 300) {
        const { text: serviceMessage, incidentId } = serviceMessageOf(text);
        throw errorForResponse({ ...info, status, serviceMessage, incidentId });
      }
      return { status, headers: res.headers, text };
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw new ConnectionError(info, e, req.signal?.aborted ?? false);
    } finally {
      this.onRequest?.({ ...info, origin: this.origin, status, ms: performance.now() - started });
    }
  }
}
