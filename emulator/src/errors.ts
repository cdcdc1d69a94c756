/**
 * Errors of the public API. Bodies follow field notes 1.6 and 5.1: JSON with `type`, `code`,
 * `incident_id_guid`, `trace_id_guid` and `debug`, where `debug` is a JSON-encoded list of strings
 * naming the problem. 401 and 403 carry the seed's texts (seed 7).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Text of a 401 (seed 7). */
export const UNAUTHORIZED_TEXT = 'Unable to verify user. Please login again.';
/** Text of a 403 (seed 7). */
export const FORBIDDEN_TEXT = 'User does not have required privileges. Please contact your administrator.';

/** An error a public API handler throws to answer `status` with the field notes' error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
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

/** The JSON error body for a status and messages. */
export function errorBody(status: number, messages: string[]): Record<string, unknown> {
  const [type, code] = TYPES[status] ?? ['Error', 10000];
  return { type, code, incident_id_guid: randomUUID(), trace_id_guid: randomUUID(), debug: JSON.stringify(messages) };
}

/** Sends an error body. */
export function sendError(reply: FastifyReply, status: number, ...messages: string[]): FastifyReply {
  return reply.code(status).type('application/json').send(errorBody(status, messages));
}
