/**
 * Bearer tokens of REST API v2 (`POST /api/rest/2.0/auth/token/full`,
 * https://developers.thoughtspot.com/docs/rest-apiv2-reference, developer-docs `authentication.adoc`).
 *
 * A token is a session of the public API (emulator/src/auth.ts) with an expiry: the token text is the
 * session's id, so the v1 routes, which already accept `Authorization: Bearer <session>`, accept it too,
 * and a password change or revocation that ends the user's sessions ends their tokens. Expiry is
 * checked on every request (`TokenStore.check`): an expired token's session is closed before any route
 * reads it, so v1 and v2 answer 401 alike.
 */
import type { Session, Sessions } from '../auth';

/** A token handed out by auth/token/full. Times are epoch milliseconds. */
export interface IssuedToken {
  token: string;
  userId: string;
  /** The Org the token is scoped to (auth/token/full `org_id`; 0: Primary). */
  orgId: number;
  created: number;
  expires: number;
  /** The object an auth/token/object token was asked for (`scope.metadata_id`); absent for a full token. */
  metadataId?: string;
}

/** Default validity of a token when the request gives none: 300 s (developer-docs `authentication.adoc`). */
export const DEFAULT_VALIDITY_SEC = 300;

/** The tokens of one emulator, over its public-API sessions. */
export class TokenStore {
  private readonly byToken = new Map<string, IssuedToken>();

  /**
   * @param sessions the public API's sessions (a token is one of them).
   * @param clock epoch milliseconds now; tests drive it to let tokens expire without waiting.
   */
  constructor(
    private readonly sessions: Sessions,
    private readonly clock: () => number,
  ) {}

  /** Issues a token for a user in one Org (default Primary), valid `validitySec` seconds from now (for `metadataId`: an object token). */
  issue(userId: string, validitySec: number, opts: { orgId?: number; metadataId?: string } = {}): IssuedToken {
    // tokens nobody presents again would stay forever: drop the expired ones now and then
    if (this.byToken.size >= 1000) for (const k of [...this.byToken.keys()]) this.check(k);
    const { orgId = 0, metadataId } = opts;
    const s: Session = this.sessions.open(userId, orgId);
    const created = this.clock();
    const t: IssuedToken = { token: s.id, userId, orgId, created, expires: created + validitySec * 1000, ...(metadataId !== undefined ? { metadataId } : {}) };
    this.byToken.set(t.token, t);
    return t;
  }

  /**
   * Ends a token that has expired (its session is closed, so no route accepts it). Called for every
   * request's bearer text; text that is not one of our tokens (a session id sent as bearer) is left alone.
   * @returns the token when it is ours and still valid, else undefined.
   */
  check(token: string | undefined): IssuedToken | undefined {
    if (!token) return undefined;
    const t = this.byToken.get(token);
    if (!t) return undefined;
    if (this.clock() >= t.expires || !this.sessions.get(token)) {
      this.revoke(token);
      return undefined;
    }
    return t;
  }

  /** Revokes one token (its session ends). */
  revoke(token: string): void {
    this.byToken.delete(token);
    this.sessions.close(token);
  }

  /** Revokes every token of a user. */
  revokeUser(userId: string): void {
    for (const [k, t] of this.byToken) if (t.userId === userId) this.revoke(k);
  }
}

/** The bearer text of an `Authorization` header, or undefined. */
export function bearerOf(authorization: string | undefined): string | undefined {
  if (!authorization || !/^bearer /i.test(authorization)) return undefined;
  const t = authorization.slice(7).trim();
  return t === '' ? undefined : t;
}
