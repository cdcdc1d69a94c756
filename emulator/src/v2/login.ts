/**
 * Who a v2 token request names (auth/token/full, auth/token/object, auth/token/custom): a user name with
 * `password`, or with `secret_key` when trusted authentication is on; and the validity asked. Shared so
 * that every token operation authenticates alike (OpenAPI `getFullAccessToken`, `getObjectAccessToken`,
 * `getCustomAccessToken` of thoughtspot/rest-api-sdk: "When both `password` and `secret_key` are
 * included in the API request, `secret_key` takes precedence").
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { EmulatorUser } from '../context';
import { ApiError } from '../errors';
import { DEFAULT_VALIDITY_SEC } from './tokens';
import type { V2Deps } from './routes';
import { userInOrg } from '../orgs';
import { int, str } from '../requestValues';

/** Longest token validity accepted: one year, in seconds. */
export const MAX_VALIDITY_SEC = 365 * 24 * 3600;

function sameSecret(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The user a token request authenticates and the validity it asks (`validity_time_in_sec`, default 300,
 * at most `MAX_VALIDITY_SEC`). @throws ApiError 400 (no password nor secret, a bad validity), 401 (wrong
 * password or secret, trusted authentication off, no such user: `auto_create` is not supported)
 */
export async function loginOf(b: Record<string, unknown>, deps: Pick<V2Deps, 'catalog' | 'verifyPassword' | 'trustedAuthSecret'>): Promise<{ user: EmulatorUser; validity: number }> {
  const username = str(b, 'username', true)!;
  const password = str(b, 'password');
  const secret = str(b, 'secret_key');
  const validity = int(b, 'validity_time_in_sec', DEFAULT_VALIDITY_SEC, 1);
  if (validity > MAX_VALIDITY_SEC) throw new ApiError(400, `Invalid value for validity_time_in_sec: at most ${MAX_VALIDITY_SEC}.`);
  let user: EmulatorUser | undefined;
  if (secret !== undefined) {
    if (deps.trustedAuthSecret === undefined) throw new ApiError(401, 'Trusted authentication is not enabled on this instance: secret_key is refused.');
    if (!sameSecret(secret, deps.trustedAuthSecret)) throw new ApiError(401, 'Authentication failed: the secret_key is not valid.');
    const u = deps.catalog.userByName(username);
    user = u ? deps.catalog.user(u.id) : undefined;
    if (!user) throw new ApiError(401, 'Authentication failed: no such user (auto_create is not supported).');
  } else {
    if (password === undefined) throw new ApiError(400, 'Give password, or secret_key for trusted authentication.');
    user = await deps.verifyPassword(username, password);
    if (!user) throw new ApiError(401, 'Authentication failed: wrong user name or password.');
  }
  return { user, validity };
}

/**
 * Route option of the v2 logins (auth/token/full, auth/session/login), whose only request body in the
 * OpenAPI document (thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json`) is `application/json`:
 * a body of another type, or one with no type, is refused with 415 before it is read, so a web page's
 * plain form or text POST (which a browser sends cross-site without asking) cannot obtain a token or a
 * session. A request with no body at all goes on (and answers 400 for the missing user name).
 */
export const JSON_BODY_ONLY = {
  onRequest: async (req: FastifyRequest): Promise<void> => {
    const type = req.headers['content-type'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (type === undefined ? !hasBody : type.split(';')[0]!.trim().toLowerCase() === 'application/json') return;
    throw new ApiError(415, `Unsupported Content-Type ${JSON.stringify(type ?? '(none)')}: ${req.routeOptions.url ?? 'this operation'} takes a JSON body (Content-Type: application/json).`);
  },
};

/**
 * `loginOf`, then the Org the request names (`org_id`, an integer, or in later builds `org_identifier`):
 * the user as it acts there (orgs.ts `userInOrg`). @throws ApiError as `loginOf`, and 401 for an Org the
 * user is not in
 */
export async function loginInOrgOf(b: Record<string, unknown>, deps: Pick<V2Deps, 'catalog' | 'verifyPassword' | 'trustedAuthSecret'>): Promise<{ user: EmulatorUser; validity: number }> {
  const { user, validity } = await loginOf(b, deps);
  return { user: userInOrg(deps.catalog, user, b.org_id ?? b.org_identifier, b.org_id !== undefined ? 'org_id' : 'org_identifier'), validity };
}
