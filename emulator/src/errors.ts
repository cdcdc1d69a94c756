/**
 * Errors of the public API. Bodies follow docs/service-notes.md §1.6 and §5.1: JSON with `type`,
 * `code`, `incident_id_guid`, `trace_id_guid` and `debug`, where `debug` is a JSON-encoded list of
 * strings naming the problem. 401 and 403 carry the texts of docs/service-interface.md §7.
 *
 * A body never carries the engine's text or SQL: an error that is not the service's own (an
 * `ApiError`, or a Fastify 4xx about the request itself) answers with the service's message and the
 * incident id only, and its detail goes to the emulator's incident log with that id (`reportIncident`).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Text of a 401 (docs/service-interface.md §7). */
export const UNAUTHORIZED_TEXT = 'Unable to verify user. Please login again.';
/** Text of a 403 (docs/service-interface.md §7). */
export const FORBIDDEN_TEXT = 'User does not have required privileges. Please contact your administrator.';
/** Text of a 500: what the person sees instead of the engine's message. */
export const INTERNAL_TEXT = 'The service could not complete the request because of an internal error. Quote the incident id to the administrator, who finds the detail in the service log.';

/** An error a public API handler throws to answer `status` with the error body of docs/service-notes.md §1.6. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/**
 * An error whose message is the service's own and whose `detail` (the engine's text, SQL) must only
 * reach the incident log: answers `status` with `message` and an incident id.
 */
export class IncidentError extends ApiError {
  constructor(status: number, message: string, readonly detail: string) {
    super(status, message);
  }
}

/** 400 naming the problem (a bad parameter, query, column or data source). */
export function badRequest(message: string, ...details: string[]): ApiError {
  return new ApiError(400, message, details);
}

const TYPES: Record<number, [string, number]> = {
  400: ['BadRequest', 10000],
  401: ['Unauthorized', 10002],
  403: ['Forbidden', 10003],
  404: ['NotFound', 10004],
  500: ['InternalError', 10005],
};

/** The JSON error body for a status and messages; `incident` is the incident id (a new one when omitted). */
export function errorBody(status: number, messages: string[], incident: string = randomUUID()): Record<string, unknown> {
  const [type, code] = TYPES[status] ?? ['Error', 10000];
  return { type, code, incident_id_guid: incident, trace_id_guid: randomUUID(), debug: JSON.stringify(messages) };
}

/** Sends an error body. */
export function sendError(reply: FastifyReply, status: number, ...messages: string[]): FastifyReply {
  return reply.code(status).type('application/json').send(errorBody(status, messages));
}

/** One entry of the incident log: what the response did not say. */
export interface Incident {
  /** The incident id the response carried (`incident_id_guid`). */
  incident: string;
  /** ISO-8601 time. */
  time: string;
  status: number;
  method: string;
  /** The path, without the query string (which may hold a query or a password). */
  path: string;
  /** The error's own text (the engine's message, SQL, a stack). */
  detail: string;
}

/** Where incidents go. */
export type IncidentSink = (incident: Incident) => void;

/** The default incident log: one JSON line on standard error. */
export const stderrIncidentSink: IncidentSink = (incident) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'incident', ...incident })}\n`);
};

const sinks = new WeakMap<FastifyInstance, IncidentSink>();

/** Sets where the incidents of `app` (and its plugins) go; without it they go to standard error. */
export function setIncidentSink(app: FastifyInstance, sink: IncidentSink): void {
  sinks.set(app, sink);
}

/** Writes an incident for `req` to its app's incident log and returns the incident id. */
export function reportIncident(req: FastifyRequest, status: number, detail: string): string {
  const incident = randomUUID();
  let app: FastifyInstance | null = req.server;
  let sink: IncidentSink | undefined;
  // plugins are child instances; the sink is set on the root app, reached through the prototype chain
  while (app && !(sink = sinks.get(app))) app = Object.getPrototypeOf(app);
  (sink ?? stderrIncidentSink)({ incident, time: new Date().toISOString(), status, method: req.method, path: req.url.split('?')[0] ?? '', detail });
  return incident;
}

/**
 * What the public API answers for any error a handler throws: an `ApiError` its status and messages;
 * an `IncidentError` its message with the detail logged; a Fastify 4xx about the request (body too
 * large, bad JSON) its status and message; anything else 500 with INTERNAL_TEXT, the error's text
 * going only to the incident log.
 */
export function publicErrorReply(err: Error & { statusCode?: number }, req: FastifyRequest): { status: number; body: Record<string, unknown> } {
  if (err instanceof IncidentError) {
    const incident = reportIncident(req, err.status, err.detail);
    return { status: err.status, body: errorBody(err.status, [err.message], incident) };
  }
  if (err instanceof ApiError) return { status: err.status, body: errorBody(err.status, [err.message, ...err.details]) };
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status !== 500) return { status, body: errorBody(status, [err.message]) };
  const incident = reportIncident(req, 500, err.stack ?? err.message);
  return { status, body: errorBody(500, [INTERNAL_TEXT], incident) };
}

/** The body of a 500 of the data-load API (plain text): INTERNAL_TEXT and the incident id, the detail logged. */
export function loadInternalErrorText(err: Error, req: FastifyRequest): string {
  return `${INTERNAL_TEXT} Incident ${reportIncident(req, 500, err.stack ?? err.message)}.`;
}

/**
 * The `QueryError`-like 400 for a query the engine refused while running (a value out of range, a
 * conversion that failed): the person sees which kind of problem it was, never the engine's text.
 * @param engineMessage the engine's error text (logged with the incident id only).
 */
export function engineQueryFailure(engineMessage: string): IncidentError {
  const kind = /^Out of Range Error/.test(engineMessage)
    ? 'a number in it is out of range (for example a top or bottom count, or a value too large for its column)'
    : /^Conversion Error/.test(engineMessage)
      ? 'a value in it cannot be converted to the type of its column'
      : 'an input value in it is not valid';
  return new IncidentError(400, `The query could not run: ${kind}. Check the numbers and values in the query.`, engineMessage);
}
