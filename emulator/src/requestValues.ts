/**
 * The one set of readers of a request's values, for both generations of the public API: the v1 routes
 * read `formValues(req)` (query string, then the form or JSON body, every value as its text:
 * docs/service-notes.md §0), the v2 routes `body(req)` (the JSON body) and its nested objects. `str`,
 * `int`, `bool` and `stringList` read a member and refuse another type with the 400 of `ApiError` naming
 * it; a v1 value is text, so a v1 list may also be written as text (a JSON array, `[a,b]` or `a,b`).
 * test/unit/emulator-readers.test.ts fails on a second set of readers.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import { isRecord, isStringArray, recordOr } from '../../common/src/guards';

/** Marks the values of a v1 request (`formValues`): text, whose lists are written as text. */
const FORM: unique symbol = Symbol('form values');

/** The values a reader reads: a JSON object (v2 body, or an object in it), or a v1 request's `formValues`. */
export type RequestValues = Readonly<Record<string, unknown>> & { readonly [FORM]?: true };

/** The JSON body as an object (`{}` when there is none). @throws ApiError 400 for an array or a scalar. */
export function body(req: FastifyRequest): Record<string, unknown> {
  if (req.body === undefined || req.body === null) return {};
  if (!isRecord(req.body)) throw new ApiError(400, 'The request body must be a JSON object.');
  return req.body;
}

/**
 * The parameters of a v1 request: those of the query string, else of the body (form or JSON), each as its
 * text (an array or object as its JSON); null stays null (named, but without a value).
 */
export function formValues(req: FastifyRequest): RequestValues {
  const out: Record<string, unknown> & { [FORM]?: true } = { [FORM]: true };
  for (const source of [recordOr(req.body), recordOr(req.query)]) {
    for (const [name, v] of Object.entries(source)) {
      if (v === undefined) continue;
      out[name] = v === null ? null : typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
  }
  return out;
}

/** True when the values name `name` at all, even without a value (`vizid=`, `vizid=[]`, null). */
export function has(values: RequestValues, name: string): boolean {
  return values[name] !== undefined;
}

/** A string member; `''`, null and absent are undefined. @throws ApiError 400 when required and absent, or not a string. */
export function str(values: RequestValues, name: string, required = false): string | undefined {
  const v = values[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new ApiError(400, `Missing parameter ${name}.`);
    return undefined;
  }
  if (typeof v !== 'string') throw new ApiError(400, `Invalid value for ${name}: expected a string.`);
  return v;
}

/** An integer member of at least `min` (a numeric string is read too), `dflt` when absent or empty. @throws ApiError 400 otherwise. */
export function int(values: RequestValues, name: string, dflt: number, min = Number.MIN_SAFE_INTEGER): number {
  const v = values[name];
  if (v === undefined || v === null || v === '') return dflt;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) {
    throw new ApiError(400, `Invalid value for ${name}: ${JSON.stringify(v)} is not an integer${min > Number.MIN_SAFE_INTEGER ? ` of ${min} or more` : ''}.`);
  }
  return n;
}

/**
 * A boolean member: `true`/`false`, or the text `true`/`false` in any case (as v1 forms send them, and as
 * ThoughtSpot's Python client sends some v2 members: `TSRestApiV2.auth_session_login`: `'remember_me':
 * str(remember_me).lower()`); `dflt` when absent (a v1 `null` text is absent too). @throws ApiError 400 otherwise.
 */
export function bool(values: RequestValues, name: string): boolean | undefined;
export function bool(values: RequestValues, name: string, dflt: boolean): boolean;
export function bool(values: RequestValues, name: string, dflt?: boolean): boolean | undefined {
  const v = values[name];
  if (v === undefined || v === null || (values[FORM] && (v === '' || v === 'null'))) return dflt;
  if (v === true || (typeof v === 'string' && /^true$/i.test(v))) return true;
  if (v === false || (typeof v === 'string' && /^false$/i.test(v))) return false;
  throw new ApiError(400, `Invalid value for ${name}: expected true or false.`);
}

/**
 * A list-of-strings member, undefined when absent. With `nonEmpty`, one that is named but empty (`vizid=`,
 * `vizid=[]`) is a 400 naming it: the service's documentation gives such parameters as "a JSON array of
 * GUIDs" to fetch, and an empty selection is a mistake of the caller, not a request for nothing or for
 * everything. @throws ApiError 400 naming the member when it is not a list of strings
 */
export function stringList(values: RequestValues, name: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
  const v = values[name];
  const empty = () => new ApiError(400, `Invalid value for ${name}: empty; give a JSON array of one or more values, or leave ${name} out.`);
  if (v === undefined || v === null || (values[FORM] && v === '')) {
    if (opts.nonEmpty && has(values, name)) throw empty();
    return undefined;
  }
  const list = values[FORM] && typeof v === 'string' ? listOfText(v, name) : v;
  if (!isStringArray(list)) throw new ApiError(400, `Invalid value for ${name}: expected a list of strings.`);
  if (opts.nonEmpty && list.length === 0) throw empty();
  return list;
}

/**
 * A list written as text (v1): a JSON array; a bracketed list without quotes (`[guid1,guid2]`, as the
 * transfer-ownership page of https://developers.thoughtspot.com/docs/user-api writes `objectsID`); or a
 * comma-separated list. @throws ApiError 400 for a bracket that is neither
 */
function listOfText(v: string, name: string): unknown {
  const t = v.trim();
  if (!t.startsWith('[')) return t.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1')).filter(Boolean);
  try {
    return JSON.parse(t);
  } catch {
    const bare = /^\[([^[\]"]*)\]$/.exec(t);
    if (bare) return (bare[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    throw new ApiError(400, `Invalid value for ${name}: not a JSON array.`);
  }
}
