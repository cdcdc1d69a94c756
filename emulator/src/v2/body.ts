/**
 * Reading a REST API v2 request's JSON body (emulator/src/v2/): the body as an object and its members
 * as strings, integers, booleans and lists of strings, each refused with the v2 400 of `ApiError` when
 * it has another type. Shared by the v2 routes (routes.ts) and the administration routes (admin.ts).
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors';
import { isRecord, isStringArray } from '../../../common/src/guards';

/** The JSON body as an object (`{}` when there is none). @throws ApiError 400 for an array or a scalar. */
export function body(req: FastifyRequest): Record<string, unknown> {
  if (req.body === undefined || req.body === null) return {};
  if (!isRecord(req.body)) throw new ApiError(400, 'The request body must be a JSON object.');
  return req.body;
}

/** A string member; `''`, null and absent are undefined. @throws ApiError 400 when required and absent, or not a string. */
export function str(b: Record<string, unknown>, name: string, required = false): string | undefined {
  const v = b[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new ApiError(400, `Missing parameter ${name}.`);
    return undefined;
  }
  if (typeof v !== 'string') throw new ApiError(400, `Invalid value for ${name}: expected a string.`);
  return v;
}

/** An integer member of at least `min` (a numeric string is read too), `dflt` when absent. @throws ApiError 400 otherwise. */
export function int(b: Record<string, unknown>, name: string, dflt: number, min: number): number {
  const v = b[name];
  if (v === undefined || v === null) return dflt;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) throw new ApiError(400, `Invalid value for ${name}: expected an integer of ${min} or more.`);
  return n;
}

/**
 * A boolean member: `true`/`false`, or the strings `"true"`/`"false"` as ThoughtSpot's Python client
 * sends some (`TSRestApiV2.auth_session_login`: `'remember_me': str(remember_me).lower()`); `dflt` when
 * absent. @throws ApiError 400 otherwise.
 */
export function bool(b: Record<string, unknown>, name: string, dflt = false): boolean {
  const v = b[name];
  if (v === undefined || v === null) return dflt;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new ApiError(400, `Invalid value for ${name}: expected true or false.`);
}

/** A list-of-strings member, undefined when absent. @throws ApiError 400 for anything else. */
export function stringList(b: Record<string, unknown>, name: string): string[] | undefined {
  const v = b[name];
  if (v === undefined || v === null) return undefined;
  if (!isStringArray(v)) throw new ApiError(400, `Invalid value for ${name}: expected a list of strings.`);
  return v;
}
