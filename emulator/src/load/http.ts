/**
 * The plain-text answers of the data-load API (docs/service-interface.md §7: load API responses are plain
 * text) and the small request helpers every route of `emulator/src/load/` shares.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord, memberOf } from '../../../common/src/guards';

/** The path prefix of the load API (docs/service-interface.md §9). */
export const BASE = '/ts_dataservice/v1';

/** The texts of docs/service-interface.md §7 and of the plain-text bodies of §4.1. */
export const MESSAGES = {
  unauthorized: 'Unable to verify user. Please login again.',
  forbidden: 'User does not have required privileges. Please contact your administrator.',
  invalidParams: 'Invalid input params for starting data load: Request body',
  noTable: 'Unable to find table in the engine. Cannot load data.',
  noEngine: 'Cannot connect to the engine manager.',
  authService: "error code = INTERNAL, message = Couldn't resolve the authentication service.",
  uploadComplete: 'Upload Complete.',
  commitRequested: 'Commit load cycle request made.',
  ping: 'Ping Received.',
  unknownCycle: (id: string) => `Cycle_id=[${id}] does not exist.`,
  unknownCommit: (id: string) => `Commit load cycle failed. Error ending load. Unknown cycle_id '${id}'`,
  noBadRecords: (id: string) => `Node does not exist: /tmp/${id}.bad_record`,
} as const;

/** Sends a plain-text body with `status`. */
export function text(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/** Text for the `x-tsq-detail` header: printable ASCII only (a header cannot carry anything else), at most 500 characters. */
export function detail(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

/** A body as an object: JSON and form bodies arrive parsed; a text body is read as JSON (returned as text when it is not JSON). */
export function bodyObject(body: unknown): unknown {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const s = body.toString();
    if (s.trim() === '') return undefined;
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  return body;
}

/** The value of the `JSESSIONID` cookie, from @fastify/cookie or the raw header; undefined when there is none. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const cookies = memberOf(req, 'cookies');
  if (isRecord(cookies)) return typeof cookies.JSESSIONID === 'string' ? cookies.JSESSIONID : undefined;
  const m = /(?:^|;\s*)JSESSIONID=([^;]*)/.exec(req.headers.cookie ?? '');
  return m ? decodeURIComponent(m[1] ?? '') : undefined;
}
