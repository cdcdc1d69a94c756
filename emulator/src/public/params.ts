/**
 * Reading the public API's parameters (query string, then form or JSON body; docs/service-notes.md §0) and the
 * checks every route shares (session user, privileges), plus the object header shape (docs/service-interface.md §2.4).
 */
import type { FastifyRequest } from 'fastify';
import type { Header } from '../metadataStore';
import type { EmulatorUser } from '../context';
import { ApiError, badRequest, FORBIDDEN_TEXT, UNAUTHORIZED_TEXT } from '../errors';
import { recordOr } from '../../../common/src/guards';

/** A request parameter from the query string, else the body; undefined when absent or empty. */
export function param(req: FastifyRequest, name: string): string | undefined {
  const v = rawParam(req, name);
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return JSON.stringify(v);
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s === '' ? undefined : s;
}

/** The raw value of a parameter (query string, then body), unparsed; undefined when absent. */
export function rawParam(req: FastifyRequest, name: string): unknown {
  return recordOr(req.query)[name] ?? recordOr(req.body)[name];
}

/**
 * A path parameter of the route (`:name` of its URL), as text. @throws ApiError 400 naming it when the route
 * has no such parameter (a route declared without it: a bug of the emulator, shown, not hidden).
 */
export function pathParam(req: FastifyRequest, name: string): string {
  const v = recordOr(req.params)[name];
  if (typeof v !== 'string') throw badRequest(`The path has no parameter ${name}`);
  return v;
}

/** An integer parameter with its default; 400 naming it when not an integer. */
export function intParam(req: FastifyRequest, name: string, dflt: number): number {
  const v = param(req, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n)) throw badRequest(`Invalid value for ${name}: ${v} is not an integer`);
  return n;
}

/** A boolean parameter (`true`/`false`), undefined when absent; 400 otherwise. */
export function boolParam(req: FastifyRequest, name: string): boolean | undefined {
  const v = param(req, name);
  if (v === undefined || v === 'null') return undefined;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  throw badRequest(`Invalid value for ${name}: ${v} is not true or false`);
}

/**
 * True when the request names the parameter at all (query string or body), even with an empty value
 * (`vizid=` or `vizid=[]`), so that a route can refuse an empty value instead of reading it as absent.
 */
export function hasParam(req: FastifyRequest, name: string): boolean {
  return recordOr(req.query)[name] !== undefined || recordOr(req.body)[name] !== undefined;
}

/**
 * A list parameter: a JSON array of strings, or a comma-separated list; undefined when absent.
 * With `nonEmpty`, a parameter that is present but empty (`vizid=`, `vizid=[]`) is a 400 naming it:
 * the service's documentation gives such parameters as "a JSON array of GUIDs" to fetch, and an empty
 * selection is a mistake of the caller, not a request for nothing or for everything.
 * @throws ApiError 400 naming the parameter when the value is not a JSON array of strings (or is empty with `nonEmpty`)
 */
export function listParam(req: FastifyRequest, name: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
  const v = param(req, name);
  if (v === undefined) {
    if (opts.nonEmpty && hasParam(req, name)) throw badRequest(`Invalid value for ${name}: empty; give a JSON array of one or more values, or leave ${name} out`);
    return undefined;
  }
  const list = parseList(v, name);
  if (opts.nonEmpty && list.length === 0) throw badRequest(`Invalid value for ${name}: an empty list; give one or more values, or leave ${name} out`);
  return list;
}

/** A list parameter whose values must be GUIDs (8-4-4-4-12 hexadecimal digits); 400 naming the parameter and the bad value. */
export function guidListParam(req: FastifyRequest, name: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
  const list = listParam(req, name, opts);
  const bad = list?.find((x) => !GUID.test(x));
  if (bad !== undefined) throw badRequest(`Invalid value for ${name}: ${JSON.stringify(bad)} is not a GUID`);
  return list?.map((x) => x.toLowerCase());
}

/** A GUID: 8-4-4-4-12 hexadecimal digits. */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads a list value: a JSON array of strings; a bracketed list without quotes (`[guid1,guid2]`, as the
 * transfer-ownership page of https://developers.thoughtspot.com/docs/user-api writes `objectsID`); or a
 * comma-separated list.
 */
function parseList(v: string, name: string): string[] {
  const t = v.trim();
  if (t.startsWith('[')) {
    let a: unknown;
    try {
      a = JSON.parse(t);
    } catch {
      const bare = /^\[([^[\]"]*)\]$/.exec(t);
      if (bare) return (bare[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      throw badRequest(`Invalid value for ${name}: not a JSON array`);
    }
    if (!Array.isArray(a) || a.some((x) => typeof x !== 'string')) throw badRequest(`Invalid value for ${name}: expected a JSON array of strings`);
    return a as string[];
  }
  return t.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1')).filter(Boolean);
}

/** The session's user; throws 401 when there is none (the hook guarantees it on protected routes). */
export function userOf(req: FastifyRequest): EmulatorUser {
  if (!req.tsUser) throw new ApiError(401, UNAUTHORIZED_TEXT);
  return req.tsUser;
}

/** Throws 403 with the documented text (docs/service-interface.md §7) unless the user holds one of the privileges. */
export function requirePrivilege(user: EmulatorUser, ...privileges: string[]): void {
  const has: ReadonlySet<string> = user.privileges;
  if (!privileges.some((p) => has.has(p))) throw new ApiError(403, FORBIDDEN_TEXT);
}

/** The header of a metadata object as the API shows it (docs/service-interface.md §2.4, docs/service-notes.md §3.1: `owner` is the object itself). */
export function objectHeader(h: Header, owner = h.id): Record<string, unknown> {
  return {
    id: h.id,
    name: h.name,
    ...(h.description !== undefined ? { description: h.description } : {}),
    author: h.author,
    created: h.created,
    modified: h.modified,
    modifiedBy: h.modifiedBy,
    owner,
    isAutoCreated: h.isAutoCreated,
    isAutoDelete: false,
  };
}

