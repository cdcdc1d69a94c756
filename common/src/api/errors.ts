/**
 * Typed errors of the Analytics Service client (`common/src/api`).
 *
 * Every failed call throws a `ServiceError` (or a subclass) that carries the HTTP status, the service's
 * own message text, the operation's name, and the method and path (never the query string's secrets, never
 * a password, never a cookie). Network failures and aborts are `ConnectionError`s (status 0).
 *
 * Sources: docs/service-interface.md §5 and §7 (401, 403; load API error texts are plain text),
 * docs/service-notes.md §1.6 and 5.1 (v1 error bodies: `debug`, `incident_id_guid`), §10.3 (v2 error
 * bodies, `serviceMessageOf`).
 */
import { memberOf, recordOr, isRecord } from '../guards';

/** What every error of this module carries besides its message. */
export interface ServiceErrorInfo {
  /** HTTP status; 0 when no response arrived (network failure, abort, TLS). */
  status: number;
  /** The service's own message text (plain text, or the joined `debug` of a JSON error body); '' if none. */
  serviceMessage: string;
  /** Name of the client operation, e.g. `startLoad`, `searchData`. */
  operation: string;
  /** HTTP method, e.g. `POST`. */
  method: string;
  /** Request path without the query string, e.g. `/ts_dataservice/v1/public/loads`. */
  path: string;
  /** The service's incident id (public API error bodies), when it gave one. */
  incidentId?: string;
  /** The service's error code (REST API v2: `error.message.code`, e.g. 10097), when it gave one. */
  code?: number | string;
  /** The trace id support asks for (REST API v2: `error.message.trace_id_guid`), when the service gave one. */
  traceId?: string;
}

/** An HTTP call of the Analytics Service failed: the service answered with a non-success status. */
export class ServiceError extends Error {
  readonly status: number;
  readonly serviceMessage: string;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly incidentId?: string;
  readonly code?: number | string;
  readonly traceId?: string;

  constructor(info: ServiceErrorInfo, message?: string, options?: { cause?: unknown }) {
    super(message ?? ServiceError.describe(info), options);
    this.name = new.target.name;
    this.status = info.status;
    this.serviceMessage = info.serviceMessage;
    this.operation = info.operation;
    this.method = info.method;
    this.path = info.path;
    if (info.incidentId) this.incidentId = info.incidentId;
    if (info.code !== undefined) this.code = info.code;
    if (info.traceId) this.traceId = info.traceId;
  }

  /**
   * The default message: what was asked, what came back, the service's own text, and its error code and
   * trace id when it gave them (what support asks for), e.g. "searchData (POST /api/rest/2.0/searchdata)
   * failed with HTTP 401: Authentication required. (error code 10097, trace id b2c3…)".
   */
  static describe(info: ServiceErrorInfo): string {
    const what = `${info.operation} (${info.method} ${info.path})`;
    const text = info.serviceMessage ? `: ${info.serviceMessage}` : '';
    const ids = [info.code !== undefined ? `error code ${info.code}` : '', info.traceId ? `trace id ${info.traceId}` : ''].filter(Boolean).join(', ');
    return `${what} failed with HTTP ${info.status}${text}${ids ? ` (${ids})` : ''}`;
  }
}

/** 401: the service could not verify the user (wrong user name or password, or the session expired). Seed 5, 7. */
export class AuthenticationError extends ServiceError {
  /** What the person should do when it is not "check the user name and password" (a refused token, say). */
  advice?: string;

  constructor(info: ServiceErrorInfo) {
    super(info, `${ServiceError.describe(info)} — the service could not verify the user; check the user name and password, then log in again`);
  }
}

/** 403: the user lacks the privilege (loads need "Can manage data" or administration). Seed 5, 7. */
export class PermissionError extends ServiceError {
  constructor(info: ServiceErrorInfo) {
    super(info, `${ServiceError.describe(info)} — the user lacks the privilege for this operation; ask an administrator`);
  }
}

/**
 * A named thing does not exist: HTTP 404, or the docs/service-interface.md §7 texts for an unknown cycle
 * (400 "Cycle_id=[…] does not exist.", 500 "… Unknown cycle_id …"), an absent target table
 * (400 "Unable to find table …"), or an absent bad records file (500 "Node does not exist: …").
 */
export class NotFoundError extends ServiceError {}

/**
 * The service speaks REST API v2 only and v2 has no such operation (its row in `SERVICE_OPERATIONS`,
 * operations.ts, says `none` with the page). Nothing was sent. `status` is 0.
 */
export class OperationUnavailableError extends ServiceError {
  /** The page that says REST API v2 has no such operation. */
  readonly page: string;
  constructor(operation: string, page: string) {
    super({ status: 0, serviceMessage: '', operation, method: '', path: '' }, `${operation} is not available on this service: it speaks REST API v2 only, and ${page}.`);
    this.page = page;
  }
}

/** No HTTP answer: the connection failed, was reset, TLS verification failed, or the call was aborted (status 0). */
export class ConnectionError extends ServiceError {
  /** True when the caller's `AbortSignal` ended the call. */
  readonly aborted: boolean;
  constructor(info: Omit<ServiceErrorInfo, 'status' | 'serviceMessage'>, cause: unknown, aborted: boolean) {
    const reason = aborted ? 'was aborted' : `could not reach the service (${causeText(cause)})`;
    super({ ...info, status: 0, serviceMessage: '' }, `${info.operation} (${info.method} ${info.path}) ${reason}`, { cause });
    this.aborted = aborted;
  }
}

/** Which deadline ran out: opening the connection, the first byte of the answer, or a pause inside its body. */
export type TimeoutPhase = 'connect' | 'headers' | 'body';

/**
 * A call ran out of one of its deadlines (common/src/api/session.ts, `callDeadlines`): the service did
 * not answer in time. Its message names the host, the call, how long was waited and the setting that
 * sets the deadline, e.g. "searchData (POST /callosum/…/searchdata) got no answer from host:8088 within
 * 120 s; the service may be overloaded or unreachable. Try again, or raise tsq.http.queryTimeout."
 */
export class TimeoutError extends ConnectionError {
  /** `host:port` of the service. */
  readonly host: string;
  readonly phase: TimeoutPhase;
  /** The deadline that ran out, in ms. */
  readonly timeoutMs: number;
  /** The setting (or option) that sets this deadline. */
  readonly setting: string;
  constructor(info: Omit<ServiceErrorInfo, 'status' | 'serviceMessage'> & { host: string }, cause: unknown, phase: TimeoutPhase, timeoutMs: number, setting: string) {
    super(info, cause, false);
    const what = `${info.operation} (${info.method} ${info.path})`;
    const secs = `${Math.round(timeoutMs / 100) / 10} s`;
    const happened =
      phase === 'connect'
        ? `could not open a connection to ${info.host} within ${secs}`
        : phase === 'headers'
          ? `got no answer from ${info.host} within ${secs}`
          : `stopped receiving the answer from ${info.host} for ${secs}`;
    this.message = `${what} ${happened}; the service may be overloaded or unreachable. Try again, or raise ${setting}.`;
    this.host = info.host;
    this.phase = phase;
    this.timeoutMs = timeoutMs;
    this.setting = setting;
  }
}

/**
 * A load cycle finished without success: its status had a code other than OK (e.g. LOAD_FAILED, field
 * notes 4.3), and `serviceMessage` is the status message (docs/service-interface.md §3: "the status message is the error").
 * `status` is the HTTP status of the status call (200).
 */
export class LoadFailedError extends ServiceError {
  /** The status code of the load, e.g. `LOAD_FAILED`. */
  readonly loadCode: string;
  /** The cycle id. */
  readonly cycleId: string;
  constructor(info: ServiceErrorInfo, cycleId: string, loadCode: string) {
    super(info, `load cycle ${cycleId} failed (${loadCode})${info.serviceMessage ? `: ${info.serviceMessage}` : ''}`);
    this.cycleId = cycleId;
    this.loadCode = loadCode;
  }
}

function causeText(cause: unknown): string {
  if (cause && typeof cause === 'object') {
    const code = memberOf(cause, 'code');
    const message = memberOf(cause, 'message');
    const parts = [typeof code === 'string' ? code : '', typeof message === 'string' ? message : ''].filter(Boolean);
    if (parts.length) return parts.join(' ');
  }
  return String(cause);
}

/**
 * Extracts the service's own text from an error body: a JSON body's `debug` (a JSON-encoded array of
 * strings, joined by spaces; docs/service-notes.md §1.6), else its `message`/`error` string; REST API v2's
 * `{"error": {"message": {"code", "incident_id_guid", "trace_id_guid", "debug"}}}` (the OpenAPI document's
 * error examples) or `{"error": {"message": "<text>"}}`; else the trimmed plain text
 * (docs/service-interface.md §7: load API errors are plain text). Long bodies are cut at 2000 characters.
 * Returns the text with the incident id, error code and trace id when the body gave them.
 */
export function serviceMessageOf(body: string): { text: string; incidentId?: string; code?: number | string; traceId?: string } {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const j = recordOr(JSON.parse(trimmed));
      const v2 = isRecord(j.error) ? j.error : undefined;
      const nested = isRecord(v2?.message) ? v2.message : undefined;
      const src = nested ?? j;
      const incidentId = typeof src.incident_id_guid === 'string' ? src.incident_id_guid : undefined;
      const traceId = typeof src.trace_id_guid === 'string' ? src.trace_id_guid : undefined;
      const rawCode = nested?.code ?? v2?.code;
      const code = typeof rawCode === 'number' || (typeof rawCode === 'string' && rawCode) ? rawCode : undefined;
      let text = debugText(src.debug);
      if (!text && typeof src.message === 'string') text = src.message;
      if (!text && typeof j.error === 'string') text = j.error;
      if (!text && v2 && typeof v2.message === 'string') text = v2.message;
      if (text || code !== undefined) return { text: cut(text), ...(incidentId ? { incidentId } : {}), ...(code !== undefined ? { code } : {}), ...(traceId ? { traceId } : {}) };
    } catch {
      // not JSON after all: keep the text
    }
  }
  return { text: cut(trimmed) };
}

/** v1's `debug` (a JSON-encoded array of strings, or an array) or v2's (a string), as one text. */
function debugText(debug: unknown): string {
  if (typeof debug === 'string') {
    try {
      const d: unknown = JSON.parse(debug);
      return Array.isArray(d) ? d.map(String).join(' ') : typeof d === 'string' ? d : debug;
    } catch {
      return debug;
    }
  }
  if (Array.isArray(debug)) return debug.map(String).join(' ');
  return '';
}

function cut(s: string): string {
  return s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}

const NOT_FOUND_TEXTS = [/does not exist/i, /unknown cycle_id/i, /unable to find table/i];

/** Builds the typed error for a non-success response (401 → AuthenticationError, 403 → PermissionError, not-found texts → NotFoundError). */
export function errorForResponse(info: ServiceErrorInfo): ServiceError {
  if (info.status === 401) return new AuthenticationError(info);
  if (info.status === 403) return new PermissionError(info);
  if (info.status === 404 || NOT_FOUND_TEXTS.some((r) => r.test(info.serviceMessage))) return new NotFoundError(info);
  return new ServiceError(info);
}
