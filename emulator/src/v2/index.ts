/**
 * What today's service adds to the seed interface (REST API v2 with bearer tokens, `--public-api`,
 * `--rate-limit`), set up on the emulator's main app before the v1 and load APIs are registered; the
 * rules and their sources are on `setupServiceToday`.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../errors';
import { registerV2Routes, V2_PREFIX, v2ErrorBody, type V2Deps } from './routes';
import { bearerOf } from './tokens';

export { TokenStore } from './tokens';

/** Which public API generations answer. */
export type PublicApiGenerations = 'v1' | 'v2' | 'both';

/** Options of `setupServiceToday`. */
export interface ServiceTodayOptions {
  publicApi: PublicApiGenerations;
  /** Requests per second per client address (undefined: no limit). */
  rateLimit?: number;
}

const V1_PATH = /^\/(callosum\/v1\/)?tspublic\/v1(\/|\?|$)/;

/**
 * Sets up the v2 API, token expiry, the v1 switch and the rate limit on `app`. Call before the v1
 * public API and the load API are registered, so that the hooks cover their routes.
 *
 * What today's service adds to the seed interface, set up on the emulator's main app before the v1 and
 * load APIs are registered:
 *
 * - REST API v2's subset (routes.ts) with bearer tokens (tokens.ts), which the v1 public API accepts too;
 * - `--public-api v1|v2|both`: which generations answer. With `v2` every `/tspublic/v1` path (under
 *   `/callosum/v1` or not) answers 404, as on a cloud build where v1 is gone (developer-docs
 *   `rest-api-v1v2-comparison.adoc`); with `v1` no `/api/rest/2.0` route exists. The data-load API
 *   (`/ts_dataservice/v1`) is never affected: it has no v2 equivalent;
 * - `--rate-limit N`: at most N requests per second per client address across v1 and v2 (the service's
 *   limit since 26.2.0.cl is 100 per second plus a burst of 10, developer-docs `about-rest-apis.adoc`),
 *   then 429 with `Retry-After` in seconds. Implemented with @fastify/rate-limit. The data-load API is
 *   not limited.
 */
export async function setupServiceToday(app: FastifyInstance, deps: V2Deps, options: ServiceTodayOptions): Promise<void> {
  // both switches read req.url, the target as the router matches it (normaliseRequestTarget, app.ts)
  if (options.rateLimit !== undefined) {
    await app.register(rateLimit, {
      global: true,
      max: options.rateLimit,
      timeWindow: 1000,
      allowList: (req) => !(req.url.startsWith(`${V2_PREFIX}/`) || V1_PATH.test(req.url)),
      errorResponseBuilder: (req, ctx) =>
        Object.assign(new Error(`Too many requests: at most ${ctx.max} per second from one address. Retry after ${ctx.after}.`), { statusCode: 429 }),
    });
  }
  app.addHook('onRequest', async (req, reply) => {
    if (options.publicApi === 'v2' && V1_PATH.test(req.url)) {
      return reply.code(404).type('application/json').send(errorBody(404, [`No such operation: ${req.method} ${req.url.split('?')[0]}. REST API v1 is not available on this instance; use REST API v2 (${V2_PREFIX}).`]));
    }
    // an expired token's session ends here, before any route (v1 or v2) reads it
    deps.tokens.check(bearerOf(req.headers.authorization));
    return undefined;
  });
  if (options.publicApi !== 'v1') await registerV2Routes(app, deps);
}

export { v2ErrorBody };
