/**
 * The emulator's assembly: opens the catalog and the DuckDB engine in the data directory, applies the
 * seed (`--seed`, `--demo`), builds the `EmulatorContext` for the data-load API, and serves both APIs
 * on Fastify. `startEmulator` is what `main.ts`, tests and benchmarks call.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Transform } from 'node:stream';
import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { checkPassword, Sessions } from './auth';
import { MetadataStore } from './metadataStore';
import type { EmulatorContext, EmulatorUser, TableInfo } from './context';
import { demoSeed } from './demo';
import { Engine } from './engine';
import { errorBody, INTERNAL_TEXT, reportIncident, sendError, setIncidentSink, stderrIncidentSink, type IncidentSink } from './errors';
import { registerLoadApi } from './load/index';
import { registerPublicApi } from './public/routes';
import { hostAllowed, normaliseRequestTarget } from './requestTarget';
import { SearchService } from './searchdata/run';
import { applySeed, readSeedFolder } from './seed';
import { setupServiceToday, TokenStore, type PublicApiGenerations } from './v2/index';
import { V2_PREFIX, v2ErrorBody } from './v2/routes';
import { bearerOf } from './v2/tokens';
import { formValues, str } from './requestValues';

/** Options of `startEmulator`; the CLI flags of `main.ts` map onto them one to one. */
export interface EmulatorOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port of both APIs (default 8088; 0 picks a free port). */
  port?: number;
  /** A second port serving only the data-load API, as a real cluster does (docs/service-notes.md §4.1). */
  loadPort?: number;
  /** Folder of all state (default `.tsq-emulator` in the working directory). Created when missing. */
  dataDir?: string;
  /** Seed folder with `model.json`. */
  seed?: string;
  /** Apply the built-in demo seed (vega-datasets). */
  demo?: boolean;
  /** Pins the clock used by relative date keywords (ISO-8601 text or a Date). */
  now?: string | Date;
  /** Fastify request logging (default off). */
  logger?: boolean;
  /**
   * Where the detail of an internal error goes, under the incident id its response carries (the
   * response never carries the detail, emulator/src/errors.ts). Default: a JSON line on standard error.
   */
  incidentLog?: IncidentSink;
  /**
   * Test-only: delay every searchdata by `ms` milliseconds (only those whose query_string contains
   * `match`, when given) before answering, so a test can cancel a slow query. A request the client
   * aborts during the delay is dropped. CLI `--delay-searchdata MS[:TEXT]`, or the environment variable
   * `TSQ_EMULATOR_DELAY_SEARCHDATA` in the same form (see `parseSearchDataDelay`).
   */
  delaySearchData?: { ms: number; match?: string };
  /**
   * Minutes a load cycle may stay open (INGESTING) without receiving a chunk before it expires and its
   * chunks are deleted (default 60; fractions allowed). CLI `--cycle-idle-minutes`.
   */
  cycleIdleMinutes?: number;
  /** Which public API generations answer (emulator/src/v2/index.ts): `both` (default), `v1`, or `v2` (every /tspublic/v1 path 404). CLI `--public-api`. */
  publicApi?: PublicApiGenerations;
  /** Requests per second per client address across v1 and v2, then 429 with Retry-After (emulator/src/v2/index.ts). CLI `--rate-limit`. */
  rateLimit?: number;
  /** False: no data-load API (`/ts_dataservice/v1` is 404), as on ThoughtSpot Cloud, where loads go through input tables. CLI `--no-data-load-api`. */
  dataLoadApi?: boolean;
  /** The secret of trusted authentication: auth/token/full accepts `secret_key` equal to it. CLI `--trusted-auth-secret`. */
  trustedAuthSecret?: string;
  /** Test-only: the clock of token expiry in epoch ms (default `Date.now`), so a test can let tokens expire without waiting. */
  tokenClock?: () => number;
}

/**
 * Parses `MS[:TEXT]` (`--delay-searchdata`, `TSQ_EMULATOR_DELAY_SEARCHDATA`): a delay in milliseconds
 * and an optional text the query must contain. Undefined for an empty value.
 * @throws Error for anything else (e.g. a negative or non-integer delay)
 */
export function parseSearchDataDelay(value: string | undefined): { ms: number; match?: string } | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const i = value.indexOf(':');
  const msText = (i < 0 ? value : value.slice(0, i)).trim();
  const ms = Number(msText);
  if (!/^\d+$/.test(msText) || !Number.isSafeInteger(ms)) throw new Error(`--delay-searchdata: expected MS[:TEXT] with MS a whole number of milliseconds, got ${value}`);
  const match = i < 0 ? undefined : value.slice(i + 1);
  return match ? { ms, match } : { ms };
}

/** A running emulator. */
export interface RunningEmulator {
  /** `http://HOST:PORT` of both APIs. */
  url: string;
  /** `http://HOST:PORT` of the load-only port, when `loadPort` was given. */
  loadUrl?: string;
  /** The context handed to the data-load API (for tests). */
  ctx: EmulatorContext;
  /** Stops listening, ends the DuckDB connections and closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/** True for loopback addresses (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** Where `createBaseApp` listens: the address, and whether it is a loopback one (`isLoopback`). */
export interface Listener {
  host: string;
  loopback: boolean;
}

/**
 * A Fastify instance with the plugins both APIs rely on: cookies (@fastify/cookie), form bodies
 * (@fastify/formbody) and a JSON parser that accepts an empty body (the service's own examples send
 * `Content-Type: application/json` with no body, docs/service-notes.md §1.1). The data-load API must not register
 * these plugins again.
 *
 * Every request target is first normalised (`normaliseRequestTarget`, Fastify's `rewriteUrl`): from then
 * on `req.url` is the path the router matches (`req.originalUrl` keeps what was sent), so every hook
 * that looks at the path decides on the route that answers. On a loopback `listener`, requests
 * addressed to another host are refused first (`refuseForeignHosts`).
 */
export async function createBaseApp(logger = false, listener?: Listener): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: SIGNED_IN_BODY_LIMIT,
    rewriteUrl: (req) => normaliseRequestTarget(req.url ?? '/').path,
    // what normaliseRequestTarget assumes of the router (find-my-way), stated rather than defaulted; `;`
    // ends no path either (Fastify's default useSemicolonDelimiter: false)
    routerOptions: { ignoreDuplicateSlashes: false, ignoreTrailingSlash: false, caseSensitive: true },
  });
  if (listener) refuseForeignHosts(app, listener);
  await app.register(cookie);
  await app.register(formbody);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    const tooDeep = jsonNestingError(text);
    if (tooDeep) return done(tooDeep, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      const err = e as Error & { statusCode?: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });
  registerServiceErrorHandlers(app);
  return app;
}

/** Body limit of a request that carries no valid session (a login, or anyone at all): 4 KiB. */
export const ANONYMOUS_BODY_LIMIT = 4 * 1024;
/** Body limit of a signed-in request of either API but the chunk upload: 1 MiB (a query, a principals file, a load definition). */
export const SIGNED_IN_BODY_LIMIT = 1024 * 1024;
/** Deepest nesting of arrays and objects a JSON body may have; deeper answers 400 (no request of the service nests past a handful). */
export const MAX_JSON_DEPTH = 64;

/**
 * A 400 error when the JSON text nests arrays or objects deeper than MAX_JSON_DEPTH, else undefined.
 * One pass over the text, skipping strings, before JSON.parse (whose recursion, and that of whatever
 * walks the result, a deeply nested body could otherwise exhaust).
 */
export function jsonNestingError(text: string): (Error & { statusCode: number }) | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return Object.assign(new Error(`The JSON body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels.`), { statusCode: 400 });
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** True for the data-load API's chunk upload (`POST …/public/loads/:cycleId`), a multipart stream its route reads only after checking the session. */
function isChunkUpload(req: FastifyRequest): boolean {
  return req.method === 'POST' && /^\/ts_dataservice\/v1\/public\/loads\/[^/?]+(\?|$)/.test(req.url) && !/\/(commit|cancel)(\?|$)/.test(req.url.split('?')[0] ?? '');
}

/**
 * Limits request bodies by who sends them, before a byte is parsed: ANONYMOUS_BODY_LIMIT without a
 * valid session (`signedIn`), SIGNED_IN_BODY_LIMIT with one (Fastify's own limit), and only the chunk
 * upload streams more, read by its route after it checks the session. A declared Content-Length over
 * the limit answers 413 at once; a body without one is cut off (413) when it passes the limit.
 * @param signedIn whether the request carries a session of this node (public or data-load API).
 */
export function limitBodies(app: FastifyInstance, signedIn: (req: FastifyRequest) => boolean): void {
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (isChunkUpload(req) || signedIn(req)) return payload;
    const tooLarge = (): Error => Object.assign(new Error(`Request body is larger than ${ANONYMOUS_BODY_LIMIT} bytes; sign in first.`), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > ANONYMOUS_BODY_LIMIT) throw tooLarge();
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, next) {
          seen += chunk.length;
          next(seen > ANONYMOUS_BODY_LIMIT ? tooLarge() : null, chunk);
        },
      }),
    );
  });
}

/**
 * Remembers the sessions this node hands out so `limitBodies` can tell a signed-in request: the public
 * API's from `sessions`, the data-load API's from the `JSESSIONID` its login sets (it keeps its own
 * sessions, emulator/src/load/index.ts), and REST API v2 bearer tokens (`userOfBearer`).
 */
function sessionChecker(app: FastifyInstance, publicSessions: Sessions | undefined, userOfBearer: EmulatorContext['userOfBearer']): (req: FastifyRequest) => boolean {
  const loadTokens = new Set<string>();
  app.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode < 200 || reply.statusCode > 299 || req.method !== 'POST' || req.url.split('?')[0] !== '/ts_dataservice/v1/public/session') return;
    const set = reply.getHeader('set-cookie');
    for (const c of Array.isArray(set) ? set : set === undefined ? [] : [String(set)]) {
      const m = /^JSESSIONID=([^;]+)/.exec(c);
      if (m) loadTokens.add(decodeURIComponent(m[1]!));
    }
  });
  return (req) => {
    const sid = req.cookies?.JSESSIONID || bearerOf(req.headers.authorization);
    if (!sid) return false;
    return loadTokens.has(sid) || !!publicSessions?.get(sid) || !!userOfBearer?.(sid);
  };
}

/** Path prefix of the data-load API, whose errors are plain text (docs/service-interface.md §7). */
const LOAD_API_PREFIX = '/ts_dataservice/';

/**
 * Refuses, with 403 and before the body is read, every request addressed to another host than this
 * loopback listener (`hostAllowed`, the DNS-rebinding defence): the `Host` header, and the authority of
 * an absolute-form target when there is one, must both name it. The answer has each API's error shape:
 * plain text under `/ts_dataservice/`, the v2 `v2ErrorBody` under `/api/rest/2.0`, the v1
 * error body elsewhere. Nothing is installed on an address that is not loopback (exposing it is the
 * operator's choice; the demo passwords are refused there).
 */
function refuseForeignHosts(app: FastifyInstance, listener: Listener): void {
  if (!listener.loopback) return;
  const own = listener.host;
  app.addHook('onRequest', async (req, reply) => {
    const host = req.headers.host;
    const authority = normaliseRequestTarget(req.originalUrl).authority;
    const hostOk = hostAllowed(host, own);
    if (hostOk && (authority === undefined || hostAllowed(authority, own))) return undefined;
    const named = JSON.stringify(((hostOk ? authority : host) ?? '').slice(0, 100));
    const message = `Refused: this request is addressed to ${named} (its Host header or target), not to this emulator. Listening on the loopback address ${own}, it answers only requests addressed to localhost, 127.0.0.1, [::1] or ${own}, so that a web page whose name resolves to this machine (DNS rebinding) cannot use it. Send it to http://127.0.0.1:PORT or http://localhost:PORT.`;
    const path = req.url;
    if (path.startsWith(LOAD_API_PREFIX)) return reply.code(403).type('text/plain').send(message);
    if (path.split('?')[0] === V2_PREFIX || path.startsWith(`${V2_PREFIX}/`)) return reply.code(403).type('application/json').send(v2ErrorBody(403, message));
    return reply.code(403).type('application/json').send(errorBody(403, [message]));
  });
}

/**
 * Answers what no route's own handlers answer in the service's shapes rather than Fastify's
 * `{message, error, statusCode}`: an unknown route, and a failure before any route (a body that cannot
 * be parsed, one that is too large, an unsupported media type). Under `/ts_dataservice/` the answer is
 * plain text, as every load API error is (docs/service-interface.md §7); elsewhere it is the public
 * API's JSON error body (errors.ts). The public and load APIs set their own handlers in their scopes.
 */
export function registerServiceErrorHandlers(app: FastifyInstance): void {
  const isLoadPath = (url: string): boolean => url.startsWith(LOAD_API_PREFIX);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const message = `No such operation: ${req.method} ${path}. The public API lives under /callosum/v1/tspublic/v1/ and the data-load API under /ts_dataservice/v1/.`;
    if (isLoadPath(path)) return reply.code(404).type('text/plain').send(message);
    return sendError(reply, 404, message);
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) {
      // the detail goes to the incident log only (errors.ts), under the id the answer names
      const incident = reportIncident(req, status, err.stack ?? err.message);
      if (isLoadPath(req.url)) return reply.code(status).type('text/plain').send(`${INTERNAL_TEXT} Incident ${incident}.`);
      return reply.code(status).type('application/json').send(errorBody(status, [INTERNAL_TEXT], incident));
    }
    const message = err.message;
    if (isLoadPath(req.url)) return reply.code(status).type('text/plain').send(message);
    return sendError(reply, status, message);
  });
}

/**
 * `--delay-searchdata`: holds each searchdata request (whose query contains `delay.match`, when given)
 * `delay.ms` milliseconds before it is answered, for tests of slow answers and of Cancel; a client that
 * goes away meanwhile ends the request. Nothing when `delay` is undefined or its ms is not positive.
 */
function delaySearchData(app: FastifyInstance, delay: EmulatorOptions['delaySearchData']): void {
  if (delay && delay.ms > 0) {
    app.addHook('preHandler', async (req, reply) => {
      if (!/\/searchdata(\?|$)/.test(req.url)) return;
      const q = str(formValues(req), 'query_string') ?? '';
      if (delay.match && !q.includes(delay.match)) return;
      const aborted = await new Promise<boolean>((done) => {
        const timer = setTimeout(() => done(false), delay.ms);
        reply.raw.once('close', () => {
          clearTimeout(timer);
          done(true);
        });
      });
      if (aborted) throw new Error('the client went away during --delay-searchdata');
    });
  }
}

/** A table of the metadata store as the load API sees it (its physical columns). */
function toTableInfo(t: NonNullable<ReturnType<MetadataStore['table']>>): TableInfo {
  return {
    id: t.id,
    database: t.database,
    schema: t.schema,
    name: t.tableName,
    sqlName: t.sqlName,
    columns: t.columns.map((c) => ({ name: c.physicalName, dataType: c.dataType })),
  };
}

/**
 * Opens the metadata store and the DuckDB engine of `dataDir` and applies the seeds: the demo's
 * (`--demo`), a seed folder's (`--seed`), and the built-in administrator when there is no user.
 * Throws (with the engine closed) when the data directory cannot be opened or a seed is invalid.
 */
async function openSeeded(dataDir: string, options: EmulatorOptions, now: () => Date): Promise<{ catalog: MetadataStore; engine: Engine }> {
  const catalog = new MetadataStore(dataDir);
  const engine = await Engine.open(dataDir);
  try {
    if (options.demo) await applySeed(catalog, engine, demoSeed(), { demo: true, now: now().getTime() });
    if (options.seed) await applySeed(catalog, engine, readSeedFolder(options.seed), { baseDir: resolve(options.seed), now: now().getTime() });
    if (catalog.state.users.length === 0) await applySeed(catalog, engine, {}, { now: now().getTime() });
  } catch (e) {
    engine.close();
    throw e;
  }
  return { catalog, engine };
}

/**
 * Starts the emulator. Throws when the data directory cannot be opened (e.g. another emulator holds
 * the DuckDB file), the seed is invalid, or a port is taken.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = resolve(options.dataDir ?? '.tsq-emulator');
  mkdirSync(dataDir, { recursive: true });
  const pinned = options.now === undefined ? undefined : new Date(options.now);
  if (pinned && Number.isNaN(pinned.getTime())) throw new Error(`--now: not an ISO-8601 date and time: ${String(options.now)}`);
  const now = (): Date => pinned ?? new Date();

  const { catalog, engine } = await openSeeded(dataDir, options, now);

  const loopback = isLoopback(host);
  const search = new SearchService(engine, catalog, now);
  const sessions = new Sessions();
  const tokens = new TokenStore(sessions, options.tokenClock ?? Date.now);
  let nodeAddress: { host: string; port: number } | Record<string, never> = {};

  /** Checks a user name and password; demo passwords are refused unless listening on loopback. */
  const verifyPassword = async (username: string, password: string): Promise<EmulatorUser | undefined> => {
    const u = catalog.userByName(String(username ?? ''));
    if (!u || typeof password !== 'string') return undefined;
    if (u.demoPassword && !loopback) return undefined;
    return (await checkPassword(password, u)) ? catalog.user(u.id) : undefined;
  };

  const ctx: EmulatorContext = {
    dataDir,
    now,
    nodeAddress: () => nodeAddress,
    connect: () => engine.connect(),
    findTable: (database, schema, table) => {
      const t = catalog.table(String(database), schema === undefined || schema === null || schema === '' ? undefined : String(schema), String(table));
      return t ? toTableInfo(t) : undefined;
    },
    verifyPassword,
    userById: (id) => catalog.user(id),
    loadCycleIdleMs: options.cycleIdleMinutes === undefined ? undefined : options.cycleIdleMinutes * 60_000,
    onUserSessionsEnded: (listener) => sessions.onCloseUser(listener),
    userOfBearer: (token) => {
      const t = tokens.check(token);
      return t ? catalog.user(t.userId, t.orgId) : undefined;
    },
    tableChanged: (table) => {
      const t = catalog.dataSource(table.id);
      if (t) {
        t.modified = now().getTime();
        catalog.save();
      }
      search.invalidate(table.id);
    },
  };

  const apps: FastifyInstance[] = [];
  const closeAll = async (): Promise<void> => {
    for (const a of apps.splice(0)) await a.close();
  };
  try {
    const app = await createBaseApp(options.logger, { host, loopback });
    apps.push(app);
    setIncidentSink(app, options.incidentLog ?? stderrIncidentSink);
    limitBodies(app, sessionChecker(app, sessions, ctx.userOfBearer));
    delaySearchData(app, options.delaySearchData);
    await setupServiceToday(app, { catalog, search, sessions, tokens, verifyPassword, now, trustedAuthSecret: options.trustedAuthSecret }, { publicApi: options.publicApi ?? 'both', rateLimit: options.rateLimit });
    await registerPublicApi(app, { catalog, engine, search, sessions, verifyPassword, now, loopback });
    if (options.dataLoadApi !== false) await registerLoadApi(app, ctx);
    let loadApp: FastifyInstance | undefined;
    if (options.loadPort !== undefined) {
      loadApp = await createBaseApp(options.logger, { host, loopback });
      apps.push(loadApp);
      setIncidentSink(loadApp, options.incidentLog ?? stderrIncidentSink);
      limitBodies(loadApp, sessionChecker(loadApp, undefined, ctx.userOfBearer));
      await registerLoadApi(loadApp, ctx);
    }
    await app.listen({ host, port: options.port ?? 8088 });
    const port = portOf(app.server);
    const urlHost = isIP(host) === 6 ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    nodeAddress = { host, port };
    let loadUrl: string | undefined;
    if (loadApp) {
      await loadApp.listen({ host, port: options.loadPort });
      const lp = portOf(loadApp.server);
      loadUrl = `http://${urlHost}:${lp}`;
      nodeAddress = { host, port: lp };
    }
    let closed = false;
    return {
      url,
      loadUrl,
      ctx,
      close: async () => {
        if (closed) return;
        closed = true;
        await closeAll();
        engine.close();
      },
    };
  } catch (e) {
    await closeAll();
    engine.close();
    throw e;
  }
}

/** The TCP port a listening server is bound to. @throws Error when it listens on no port (a pipe, or not yet listening). */
function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`The emulator listens on no TCP port (${String(address)}).`);
  return address.port;
}
