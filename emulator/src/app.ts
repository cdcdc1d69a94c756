/**
 * The emulator's assembly: opens the catalog and the DuckDB engine in the data directory, applies the
 * seed (`--seed`, `--demo`), builds the `EmulatorContext` for the data-load API, and serves both APIs
 * on Fastify. `startEmulator` is what `main.ts`, tests and benchmarks call.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { checkPassword, Sessions } from './auth';
import { Catalog } from './catalog';
import type { EmulatorContext, EmulatorUser, TableInfo } from './context';
import { demoSeed } from './demo';
import { Engine } from './engine';
import { sendError } from './errors';
import { registerLoadApi } from './load/index';
import { registerPublicApi } from './public/routes';
import { SearchService } from './searchdata/run';
import { applySeed, readSeedFolder } from './seed';

/** Options of `startEmulator`; the CLI flags of `main.ts` map onto them one to one. */
export interface EmulatorOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port of both APIs (default 8088; 0 picks a free port). */
  port?: number;
  /** A second port serving only the data-load API, as a real cluster does (field notes 4.1). */
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
   * Test-only: delay every searchdata by `ms` milliseconds (only those whose query_string contains
   * `match`, when given) before answering, so a test can cancel a slow query. A request the client
   * aborts during the delay is dropped. CLI `--delay-searchdata MS[:TEXT]`, or the environment variable
   * `TSQ_EMULATOR_DELAY_SEARCHDATA` in the same form (see `parseSearchDataDelay`).
   */
  delaySearchData?: { ms: number; match?: string };
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

/**
 * A Fastify instance with the plugins both APIs rely on: cookies (@fastify/cookie), form bodies
 * (@fastify/formbody) and a JSON parser that accepts an empty body (the service's own examples send
 * `Content-Type: application/json` with no body, field notes 1.1). The data-load API must not register
 * these plugins again.
 */
export async function createBaseApp(logger = false): Promise<FastifyInstance> {
  const app = Fastify({ logger, bodyLimit: 1024 * 1024 * 1024 });
  await app.register(cookie);
  await app.register(formbody);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
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

/** Path prefix of the data-load API, whose errors are plain text (docs/service-interface.md §7). */
const LOAD_API_PREFIX = '/ts_dataservice/';

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
    if (status >= 500) req.log.error(err);
    const message = status >= 500 ? 'Internal error: the emulator could not answer this request' : err.message;
    if (isLoadPath(req.url)) return reply.code(status).type('text/plain').send(message);
    return sendError(reply, status, message);
  });
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

  const catalog = new Catalog(dataDir);
  const engine = await Engine.open(dataDir);
  try {
    if (options.demo) await applySeed(catalog, engine, demoSeed(), { demo: true, now: now().getTime() });
    if (options.seed) await applySeed(catalog, engine, readSeedFolder(options.seed), { baseDir: resolve(options.seed), now: now().getTime() });
    if (catalog.state.users.length === 0) await applySeed(catalog, engine, {}, { now: now().getTime() });
  } catch (e) {
    engine.close();
    throw e;
  }

  const loopback = isLoopback(host);
  const search = new SearchService(engine, catalog, now);
  const sessions = new Sessions();
  let nodeAddress: { host: string; port: number } | Record<string, never> = {};

  /** Checks a user name and password; demo passwords are refused unless listening on loopback. */
  const verifyPassword = async (username: string, password: string): Promise<EmulatorUser | undefined> => {
    const u = catalog.userByName(String(username ?? ''));
    if (!u || typeof password !== 'string') return undefined;
    if (u.demoPassword && !loopback) return undefined;
    return (await checkPassword(password, u)) ? catalog.user(u.id) : undefined;
  };

  const toTableInfo = (t: NonNullable<ReturnType<Catalog['table']>>): TableInfo => ({
    id: t.id,
    database: t.database,
    schema: t.schema,
    name: t.tableName,
    sqlName: t.sqlName,
    columns: t.columns.map((c) => ({ name: c.physicalName, dataType: c.dataType })),
  });

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
    const app = await createBaseApp(options.logger);
    apps.push(app);
    const delay = options.delaySearchData;
    if (delay && delay.ms > 0) {
      app.addHook('preHandler', async (req, reply) => {
        if (!/\/searchdata(\?|$)/.test(req.url)) return;
        const q = String((req.query as Record<string, unknown> | undefined)?.query_string ?? '');
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
    await registerPublicApi(app, { catalog, engine, search, sessions, verifyPassword, now, loopback });
    await registerLoadApi(app, ctx);
    let loadApp: FastifyInstance | undefined;
    if (options.loadPort !== undefined) {
      loadApp = await createBaseApp(options.logger);
      apps.push(loadApp);
      await registerLoadApi(loadApp, ctx);
    }
    await app.listen({ host, port: options.port ?? 8088 });
    const port = (app.server.address() as { port: number }).port;
    const urlHost = isIP(host) === 6 ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    nodeAddress = { host, port };
    let loadUrl: string | undefined;
    if (loadApp) {
      await loadApp.listen({ host, port: options.loadPort });
      const lp = (loadApp.server.address() as { port: number }).port;
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
