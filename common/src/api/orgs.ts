/**
 * Orgs on the client (docs.thoughtspot.com cloud/latest/orgs-overview): a connection may name an Org, by
 * id or name (`AnalyticsServiceClientOptions.org`), and every call then runs in it. On v1 the cookie
 * session enters it right after its login (`GET session/orgs`, then `PUT session/orgs` with `orgid`); on
 * v2 the token is asked for it (`org_id` of auth/token/full, an integer: a name is first looked up in
 * the `orgs` of `auth/session/user`). docs/service-notes.md ("Orgs") has the readings taken.
 */
import { AuthenticationError } from './errors';
import { isRecord } from '../guards';

/** An Org as TSQ shows it: the service's integer id and its name. */
export interface OrgRef {
  id: number;
  name: string;
}

/** The Orgs a user may act in and the one the session or token runs in. */
export interface OrgList {
  orgs: OrgRef[];
  current?: OrgRef;
}

/** The Org `wanted` names among `orgs`: digits are an id, anything else a name (case-insensitive). */
export function findOrg(orgs: readonly OrgRef[], wanted: string | number): OrgRef | undefined {
  const text = String(wanted).trim();
  if (/^\d+$/.test(text)) return orgs.find((o) => o.id === Number(text));
  return orgs.find((o) => o.name.toLowerCase() === text.toLowerCase());
}

/** The refusal of a login for an Org the user is not in; names the Orgs it is in. */
export function notInOrgError(username: string, origin: string, wanted: string | number, orgs: readonly OrgRef[], path: string): AuthenticationError {
  const err = new AuthenticationError({ status: 401, serviceMessage: '', operation: 'login', method: 'POST', path });
  const known = orgs.length ? ` ${username}'s Orgs: ${orgs.map((o) => `${o.name} (${o.id})`).join(', ')}.` : '';
  err.message = `${username} is not a member of an Org "${String(wanted)}" at ${origin}.${known} Name one of them (the connection's "org", or --org).`;
  err.advice = err.message;
  return err;
}

/** An Org of an answer: v2's `{id, name}` (the id an integer, or digits in a string) or v1's `{orgId, orgName}`. */
export function orgRef(v: unknown): OrgRef | undefined {
  if (!isRecord(v)) return undefined;
  const o = v;
  const id = typeof o.id === 'number' ? o.id : typeof o.id === 'string' && /^\d+$/.test(o.id) ? Number(o.id) : typeof o.orgId === 'number' ? o.orgId : undefined;
  const name = typeof o.name === 'string' ? o.name : typeof o.orgName === 'string' ? o.orgName : undefined;
  return id === undefined || name === undefined ? undefined : { id, name };
}

/** The Orgs of a v2 `auth/session/user` answer (`orgs`, `current_org`: OpenAPI `User`). */
export function orgsOfSessionUser(user: Record<string, unknown>): OrgList {
  const orgs = Array.isArray(user.orgs) ? user.orgs.map(orgRef).filter((o): o is OrgRef => o !== undefined) : [];
  const current = orgRef(user.current_org);
  return { orgs, ...(current ? { current } : {}) };
}
