/**
 * Sessions of the data-load API. Each node (Fastify instance) keeps its own: a `JSESSIONID` cookie from one
 * node is refused (401) on another (docs/service-notes.md §4.4). A session ends when the emulator stops,
 * when its user is deleted, and when the user's password changes (as the public API's sessions do,
 * docs/service-notes.md §5.1), so an old password cannot keep loading data.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { EmulatorContext, EmulatorUser } from '../context';
import { bearerOf } from '../v2/tokens';
import { BASE, bodyObject, MESSAGES, sessionToken, text } from './http';
import { recordOr } from '../../../common/src/guards';

/** Every node's sessions in this process (for `forgetAllLoadSessions`). */
const allNodes = new Set<LoadSessions>();

/**
 * Ends every load-API session of every node in this process: the next call of each client is answered
 * 401 "Unable to verify user", as after a restart of the service. Used by the fault-injection harness
 * (test/faults/) through the emulator's `SIGUSR2` when `TSQ_EMULATOR_FAULTS` is set.
 */
export function forgetAllLoadSessions(): void {
  for (const s of allNodes) s.clear();
}

/** The load-API sessions of one node: token → user id. */
export class LoadSessions {
  private readonly byToken = new Map<string, string>();

  constructor(private readonly ctx: EmulatorContext) {
    allNodes.add(this);
    ctx.onUserSessionsEnded?.((userId) => this.endUser(userId));
  }

  /** Opens a session for `userId`; returns its token (the `JSESSIONID` value). */
  open(userId: string): string {
    const token = randomUUID();
    this.byToken.set(token, userId);
    return token;
  }

  /** Ends every session of a user (password changed, user deleted). */
  endUser(userId: string): void {
    for (const [k, v] of this.byToken) if (v === userId) this.byToken.delete(k);
  }

  /** Ends every session of this node. */
  clear(): void {
    this.byToken.clear();
  }

  /** Stops following the context's session ends (the node closed). */
  dispose(): void {
    allNodes.delete(this);
  }

  /**
   * Checks the request's session (the `JSESSIONID` of Login, else a REST API v2 bearer token,
   * `EmulatorContext.userOfBearer`) and the user's current privileges (DATAMANAGEMENT or ADMINISTRATION,
   * docs/service-interface.md §5). Answers 401, 403 or 500 itself and returns undefined when refused.
   */
  authorize(req: FastifyRequest, reply: FastifyReply): EmulatorUser | undefined {
    const token = sessionToken(req);
    const bearer = bearerOf(req.headers.authorization);
    const userId = token !== undefined && this.byToken.has(token) ? this.byToken.get(token) : bearer !== undefined ? this.ctx.userOfBearer?.(bearer)?.id : undefined;
    if (userId === undefined) {
      text(reply, 401, MESSAGES.unauthorized);
      return undefined;
    }
    let user: EmulatorUser | undefined;
    try {
      user = this.ctx.userById(userId);
    } catch {
      text(reply, 500, MESSAGES.authService);
      return undefined;
    }
    if (!user) {
      if (token !== undefined) this.byToken.delete(token);
      text(reply, 401, MESSAGES.unauthorized);
      return undefined;
    }
    if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) {
      text(reply, 403, MESSAGES.forbidden);
      return undefined;
    }
    return user;
  }
}

/** Registers Login (docs/service-interface.md §4.1; JSON or form body, docs/service-notes.md §4.1) and ping on `scope`. */
export function registerSessionRoutes(scope: FastifyInstance, ctx: EmulatorContext, sessions: LoadSessions): void {
  scope.post(`${BASE}/public/session`, async (req, reply) => {
    const b = bodyObject(req.body);
    const o = recordOr(b);
    if (typeof o.username !== 'string' || typeof o.password !== 'string') return text(reply, 401, MESSAGES.unauthorized);
    let user: EmulatorUser | undefined;
    try {
      user = await ctx.verifyPassword(o.username, o.password);
    } catch {
      return text(reply, 500, MESSAGES.authService);
    }
    if (!user) return text(reply, 401, MESSAGES.unauthorized);
    const token = sessions.open(user.id);
    const r = reply as FastifyReply & { setCookie?: (n: string, v: string, o: object) => FastifyReply };
    if (r.setCookie) r.setCookie('JSESSIONID', token, { path: '/', httpOnly: true, sameSite: 'lax' });
    else reply.header('set-cookie', `JSESSIONID=${token}; Path=/; HttpOnly; SameSite=Lax`);
    return text(reply, 200, '');
  });

  // Health check, answered without a session: step 6 of the cluster set-up pings it with no cookie
  // (`curl -i https://localhost:8442/ts_dataservice/v1/public/ping` → `HTTP/1.1 200 OK`, `Ping Received.`,
  // https://docs.thoughtspot.com/software/6.0/load-with-service and …/software/8.4.1.sw/tsload-connector), and
  // the reference client's `ping()` sends none (docs/service-notes.md §4.1)
  scope.get(`${BASE}/public/ping`, async (_req, reply) => text(reply, 200, MESSAGES.ping));
}
