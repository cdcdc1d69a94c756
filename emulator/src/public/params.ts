/**
 * What the public API's routes share beside the readers of their parameters (emulator/src/requestValues.ts):
 * path parameters, GUID lists, the checks every route makes (session user, privileges), and the object
 * header shape (docs/service-interface.md §2.4).
 */
import type { FastifyRequest } from 'fastify';
import type { Header } from '../metadataStore';
import type { EmulatorUser } from '../context';
import { ApiError, badRequest, FORBIDDEN_TEXT, UNAUTHORIZED_TEXT } from '../errors';
import { recordOr } from '../../../common/src/guards';
import { formValues, stringList } from '../requestValues';

/**
 * A path parameter of the route (`:name` of its URL), as text. @throws ApiError 400 naming it when the route
 * has no such parameter (a route declared without it: a bug of the emulator, shown, not hidden).
 */
export function pathParam(req: FastifyRequest, name: string): string {
  const v = recordOr(req.params)[name];
  if (typeof v !== 'string') throw badRequest(`The path has no parameter ${name}`);
  return v;
}

/** A list parameter whose values must be GUIDs (8-4-4-4-12 hexadecimal digits); 400 naming the parameter and the bad value. */
export function guidListParam(req: FastifyRequest, name: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
  const list = stringList(formValues(req), name, opts);
  const bad = list?.find((x) => !GUID.test(x));
  if (bad !== undefined) throw badRequest(`Invalid value for ${name}: ${JSON.stringify(bad)} is not a GUID`);
  return list?.map((x) => x.toLowerCase());
}

/** A GUID: 8-4-4-4-12 hexadecimal digits. */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

