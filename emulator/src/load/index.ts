/**
 * The emulator's data-load API (seed 4.1, field notes 4): Login, StartLoad, Load, CommitLoad, AbortLoad,
 * status, input_summary, bad records and ping under `/ts_dataservice/v1`, with the plain-text bodies and
 * the error rows of seed section 7.
 *
 * Every Fastify instance this is registered on is one node of the cluster (field notes 4.4): it keeps its
 * own sessions, so a `JSESSIONID` cookie from one node is refused (401) on another. Load cycles live in the
 * data directory and are shared by all nodes of one emulator. Every call but Login checks the session and
 * the user's current privileges (DATAMANAGEMENT or ADMINISTRATION, seed 5).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { EmulatorContext, EmulatorUser, TableInfo } from '../context';
import { loadInternalErrorText } from '../errors';
import { stageChunks, TableLoad } from './commit';
import { CycleStore, statusJson, type CycleMeta } from './cycles';
import { chunksAreFastPathSafe, fastPathSql } from './fastpath';
import { InvalidLoadDefinition, parseLoadDefinition } from './definition';

/** The texts of seed section 7 and of seed 4.1's plain-text bodies. */
export const MESSAGES = {
  unauthorized: 'Unable to verify user. Please login again.',
  forbidden: 'User does not have required privileges. Please contact your administrator.',
  invalidParams: 'Invalid input params for starting data load: Request body',
  noTable: 'Unable to find table in the engine. Cannot load data.',
  noEngine: 'Cannot connect to the engine manager.',
  authService: "error code = INTERNAL, message = Couldn't resolve the authentication service.",
  uploadComplete: 'Upload Complete.',
  commitRequested: 'Commit load cycle request made.',
  ping: 'Ping Received.',
  unknownCycle: (id: string) => `Cycle_id=[${id}] does not exist.`,
  unknownCommit: (id: string) => `Commit load cycle failed. Error ending load. Unknown cycle_id '${id}'`,
  noBadRecords: (id: string) => `Node does not exist: /tmp/${id}.bad_record`,
} as const;

const BASE = '/ts_dataservice/v1';

/** State shared by every node of one emulator (one per `EmulatorContext`). */
class LoadService {
  readonly store: CycleStore;
  /** Uploads in progress per cycle id (a commit waits for them). */
  readonly uploads = new Map<string, Set<Promise<unknown>>>();
  /** Next chunk number per cycle id (numbers are taken when an upload starts). */
  private readonly nextChunk = new Map<string, number>();
  /** Commits in progress per table, so two commits on one table run one after the other. */
  private readonly tableQueue = new Map<string, Promise<unknown>>();
  /** Commits running in the background (awaited when a node closes, before the database does). */
  readonly running = new Set<Promise<void>>();

  constructor(readonly ctx: EmulatorContext) {
    this.store = new CycleStore(ctx.dataDir);
  }

  /** Epoch microseconds of the emulator's clock. */
  nowMicros(): number {
    return this.ctx.now().getTime() * 1000;
  }

  takeChunkNumber(meta: CycleMeta): number {
    const n = Math.max(this.nextChunk.get(meta.cycleId) ?? 1, (meta.chunks.at(-1) ?? 0) + 1);
    this.nextChunk.set(meta.cycleId, n + 1);
    return n;
  }

  track(id: string, p: Promise<unknown>): void {
    let set = this.uploads.get(id);
    if (!set) this.uploads.set(id, (set = new Set()));
    set.add(p);
    void p.finally(() => set.delete(p)).catch(() => undefined);
  }

  /** Runs `fn` after every earlier commit on the same table. */
  async onTable<T>(table: TableInfo, fn: () => Promise<T>): Promise<T> {
    const prev = this.tableQueue.get(table.sqlName) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(fn);
    this.tableQueue.set(table.sqlName, run);
    try {
      return await run;
    } finally {
      if (this.tableQueue.get(table.sqlName) === run) this.tableQueue.delete(table.sqlName);
    }
  }

  /** Ends a cycle: stage DONE with `status`, end time, metadata saved. */
  finish(meta: CycleMeta, status: CycleMeta['status']): void {
    meta.stage = 'DONE';
    meta.status = status;
    meta.endTime = this.nowMicros();
    this.store.save(meta);
  }

  /** Deletes the chunks and the staged file of a cycle (the metadata and bad records stay). */
  discardData(meta: CycleMeta): void {
    for (const n of meta.chunks) rmSync(this.store.chunkPath(meta.cycleId, n), { force: true });
    const dir = this.store.dir(meta.cycleId);
    for (const f of readdirSync(dir)) if (f.startsWith('staged-')) rmSync(join(dir, f), { force: true });
  }

  /**
   * The fast path (fastpath.ts): one INSERT … SELECT from read_csv over the chunks, in one transaction
   * (after the DELETE of `empty_target`). Returns true when it loaded every record and ended the cycle OK;
   * false when the cycle is outside its subset or the statement failed (rolled back: the slow path decides).
   */
  private async commitFast(meta: CycleMeta, table: TableInfo): Promise<boolean> {
    const paths = meta.chunks.map((n) => this.store.chunkPath(meta.cycleId, n));
    const sql = fastPathSql(meta.definition, table, paths);
    if (sql === undefined || !(await chunksAreFastPathSafe(paths, meta.definition.format.hasHeaderRow))) return false;
    const conn = await this.ctx.connect();
    try {
      await conn.run('BEGIN TRANSACTION');
      try {
        if (meta.definition.loadOptions.emptyTarget) await conn.run(`DELETE FROM ${table.sqlName}`);
        const r = await conn.run(sql);
        await conn.run('COMMIT');
        meta.rowsWritten = r.rowsChanged;
      } catch {
        await conn.run('ROLLBACK').catch(() => undefined);
        return false;
      }
    } finally {
      conn.closeSync();
    }
    meta.ignoredRowCount = 0;
    meta.parsingErrors = [];
    this.finish(meta, { code: 'OK' });
    this.ctx.tableChanged(table);
    return true;
  }

  /**
   * CommitLoad's background work: waits for uploads in flight, stages the chunks, checks
   * `max_ignored_rows`, applies the rows in one transaction, and ends the cycle OK or LOAD_FAILED.
   * Never throws.
   */
  async commit(meta: CycleMeta): Promise<void> {
    const id = meta.cycleId;
    try {
      await Promise.allSettled([...(this.uploads.get(id) ?? [])]);
      const t = meta.definition.target;
      const table = this.ctx.findTable(t.database, t.schema, t.table);
      if (!table) return this.finish(meta, { code: 'LOAD_FAILED', message: MESSAGES.noTable });
      await this.onTable(table, async () => {
        if (await this.commitFast(meta, table)) return;
        const max = meta.definition.loadOptions.maxIgnoredRows;
        const conn = await this.ctx.connect();
        try {
          const load = await TableLoad.begin(conn, table, meta.definition.loadOptions.emptyTarget);
          let staged;
          try {
            staged = await stageChunks(
              meta.chunks.map((n) => this.store.chunkPath(id, n)),
              meta.definition,
              table,
              (k) => this.store.stagedPartPath(id, k),
              this.store.badRecordsPath(id),
              async (part, soFar) => {
                if (soFar.ignored > max) load.stop(); // the load will fail: insert no more
                await load.add(part);
              },
            );
          } catch (e) {
            await load.rollback();
            throw e;
          }
          meta.ignoredRowCount = staged.ignored;
          meta.parsingErrors = staged.parsingErrors;
          meta.hasBadRecords = staged.hasBadRecords;
          if (staged.ignored > max) {
            await load.rollback();
            return this.finish(meta, {
              code: 'LOAD_FAILED',
              message: `${staged.ignored} rows were ignored, more than max_ignored_rows (${max}); no rows were written. See parsing_errors and the bad records file.`,
            });
          }
          meta.rowsWritten = await load.commit();
        } finally {
          conn.closeSync();
        }
        this.finish(meta, { code: 'OK' });
        this.ctx.tableChanged(table);
      });
    } catch (e) {
      meta.rowsWritten = 0;
      this.finish(meta, { code: 'LOAD_FAILED', message: `Commit failed, no rows were written: ${(e as Error).message}` });
    } finally {
      try {
        this.discardData(meta);
        this.store.save(meta);
      } catch {
        // the data directory is gone (the emulator is being torn down): nothing left to record
      }
    }
  }
}

const services = new WeakMap<EmulatorContext, LoadService>();

/** Sends a plain-text body (seed 7: load API responses are plain text). */
function text(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/** Text for the `x-tsq-detail` header: printable ASCII only (a header cannot carry anything else). */
function detail(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

/** A body as an object: JSON and form bodies arrive parsed; a text body is read as JSON. */
function bodyObject(body: unknown): unknown {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const s = body.toString();
    if (s.trim() === '') return undefined;
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  return body;
}

/** The value of the `JSESSIONID` cookie, from @fastify/cookie or the raw header. */
function sessionToken(req: FastifyRequest): string | undefined {
  const cookies = (req as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies;
  if (cookies) return cookies.JSESSIONID;
  const m = /(?:^|;\s*)JSESSIONID=([^;]*)/.exec(req.headers.cookie ?? '');
  return m ? decodeURIComponent(m[1] as string) : undefined;
}

/**
 * Registers the data-load API on `app` (one node). Call it once per Fastify instance, before `listen`.
 * Uses @fastify/cookie and @fastify/formbody when the app has them, registers them otherwise, and
 * registers @fastify/multipart inside its own scope with no chunk size limit.
 */
export async function registerLoadApi(app: FastifyInstance, ctx: EmulatorContext): Promise<void> {
  let svc = services.get(ctx);
  if (!svc) services.set(ctx, (svc = new LoadService(ctx)));
  const service = svc;
  /** Sessions of this node: token → user id (field notes 4.4: a session is valid on its own node only). */
  const sessions = new Map<string, string>();

  await app.register(async (scope) => {
    if (!scope.hasRequestDecorator('cookies')) await scope.register((await import('@fastify/cookie')).default);
    if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register((await import('@fastify/formbody')).default);
    if (!scope.hasContentTypeParser('multipart/form-data')) {
      await scope.register(multipart, { limits: { fileSize: Number.MAX_SAFE_INTEGER, files: 1000, parts: 2000 } });
    }
    if (!scope.hasContentTypeParser('*')) {
      scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    }
    // a node that closes lets its running commits end first (the core closes the database after the apps)
    scope.addHook('onClose', async () => {
      await Promise.allSettled([...service.running]);
    });
    scope.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? 400 : 500;
      if (req.method === 'POST' && req.url.split('?')[0] === `${BASE}/public/loads`) return text(reply.header('x-tsq-detail', detail(err.message)), 400, MESSAGES.invalidParams);
      if (req.method === 'POST' && req.url.split('?')[0] === `${BASE}/public/session`) return text(reply, 401, MESSAGES.unauthorized);
      // a 500 never carries the engine's text: it goes to the incident log (emulator/src/errors.ts)
      return text(reply, status, status === 500 ? loadInternalErrorText(err, req) : err.message);
    });

    /** Checks the session and the privilege; answers 401/403/500 and returns undefined when refused. */
    const authorize = (req: FastifyRequest, reply: FastifyReply): EmulatorUser | undefined => {
      const token = sessionToken(req);
      const userId = token === undefined ? undefined : sessions.get(token);
      if (userId === undefined) {
        text(reply, 401, MESSAGES.unauthorized);
        return undefined;
      }
      let user: EmulatorUser | undefined;
      try {
        user = ctx.userById(userId);
      } catch {
        text(reply, 500, MESSAGES.authService);
        return undefined;
      }
      if (!user) {
        sessions.delete(token as string);
        text(reply, 401, MESSAGES.unauthorized);
        return undefined;
      }
      if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) {
        text(reply, 403, MESSAGES.forbidden);
        return undefined;
      }
      return user;
    };

    const cycleOf = (req: FastifyRequest): { id: string; meta: CycleMeta | undefined } => {
      const id = (req.params as { cycleId: string }).cycleId;
      return { id, meta: service.store.get(id, service.nowMicros()) };
    };

    // Login (seed 4.1; JSON or form body, field notes 4.1)
    scope.post(`${BASE}/public/session`, async (req, reply) => {
      const b = bodyObject(req.body);
      const o = (typeof b === 'object' && b !== null ? b : {}) as Record<string, unknown>;
      if (typeof o.username !== 'string' || typeof o.password !== 'string') return text(reply, 401, MESSAGES.unauthorized);
      let user: EmulatorUser | undefined;
      try {
        user = await ctx.verifyPassword(o.username, o.password);
      } catch {
        return text(reply, 500, MESSAGES.authService);
      }
      if (!user) return text(reply, 401, MESSAGES.unauthorized);
      const token = randomUUID();
      sessions.set(token, user.id);
      const r = reply as FastifyReply & { setCookie?: (n: string, v: string, o: object) => FastifyReply };
      if (r.setCookie) r.setCookie('JSESSIONID', token, { path: '/', httpOnly: true, sameSite: 'lax' });
      else reply.header('set-cookie', `JSESSIONID=${token}; Path=/; HttpOnly; SameSite=Lax`);
      return text(reply, 200, '');
    });

    // Health check (field notes 4.1)
    scope.get(`${BASE}/public/ping`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      return text(reply, 200, MESSAGES.ping);
    });

    // StartLoad (seed 2.2, 2.3, 4.1)
    scope.post(`${BASE}/public/loads`, async (req, reply) => {
      const user = authorize(req, reply);
      if (!user) return reply;
      const body = bodyObject(req.body);
      let def;
      try {
        def = parseLoadDefinition(body);
      } catch (e) {
        if (e instanceof InvalidLoadDefinition) return text(reply.header('x-tsq-detail', detail(e.detail)), 400, MESSAGES.invalidParams);
        throw e;
      }
      const meta = service.store.create(def, body, user.id, service.nowMicros());
      return text(reply, 202, JSON.stringify({ node_address: ctx.nodeAddress(), cycle_id: meta.cycleId }));
    });

    // Load: one or more chunks as multipart file parts; the field name does not matter (field notes 4.2)
    scope.post(`${BASE}/public/loads/:cycleId`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
      if (meta.stage !== 'INGESTING') {
        return text(reply, 400, `Cycle_id=[${id}] no longer accepts data: it has been ${meta.cancelled ? 'cancelled' : 'committed'}. Start a new load cycle.`);
      }
      let table: TableInfo | undefined;
      try {
        table = ctx.findTable(meta.definition.target.database, meta.definition.target.schema, meta.definition.target.table);
      } catch {
        return text(reply, 400, MESSAGES.noEngine);
      }
      if (!table) return text(reply, 400, MESSAGES.noTable);
      if (!req.isMultipart()) return text(reply, 400, 'Load expects a multipart/form-data body with the data chunk as a file part.');
      const work = (async () => {
        let received = 0;
        for await (const part of req.parts()) {
          const n = service.takeChunkNumber(meta);
          const path = service.store.chunkPath(meta.cycleId, n);
          const partial = `${path}.part`;
          try {
            const source = part.type === 'file' ? part.file : Readable.from([String(part.value ?? '')]);
            await pipeline(source, createWriteStream(partial));
            if (part.type === 'file' && part.file.truncated) throw new Error('the chunk was cut off at the size limit');
          } catch (e) {
            rmSync(partial, { force: true });
            throw e;
          }
          if (meta.stage !== 'INGESTING') {
            rmSync(partial, { force: true }); // cancelled or committed while this chunk arrived
            continue;
          }
          renameSync(partial, path);
          meta.chunks.push(n);
          meta.chunks.sort((a, b) => a - b);
          meta.bytesIngested += part.type === 'file' ? part.file.bytesRead : Buffer.byteLength(String(part.value ?? ''));
          service.store.save(meta);
          received++;
        }
        return received;
      })();
      service.track(meta.cycleId, work);
      let received: number;
      try {
        received = await work;
      } catch (e) {
        return text(reply, 400, `The chunk upload failed and was discarded: ${(e as Error).message}`);
      }
      if (received === 0) return text(reply, 400, 'Load received no data: send the chunk as a multipart/form-data file part.');
      return text(reply.header('connection', 'close'), 202, MESSAGES.uploadComplete);
    });

    // CommitLoad: 202 at once, the work runs in the background (field notes 4.2)
    scope.post(`${BASE}/public/loads/:cycleId/commit`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      if (!meta) return text(reply, 500, MESSAGES.unknownCommit(id));
      if (meta.stage !== 'INGESTING') return text(reply, 500, `Commit load cycle failed. Error ending load. Cycle_id '${id}' is already ${meta.stage === 'COMMITTING' ? 'being committed' : 'closed'}.`);
      await Promise.allSettled([...(service.uploads.get(meta.cycleId) ?? [])]);
      const expected = req.headers['x-ts-chunks'];
      if (typeof expected === 'string' && /^\d+$/.test(expected) && Number(expected) !== meta.chunks.length) {
        return text(reply, 500, `Commit load cycle failed. Error ending load. ${expected} chunks were announced (X-ts-chunks) but ${meta.chunks.length} were received.`);
      }
      meta.stage = 'COMMITTING';
      meta.status = {};
      service.store.save(meta);
      const work = service.commit(meta).catch((e: unknown) => req.log.error(e, 'load cycle commit'));
      service.running.add(work);
      void work.finally(() => service.running.delete(work));
      return text(reply, 202, MESSAGES.commitRequested);
    });

    // AbortLoad: discards the chunks; the table never saw them (seed 3)
    scope.post(`${BASE}/public/loads/:cycleId/cancel`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
      if (meta.stage === 'COMMITTING') return text(reply, 400, `Cycle_id=[${id}] is being committed and can no longer be cancelled.`);
      if (meta.stage === 'DONE') {
        if (meta.cancelled) return text(reply, 200, '');
        return text(reply, 400, `Cycle_id=[${id}] has already been committed and can no longer be cancelled.`);
      }
      meta.cancelled = true;
      service.finish(meta, { code: 'LOAD_FAILED', message: 'The load cycle was cancelled (AbortLoad); its chunks were discarded and no rows were written.' });
      service.discardData(meta);
      return text(reply, 200, '');
    });

    // Status (seed 4.1 path without /public, and the /public path clients use, field notes 4.2)
    const status = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
      return text(reply, 200, JSON.stringify(statusJson(meta)));
    };
    scope.get(`${BASE}/loads/:cycleId`, status);
    scope.get(`${BASE}/public/loads/:cycleId`, status);

    // The load definition as received (field notes 4.2)
    scope.get(`${BASE}/public/loads/:cycleId/input_summary`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
      return text(reply, 200, JSON.stringify({ load_params: meta.loadParams }));
    });

    // Bad records: the rejected raw records, one per line (seed 4.1, field notes 4.2)
    scope.get(`${BASE}/public/loads/:cycleId/bad_records_file`, async (req, reply) => {
      if (!authorize(req, reply)) return reply;
      const { id, meta } = cycleOf(req);
      const path = meta?.hasBadRecords ? service.store.badRecordsPath(meta.cycleId) : undefined;
      if (!path || !existsSync(path)) return text(reply, 500, MESSAGES.noBadRecords(id));
      return reply.code(200).type('text/plain; charset=utf-8').send(createReadStream(path));
    });
  });
}
