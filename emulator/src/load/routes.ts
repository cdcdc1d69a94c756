/**
 * The load cycle's routes (docs/service-interface.md §4.1, docs/service-notes.md §4.2): StartLoad, Load
 * (chunks), CommitLoad, AbortLoad, status, input_summary and bad records, one registering function per
 * feature. The work behind them is `LoadService`'s (service.ts); sessions are `LoadSessions`' (sessions.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream, existsSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EmulatorContext, TableInfo } from '../context';
import { crashPoint } from './crash';
import { statusJson, type CycleMeta } from './cycles';
import { InvalidLoadDefinition, parseLoadDefinition } from './definition';
import { BASE, bodyObject, detail, MESSAGES, text } from './http';
import type { LoadService } from './service';
import type { LoadSessions } from './sessions';
import { messageOf } from '../../../common/src/guards';
import { pathParam } from '../public/params';

/** What every cycle route needs. */
export interface CycleRouteDeps {
  ctx: EmulatorContext;
  service: LoadService;
  sessions: LoadSessions;
}

/** The cycle a request's `:cycleId` names (undefined `meta` when unknown). */
function cycleOf(service: LoadService, req: FastifyRequest): { id: string; meta: CycleMeta | undefined } {
  const id = pathParam(req, 'cycleId');
  return { id, meta: service.cycle(id) };
}

/**
 * StartLoad (docs/service-interface.md §2.2, §2.3, §4.1). StartLoad, Load and CommitLoad answer `200 OK`, as the
 * published tsload connector reference shows them (https://docs.thoughtspot.com/software/6.2/tsload-service-api-ref.html,
 * https://docs.thoughtspot.com/software/latest/tsload-api); an earlier revision of that page said 202 Accepted
 * (emulator/README.md, "Where sources disagree"). Every known client takes any 2xx.
 */
function registerStartLoad(scope: FastifyInstance, { ctx, service, sessions }: CycleRouteDeps): void {
  scope.post(`${BASE}/public/loads`, async (req, reply) => {
    const user = sessions.authorize(req, reply);
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
    return text(reply, 200, JSON.stringify({ node_address: ctx.nodeAddress(), cycle_id: meta.cycleId }));
  });
}

/** What became of one Load request's parts: all kept, or none (`refused` says why). */
type Received = { kept: number; refused?: undefined } | { kept: 0; refused: string };

/**
 * Receives the multipart parts of one Load request, whole or not at all. Each part is written to
 * `chunk-<n>.part` through a file handle opened before any byte is read, so a cut upload (or a cancel racing it)
 * deletes a file that exists and never leaves a `.part` file behind. Only when the request has ended are the
 * parts kept, all in one synchronous step that also checks the cycle still takes data: a request whose first
 * part arrived before a commit began and whose last part arrived after the cycle became COMMITTING is refused
 * whole, never half kept (the commit would otherwise load part of what was acknowledged). A part that fails
 * (cut off, over the size limit) discards the parts before it too, and the error is thrown.
 */
async function receiveChunks(service: LoadService, meta: CycleMeta, req: FastifyRequest): Promise<Received> {
  const parts: { n: number; path: string; bytes: number }[] = [];
  const discard = () => {
    for (const p of parts) rmSync(`${p.path}.part`, { force: true });
  };
  const id = req.headers['x-ts-chunk-id'];
  // the first part takes the request's chunk id (when free); further parts of one request the next numbers
  let wanted = typeof id === 'string' && /^\d{1,9}$/.test(id.trim()) ? Number(id.trim()) : undefined;
  try {
    for await (const part of req.parts()) {
      const n = service.takeChunkNumber(meta, wanted);
      wanted = undefined;
      const path = service.store.chunkPath(meta.cycleId, n);
      // the file exists once `open` resolved, so the deletion in `discard` can never precede its creation
      const fh = await open(`${path}.part`, 'w');
      parts.push({ n, path, bytes: 0 });
      const source = part.type === 'file' ? part.file : Readable.from([String(part.value ?? '')]);
      await pipeline(source, fh.createWriteStream());
      if (part.type === 'file' && part.file.truncated) throw new Error('the chunk was cut off at the size limit');
      (parts.at(-1) as { bytes: number }).bytes = part.type === 'file' ? part.file.bytesRead : Buffer.byteLength(String(part.value ?? ''));
    }
  } catch (e) {
    discard();
    throw e;
  }
  // from here to the save nothing awaits: the stage read below is the one the parts are kept under
  if (meta.stage !== 'INGESTING') {
    discard();
    const why = meta.cancelled ? 'cancelled or expired' : meta.stage === 'COMMITTING' ? 'being committed' : 'committed';
    return { kept: 0, refused: `Cycle_id=[${meta.cycleId}] stopped taking data while this request arrived: it is ${why}. None of its ${parts.length} part(s) were kept; start a new load cycle for them.` };
  }
  for (const p of parts) renameSync(`${p.path}.part`, p.path);
  crashPoint('upload-stored');
  for (const p of parts) {
    meta.chunks.push(p.n);
    meta.bytesIngested += p.bytes;
  }
  meta.chunks.sort((a, b) => a - b);
  meta.lastActivity = Date.now();
  if (parts.length > 0) service.store.save(meta);
  crashPoint('upload-recorded');
  return { kept: parts.length };
}

/** Load: one or more chunks as multipart file parts; the field name does not matter (docs/service-notes.md §4.2). */
function registerLoad(scope: FastifyInstance, { ctx, service, sessions }: CycleRouteDeps): void {
  scope.post(`${BASE}/public/loads/:cycleId`, async (req, reply) => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
    if (meta.stage !== 'INGESTING') {
      const why = meta.cancelled ? 'cancelled or expired' : 'committed';
      return text(reply, 400, `Cycle_id=[${id}] no longer accepts data: it has been ${why}. Start a new load cycle.`);
    }
    let table: TableInfo | undefined;
    try {
      table = ctx.findTable(meta.definition.target.database, meta.definition.target.schema, meta.definition.target.table);
    } catch {
      return text(reply, 400, MESSAGES.noEngine);
    }
    if (!table) return text(reply, 400, MESSAGES.noTable);
    if (!req.isMultipart()) return text(reply, 400, 'Load expects a multipart/form-data body with the data chunk as a file part.');
    meta.lastActivity = Date.now();
    const work = receiveChunks(service, meta, req);
    service.track(meta.cycleId, work);
    let received: Received;
    try {
      received = await work;
    } catch (e) {
      return text(reply, 400, `The chunk upload failed and none of this request's parts were kept: ${messageOf(e)}`);
    }
    if (received.refused !== undefined) return text(reply, 400, received.refused);
    if (received.kept === 0) return text(reply, 400, 'Load received no data: send the chunk as a multipart/form-data file part.');
    return text(reply.header('connection', 'close'), 200, MESSAGES.uploadComplete);
  });
}

/** CommitLoad: 200 at once, the work runs in the background (docs/service-notes.md §4.2). */
function registerCommit(scope: FastifyInstance, { service, sessions }: CycleRouteDeps): void {
  scope.post(`${BASE}/public/loads/:cycleId/commit`, async (req, reply) => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    if (!meta) return text(reply, 500, MESSAGES.unknownCommit(id));
    if (meta.stage !== 'INGESTING') return text(reply, 500, `Commit load cycle failed. Error ending load. Cycle_id '${id}' is already ${meta.stage === 'COMMITTING' ? 'being committed' : 'closed'}.`);
    await Promise.allSettled([...(service.uploads.get(meta.cycleId) ?? [])]);
    if (meta.stage !== 'INGESTING') return text(reply, 500, `Commit load cycle failed. Error ending load. Cycle_id '${id}' is already ${meta.stage === 'COMMITTING' ? 'being committed' : 'closed'}.`);
    const expected = req.headers['x-ts-chunks'];
    if (typeof expected === 'string' && /^\d+$/.test(expected) && Number(expected) !== meta.chunks.length) {
      return text(reply, 500, `Commit load cycle failed. Error ending load. ${expected} chunks were announced (X-ts-chunks) but ${meta.chunks.length} were received.`);
    }
    meta.stage = 'COMMITTING';
    meta.status = {};
    service.store.save(meta);
    crashPoint('commit-accepted');
    const work = service.commit(meta).catch((e: unknown) => req.log.error(e, 'load cycle commit'));
    service.running.add(work);
    void work.finally(() => service.running.delete(work));
    return text(reply, 200, MESSAGES.commitRequested);
  });
}

/** AbortLoad: discards the chunks; the table never saw them (docs/service-interface.md §3). */
function registerCancel(scope: FastifyInstance, { service, sessions }: CycleRouteDeps): void {
  scope.post(`${BASE}/public/loads/:cycleId/cancel`, async (req, reply) => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
    if (meta.stage === 'COMMITTING') return text(reply, 400, `Cycle_id=[${id}] is being committed and can no longer be cancelled.`);
    if (meta.stage === 'DONE') {
      if (meta.cancelled) return text(reply, 200, '');
      return text(reply, 400, `Cycle_id=[${id}] has already been committed and can no longer be cancelled.`);
    }
    meta.cancelled = true;
    service.finish(meta, { code: 'LOAD_FAILED', message: 'The load cycle was cancelled (AbortLoad); its chunks were discarded and no rows were written.' });
    crashPoint('cancel-recorded');
    service.discardData(meta);
    return text(reply, 200, '');
  });
}

/** Status, input summary and bad records: the reads of a cycle (docs/service-notes.md §4.2, §4.3). */
function registerReads(scope: FastifyInstance, { service, sessions }: CycleRouteDeps): void {
  // the path of docs/service-interface.md §4.1 (without /public) and the /public path clients use
  const status = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
    return text(reply, 200, JSON.stringify(statusJson(meta)));
  };
  scope.get(`${BASE}/loads/:cycleId`, status);
  scope.get(`${BASE}/public/loads/:cycleId`, status);

  // the load definition as received
  scope.get(`${BASE}/public/loads/:cycleId/input_summary`, async (req, reply) => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    if (!meta) return text(reply, 400, MESSAGES.unknownCycle(id));
    return text(reply, 200, JSON.stringify({ load_params: meta.loadParams }));
  });

  // the rejected raw records, one per line (docs/service-interface.md §4.1)
  scope.get(`${BASE}/public/loads/:cycleId/bad_records_file`, async (req, reply) => {
    if (!sessions.authorize(req, reply)) return reply;
    const { id, meta } = cycleOf(service, req);
    const path = meta?.hasBadRecords ? service.store.badRecordsPath(meta.cycleId) : undefined;
    if (!path || !existsSync(path)) return text(reply, 500, MESSAGES.noBadRecords(id));
    return reply.code(200).type('text/plain; charset=utf-8').send(createReadStream(path));
  });
}

/** Registers every cycle route on `scope`. */
export function registerCycleRoutes(scope: FastifyInstance, deps: CycleRouteDeps): void {
  registerStartLoad(scope, deps);
  registerLoad(scope, deps);
  registerCommit(scope, deps);
  registerCancel(scope, deps);
  registerReads(scope, deps);
}
