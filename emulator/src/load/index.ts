/**
 * The emulator's data-load API (docs/service-interface.md §4.1, docs/service-notes.md §4): Login, StartLoad,
 * Load, CommitLoad, AbortLoad, status, input_summary, bad records and ping under `/ts_dataservice/v1`, with
 * the plain-text bodies and the error rows of docs/service-interface.md §7.
 *
 * Every Fastify instance this is registered on is one node of the cluster (docs/service-notes.md §4.4): it
 * keeps its own sessions (sessions.ts). Load cycles live in the data directory and are shared by all nodes
 * of one emulator (service.ts). Every call but Login checks the session and the user's current privileges
 * (DATAMANAGEMENT or ADMINISTRATION, docs/service-interface.md §5).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';
import { loadInternalErrorText } from '../errors';
import { BASE, detail, MESSAGES, text } from './http';
import { registerCycleRoutes } from './routes';
import { LoadService } from './service';
import { forgetAllLoadSessions, LoadSessions, registerSessionRoutes } from './sessions';

export { MESSAGES } from './http';

const services = new WeakMap<EmulatorContext, LoadService>();

// fault-injection runs (test/faults/) make the emulator forget every load-API session on SIGUSR2
if (process.env.TSQ_EMULATOR_FAULTS) process.on('SIGUSR2', forgetAllLoadSessions);

/** The plugins the load API's scope needs, registered only when the app does not have them already. */
async function registerPlugins(scope: FastifyInstance): Promise<void> {
  if (!scope.hasRequestDecorator('cookies')) await scope.register((await import('@fastify/cookie')).default);
  if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register((await import('@fastify/formbody')).default);
  if (!scope.hasContentTypeParser('multipart/form-data')) {
    await scope.register(multipart, { limits: { fileSize: Number.MAX_SAFE_INTEGER, files: 1000, parts: 2000 } });
  }
  if (!scope.hasContentTypeParser('*')) {
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  }
}

/**
 * Registers the data-load API on `app` (one node). Call it once per Fastify instance, before `listen`; the
 * first call for a context recovers the cycles a previous run left (service.ts) before it returns.
 * Uses @fastify/cookie and @fastify/formbody when the app has them, registers them otherwise, and
 * registers @fastify/multipart inside its own scope with no chunk size limit.
 * @throws DuckDB's error when the engine's outcome table cannot be created or read.
 */
export async function registerLoadApi(app: FastifyInstance, ctx: EmulatorContext): Promise<void> {
  let svc = services.get(ctx);
  if (!svc) services.set(ctx, (svc = new LoadService(ctx)));
  const service = svc;
  await service.ready;
  const sessions = new LoadSessions(ctx);

  await app.register(async (scope) => {
    await registerPlugins(scope);
    // a node that closes lets its running commits end first (the core closes the database after the apps)
    scope.addHook('onClose', async () => {
      sessions.dispose();
      service.stop();
      await Promise.allSettled([...service.running]);
    });
    scope.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? 400 : 500;
      const path = req.url.split('?')[0];
      if (req.method === 'POST' && path === `${BASE}/public/loads`) return text(reply.header('x-tsq-detail', detail(err.message)), 400, MESSAGES.invalidParams);
      if (req.method === 'POST' && path === `${BASE}/public/session`) return text(reply, 401, MESSAGES.unauthorized);
      // a 500 never carries the engine's text: it goes to the incident log (emulator/src/errors.ts)
      return text(reply, status, status === 500 ? loadInternalErrorText(err, req) : err.message);
    });
    registerSessionRoutes(scope, ctx, sessions);
    registerCycleRoutes(scope, { ctx, service, sessions });
  });
}
