/**
 * What today's service asks of a client beside the seed's cookie sessions (docs/service-interface.md §10):
 * bearer tokens (`BearerTokens`), the rate limit (`RateLimiter`, `retryDelay`, `rateLimitHooks`) and the
 * API generation (`probeApiVersion`); each export's doc comment gives its rules and references. No
 * function here puts a password, a secret key or a token in a log or an error message.
 */
import { AuthenticationError, ServiceError } from './errors';
import { LOAD_PREFIX } from './loadApi';
import { sleep, type HttpSession, type SessionHooks } from './session';

/** Prefix of REST API v2. */
export const V2_PREFIX = '/api/rest/2.0';

/** `tsq.apiVersion` / a connection's `apiVersion`: which public API generation to speak. */
export type ApiVersionSetting = 'auto' | 'v1' | 'v2';

/** How the client signs in with a bearer token (absent: the seed's cookie session, or a password token on v2). */
export interface BearerOptions {
  /** The trusted-authentication secret key (`secret_key` of auth/token/full), read when a token is needed. */
  getSecretKey?: () => string | Promise<string>;
  /** A token the person gave (TSQ_TOKEN, secret storage), read when a token is needed; it cannot be renewed. */
  getToken?: () => string | Promise<string>;
  /** `validity_time_in_sec` of the tokens the client asks for; default 300 (the service's default). */
  validitySec?: number;
}

/**
 * The Org the tokens are asked for (`org_id` of auth/token/full): `wanted` as the connection names it (id
 * or name), and `idFor`, which finds its id with a token obtained without an Org (common/src/api/orgs.ts).
 */
export interface TokenOrg {
  wanted: string | number;
  idFor: (probeToken: string, signal?: AbortSignal) => Promise<number>;
}

/** Rate limit of one connection: a token bucket of `perSecond` requests per second holding at most `burst`. */
export interface RateLimitOptions {
  /** Default 100 (the service's limit per client address). */
  perSecond?: number;
  /** Default 10. */
  burst?: number;
  /** Longest total wait for one call's 429 retries, in ms; past it the 429 is thrown. Default 120,000. */
  maxWaitMs?: number;
}

/**
 * A token bucket shared by every session of one connection. `acquire` resolves when a request may go.
 * A 429 (`pause`) holds every request until its Retry-After has passed.
 *
 * Since 26.2.0.cl a client address gets 100 requests per second across v1 and v2 plus a burst of 10,
 * then 429 (developer-docs `about-rest-apis.adoc`). One limiter per connection keeps under it; a 429
 * waits for Retry-After (or backs off exponentially with jitter) and a repeatable call is sent again; a
 * chunk upload or a commit never is (session.ts).
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly perSecond = 100,
    readonly burst = 10,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Waits for a slot; requests leave in the order they asked. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.take(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Holds every request for `ms` milliseconds (after a 429). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const t = this.now();
      if (t < this.pausedUntil) {
        await sleep(this.pausedUntil - t, signal);
        continue;
      }
      this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.perSecond) / 1000);
      this.last = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(((1 - this.tokens) * 1000) / this.perSecond, signal);
    }
  }
}

/**
 * Milliseconds to wait before retry `attempt` (1, 2, …) of a call answered 429: Retry-After (seconds,
 * or an HTTP date) when the service sent it, else 100 ms × 2^(attempt−1) capped at 5 s; both with up to
 * 25% jitter so that waiting calls do not come back together.
 */
export function retryDelay(attempt: number, retryAfter: string | undefined, random: () => number = Math.random): number {
  let base: number | undefined;
  if (retryAfter !== undefined && retryAfter.trim() !== '') {
    const s = Number(retryAfter);
    base = Number.isFinite(s) ? Math.max(0, s * 1000) : Math.max(0, Date.parse(retryAfter) - Date.now());
    if (Number.isNaN(base)) base = undefined;
  }
  base ??= Math.min(5000, 100 * 2 ** (attempt - 1));
  return Math.round(base + base * 0.25 * random());
}

/** The session hooks of one connection's rate limit: the limiter before each request, 429 retries within `maxWaitMs`. */
export function rateLimitHooks(limiter: RateLimiter | undefined, maxWaitMs = 120_000): SessionHooks {
  return {
    beforeSend: limiter ? (signal) => limiter.acquire(signal) : undefined,
    retryDelay: (attempt, retryAfter, waitedMs) => {
      const ms = retryDelay(attempt, retryAfter);
      if (waitedMs + ms > maxWaitMs) return undefined;
      // the service said when: every request of the connection waits, not only this one
      if (retryAfter !== undefined) limiter?.pause(ms);
      return ms;
    },
  };
}

/** A token as auth/token/full answers it. */
interface TokenAnswer {
  token: string;
  expiration_time_in_millis?: number;
  creation_time_in_millis?: number;
}

/**
 * The bearer token of one connection. `acquire` gets a new one (the session's login); `header` gives the
 * Authorization header, renewing first when the token is within a tenth of its life (at most a minute) of
 * `expiration_time_in_millis`. A refused password or secret key is remembered: later calls fail at once
 * with the same error instead of asking again (no retry storm); a new client signs in again.
 *
 * A token comes from `POST /api/rest/2.0/auth/token/full` with the user name and the password, or with a
 * trusted-authentication `secret_key`, or is one the person gives (`TSQ_TOKEN`, the extension's secret
 * storage). It is sent as `Authorization: Bearer` to v1 and v2 alike, renewed before it expires and once
 * after a 401 in the middle of a run, and revoked on sign-out (`auth/token/revoke`). References:
 * https://developers.thoughtspot.com/docs/rest-apiv2-reference, developer-docs `authentication.adoc`
 * (validity default 300 s; a password token fails when MFA is on).
 */
export class BearerTokens {
  private token: string | undefined;
  private expires = Infinity;
  private renewAt = Infinity;
  private refused: Error | undefined;
  private given: string | undefined;
  private renewing: Promise<void> | undefined;
  /** How many tokens were obtained (for tests and the log). */
  obtained = 0;

  /**
   * @param session the public session (auth/token/full is sent through it without authentication).
   * @param clock epoch milliseconds now (the service's `expiration_time_in_millis` is on this clock).
   */
  constructor(
    private readonly session: HttpSession,
    private readonly username: string,
    private readonly getPassword: (() => string | Promise<string>) | undefined,
    private readonly options: BearerOptions,
    private readonly clock: () => number = Date.now,
    private readonly org?: TokenOrg,
  ) {}

  /** The id of the connection's Org once known (digits at once; a name after its first look-up). */
  private orgId: number | undefined;

  /** True when the token is one the person gave (it cannot be renewed, and sign-out does not revoke it). */
  get isGiven(): boolean {
    return this.options.getToken !== undefined;
  }

  /** The token held now (given or obtained), for redaction; undefined when none. */
  get current(): string | undefined {
    return this.token;
  }

  /** True while the client holds a token. */
  get hasToken(): boolean {
    return this.token !== undefined;
  }

  /**
   * Gets a token now (the session's login). A given token is read again; when it is the one the service
   * just refused, the person must give a new one.
   * @throws AuthenticationError naming the service's origin and what to do; never the secret.
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.refused) throw this.refused;
    if (this.options.getToken) {
      const t = (await this.options.getToken()).trim();
      if (t === '') throw this.refuse('No token was given: set TSQ_TOKEN or sign in with a token.');
      if (this.token !== undefined && t === this.given) {
        throw this.refuse(
          `The service at ${this.session.origin} refused the token (HTTP 401): it expired, was revoked, or was issued by another cluster. Get a new token for ${this.session.origin} and sign in with it again.`,
        );
      }
      this.given = t;
      this.token = t;
      this.expires = Infinity;
      this.renewAt = Infinity;
      return;
    }
    const secret = this.options.getSecretKey ? await this.options.getSecretKey() : undefined;
    const password = secret === undefined ? await this.getPassword?.() : undefined;
    if (secret === undefined && password === undefined) throw this.refuse(`No password or secret key for ${this.username} at ${this.session.origin}.`);
    const credential = secret !== undefined ? { secret_key: secret } : { password };
    if (this.org && this.orgId === undefined) {
      const digits = String(this.org.wanted).trim();
      if (/^\d+$/.test(digits)) this.orgId = Number(digits);
      else {
        // a name: its id is looked up with a token of the user's own Org, revoked after
        const probe = await this.fetchToken(credential, undefined, signal);
        try {
          this.orgId = await this.org.idFor(probe.token, signal);
        } finally {
          await this.revokeText(probe.token, signal);
        }
      }
    }
    const a = await this.fetchToken(credential, this.orgId, signal);
    if (typeof a.token !== 'string' || a.token === '') throw new ServiceError({ status: 200, serviceMessage: '', operation: 'getToken', method: 'POST', path: `${V2_PREFIX}/auth/token/full` }, 'auth/token/full answered without a token');
    const now = this.clock();
    this.token = a.token;
    this.obtained++;
    this.expires = typeof a.expiration_time_in_millis === 'number' ? a.expiration_time_in_millis : Infinity;
    const created = typeof a.creation_time_in_millis === 'number' ? a.creation_time_in_millis : now;
    const life = this.expires - created;
    this.renewAt = Number.isFinite(life) ? this.expires - Math.min(60_000, Math.max(1000, life / 10)) : Infinity;
  }

  /** One auth/token/full for `credential`, in the Org `orgId` when given. @throws AuthenticationError (`refuse`) on 401 or 403. */
  private async fetchToken(credential: { secret_key: string } | { password: string | undefined }, orgId: number | undefined, signal?: AbortSignal): Promise<TokenAnswer> {
    const body = JSON.stringify({ username: this.username, ...credential, validity_time_in_sec: this.options.validitySec ?? 300, ...(orgId !== undefined ? { org_id: orgId } : {}) });
    const secret = 'secret_key' in credential;
    let text: string;
    try {
      text = (await this.session.call({ operation: 'getToken', method: 'POST', path: `${V2_PREFIX}/auth/token/full`, headers: { 'content-type': 'application/json' }, body, repeatable: true, authenticated: false, signal })).text;
    } catch (e) {
      if (e instanceof ServiceError && (e.status === 401 || e.status === 403)) {
        const org = orgId !== undefined ? ` in the Org ${String(this.org?.wanted ?? orgId)} (is ${this.username} a member of it?)` : '';
        throw this.refuse(
          `${e.message} — the service at ${this.session.origin} refused the ${secret ? 'secret key (trusted authentication)' : 'password'} of ${this.username}${org}. ${secret ? 'Check the secret key the administrator gave you.' : 'Check the user name and password; with multi-factor authentication on, sign in with a token instead.'}`,
          e,
        );
      }
      throw e;
    }
    const a = JSON.parse(text) as TokenAnswer;
    if (typeof a.token !== 'string' || a.token === '') throw new ServiceError({ status: 200, serviceMessage: '', operation: 'getToken', method: 'POST', path: `${V2_PREFIX}/auth/token/full` }, 'auth/token/full answered without a token');
    return a;
  }

  /** `{authorization: 'Bearer …'}`, renewing the token first when it is about to expire (callers share one renewal). */
  async headers(signal?: AbortSignal): Promise<Record<string, string>> {
    if (this.token === undefined || (!this.isGiven && this.clock() >= this.renewAt)) {
      this.renewing ??= this.acquire(signal).finally(() => {
        this.renewing = undefined;
      });
      await this.renewing;
    }
    return { authorization: `Bearer ${this.token!}` };
  }

  /** Revokes the token (sign-out) unless the person gave it; forgets it either way. Errors are ignored: the token expires anyway. */
  async revoke(signal?: AbortSignal): Promise<void> {
    const t = this.token;
    this.token = undefined;
    if (t === undefined || this.isGiven) return;
    await this.revokeText(t, signal);
  }

  /** auth/token/revoke of one token; errors ignored. */
  private async revokeText(t: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.session.call({ operation: 'revokeToken', method: 'POST', path: `${V2_PREFIX}/auth/token/revoke`, headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` }, body: JSON.stringify({ token: t }), repeatable: false, authenticated: false, signal });
    } catch {
      // the token runs out by itself
    }
  }

  private refuse(message: string, cause?: ServiceError): AuthenticationError {
    const info = cause ?? { status: 401, serviceMessage: '', operation: 'getToken', method: 'POST', path: `${V2_PREFIX}/auth/token/full` };
    const err = new AuthenticationError({ status: 401, serviceMessage: info.serviceMessage, operation: info.operation, method: info.method, path: info.path });
    err.message = message;
    this.refused = err;
    return err;
  }
}

/**
 * The login of a data-load API session that signs in with the connection's bearer token instead of the
 * Login call's password (docs/service-interface.md §10.5): the data-load API is a v1 API, and v1 takes
 * bearer tokens as v2 does (docs/service-notes.md §5.3). `earlier` is how many logins this session made
 * before. The first makes sure a token is held. A later one follows a 401 from the data-load API: a
 * token the client obtained (password, secret key) is renewed once; a token the person gave cannot be.
 * @throws AuthenticationError when the data-load API at `origin` refused the token; its `advice` says
 *   that loads can sign in with a password instead (TSQ_PASSWORD). Never contains the token.
 */
export async function loadBearerLogin(tokens: BearerTokens, origin: string, earlier: number, signal?: AbortSignal): Promise<void> {
  if (earlier === 0) {
    await tokens.headers(signal);
    return;
  }
  if (!tokens.isGiven && earlier === 1) {
    await tokens.acquire(signal);
    return;
  }
  const advice = `The data-load API at ${origin} did not accept the connection's token (HTTP 401); it may sign in with a password only. Load with the password instead: set TSQ_PASSWORD (and unset TSQ_TOKEN / TSQ_SECRET_KEY), or sign in with a password in the editor.`;
  const err = new AuthenticationError({ status: 401, serviceMessage: '', operation: 'loadLogin', method: 'POST', path: `${LOAD_PREFIX}/public/session` });
  err.message = advice;
  err.advice = advice;
  throw err;
}

/**
 * Which generation answers, asked once without credentials: an unauthenticated v1
 * `metadata/listobjectheaders` is 401 where v1 lives and 404 where it is gone.
 * `auto` (`ApiVersionSetting`) asks this once: v1 is preferred where both answer, v2 is used where v1
 * answers 404.
 * @returns 'v1' unless v1 answers 404.
 */
export async function probeApiVersion(session: HttpSession, signal?: AbortSignal): Promise<'v1' | 'v2'> {
  try {
    await session.call({ operation: 'probeApiVersion', method: 'GET', path: '/callosum/v1/tspublic/v1/metadata/listobjectheaders', query: { batchsize: 1 }, repeatable: true, authenticated: false, signal });
    return 'v1';
  } catch (e) {
    if (e instanceof ServiceError && e.status === 404) return 'v2';
    if (e instanceof ServiceError && e.status > 0) return 'v1';
    throw e;
  }
}
