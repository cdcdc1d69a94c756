/**
 * The load cycles' work shared by every node of one emulator: CommitLoad's background commit (fast path,
 * else staged), the durable outcome of each commit, recovery after a restart, and housekeeping.
 * Durability: the cycle's rows AND its outcome (outcome.ts) go in one DuckDB transaction, and only then
 * DONE/OK into `cycle.json`; after a crash in between, `recover` reads the outcome from the engine and
 * ends the cycle OK or LOAD_FAILED, so the status always agrees with the table.
 * Housekeeping: the chunks and staged parts of ended cycles are deleted, also those left by a crash. A
 * cycle idle in INGESTING longer than `ctx.loadCycleIdleMs` (`DEFAULT_CYCLE_IDLE_MS`, `--cycle-idle-minutes`;
 * counted across restarts) expires: LOAD_FAILED, its chunks deleted. The service documents no such limit
 * (docs/service-interface.md §8), so this one is the emulator's own.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorContext, TableInfo } from '../context';
import { stageChunks, TableLoad } from './commit';
import { crashPoint } from './crash';
import { CycleStore, type CycleMeta } from './cycles';
import { chunksAreFastPathSafe, fastPathSql } from './fastpath';
import { MESSAGES } from './http';
import { ensureOutcomeTable, readOutcome, recordOutcome } from './outcome';
import { messageOf } from '../../../common/src/guards';

/** How long a cycle may sit in INGESTING without a chunk before it expires: 60 minutes. */
export const DEFAULT_CYCLE_IDLE_MS = 60 * 60 * 1000;

/** State shared by every node of one emulator (one per `EmulatorContext`). */
export class LoadService {
  readonly store: CycleStore;
  /** Uploads in progress per cycle id (a commit waits for them). */
  readonly uploads = new Map<string, Set<Promise<unknown>>>();
  /** Next chunk number per cycle id (numbers are taken when an upload starts). */
  private readonly nextChunk = new Map<string, number>();
  /** Chunk numbers handed out per cycle id (stored, or an upload under way or failed): never handed out twice. */
  private readonly takenChunks = new Map<string, Set<number>>();
  /** Commits in progress per table, so two commits on one table run one after the other. */
  private readonly tableQueue = new Map<string, Promise<unknown>>();
  /** Commits running in the background (awaited when a node closes, before the database does). */
  readonly running = new Set<Promise<void>>();
  /** Resolves once `recover` ended (registerLoadApi waits for it before serving). */
  readonly ready: Promise<void>;
  /** Milliseconds an INGESTING cycle may stay idle. */
  readonly idleMs: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(readonly ctx: EmulatorContext) {
    this.store = new CycleStore(ctx.dataDir);
    this.idleMs = ctx.loadCycleIdleMs ?? DEFAULT_CYCLE_IDLE_MS;
    this.ready = this.recover();
    // sweep for idle cycles a few times per limit (at most every minute); never keeps the process alive
    this.sweeper = setInterval(() => this.expireIdle(), Math.max(10, Math.min(this.idleMs / 4, 60_000)));
    this.sweeper.unref();
  }

  /** Stops the expiry sweeps (the emulator closes). */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Epoch microseconds of the emulator's clock. */
  nowMicros(): number {
    return this.ctx.now().getTime() * 1000;
  }

  /** A cycle by id (see `CycleStore.get`), after expiring it when it sat idle too long. */
  cycle(id: string): CycleMeta | undefined {
    const meta = this.store.get(id);
    if (meta) this.expireIfIdle(meta);
    return meta;
  }

  /**
   * After a restart: creates the outcome table, deletes the folders of StartLoads cut off before their
   * metadata was written, settles every cycle cut off while COMMITTING from the engine's record, deletes the
   * data of ended cycles and the half-received chunks of open ones, and expires idle ones. Throws DuckDB's error when the outcome table cannot be created.
   */
  private async recover(): Promise<void> {
    const conn = await this.ctx.connect();
    try {
      await ensureOutcomeTable(conn);
      this.store.deleteOrphans();
      for (const meta of this.store.all()) {
        if (meta.stage === 'COMMITTING') this.store.settleInterrupted(meta, await readOutcome(conn, meta.cycleId), this.nowMicros());
        if (meta.stage === 'DONE') this.discardData(meta);
        else this.discardPartials(meta);
      }
    } finally {
      conn.closeSync();
    }
    this.expireIdle();
  }

  /** Expires every INGESTING cycle idle longer than the limit. */
  expireIdle(): void {
    try {
      for (const meta of this.store.all()) this.expireIfIdle(meta);
    } catch {
      // the data directory is gone (the emulator is being torn down)
    }
  }

  private expireIfIdle(meta: CycleMeta): void {
    if (meta.stage !== 'INGESTING' || (this.uploads.get(meta.cycleId)?.size ?? 0) > 0) return;
    const idle = Date.now() - (meta.lastActivity ?? meta.startTime / 1000);
    if (idle <= this.idleMs) return;
    meta.cancelled = true;
    this.finish(meta, {
      code: 'LOAD_FAILED',
      message: `The load cycle expired: it received no chunk and no commit for ${Math.round(this.idleMs / 60_000)} minutes (the emulator's --cycle-idle-minutes). Its chunks were deleted and no rows were written. Start a new load cycle.`,
    });
    this.discardData(meta);
  }

  /**
   * The number of a chunk whose upload starts: `wanted` (the request's `X-ts-chunk-id`, docs/service-notes.md
   * §4.2) when it is a positive integer no other chunk of the cycle has taken, else the next number after
   * every number taken. Why by the id: a client may upload the next chunk while the previous one's answer is
   * awaited, or send a chunk refused with 401 again after its successor was stored; the chunks' order (rows,
   * the `chunk` of parsing errors) is then still the client's. Which number the service gives such chunks is
   * not documented; without an id, numbers follow the arrival order.
   */
  takeChunkNumber(meta: CycleMeta, wanted?: number): number {
    let taken = this.takenChunks.get(meta.cycleId);
    if (!taken) this.takenChunks.set(meta.cycleId, (taken = new Set(meta.chunks)));
    const free = (k: number) => !taken.has(k) && !meta.chunks.includes(k);
    let n: number;
    if (wanted !== undefined && Number.isSafeInteger(wanted) && wanted > 0 && free(wanted)) n = wanted;
    else {
      n = Math.max(this.nextChunk.get(meta.cycleId) ?? 1, (meta.chunks.at(-1) ?? 0) + 1);
      while (!free(n)) n++;
    }
    taken.add(n);
    this.nextChunk.set(meta.cycleId, Math.max(this.nextChunk.get(meta.cycleId) ?? 1, n + 1));
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

  /** Deletes every chunk (also half-received ones) and staged part of a cycle; the metadata and bad records stay. */
  discardData(meta: CycleMeta): void {
    const dir = this.store.dir(meta.cycleId);
    for (const f of readdirSync(dir)) if (f.startsWith('chunk-') || f.startsWith('staged-')) rmSync(join(dir, f), { force: true });
  }

  /** Deletes the half-received chunks (`chunk-<n>.part`) and staged parts of a cycle whose uploads died with the process. */
  private discardPartials(meta: CycleMeta): void {
    const dir = this.store.dir(meta.cycleId);
    for (const f of readdirSync(dir)) if (f.endsWith('.part') || f.startsWith('staged-')) rmSync(join(dir, f), { force: true });
  }

  /** The outcome to record with the rows, from the cycle's counts. */
  private outcomeOf(meta: CycleMeta, rowsWritten: number) {
    return { cycleId: meta.cycleId, rowsWritten, ignoredRowCount: meta.ignoredRowCount, parsingErrors: meta.parsingErrors, hasBadRecords: meta.hasBadRecords, endTime: this.nowMicros() };
  }

  /**
   * The fast path (fastpath.ts): one INSERT … SELECT from read_csv over the chunks, in one transaction
   * (after the DELETE of `empty_target`) with the outcome. Returns the rows written when it loaded every
   * record; undefined when the cycle is outside its subset or the statement failed (rolled back: the slow
   * path decides).
   */
  private async commitFast(meta: CycleMeta, table: TableInfo): Promise<number | undefined> {
    const paths = meta.chunks.map((n) => this.store.chunkPath(meta.cycleId, n));
    const sql = fastPathSql(meta.definition, table, paths);
    if (sql === undefined || !(await chunksAreFastPathSafe(paths, meta.definition.format.hasHeaderRow))) return undefined;
    const conn = await this.ctx.connect();
    try {
      await conn.run('BEGIN TRANSACTION');
      let rows: number;
      try {
        if (meta.definition.loadOptions.emptyTarget) await conn.run(`DELETE FROM ${table.sqlName}`);
        rows = (await conn.run(sql)).rowsChanged;
        meta.ignoredRowCount = 0;
        meta.parsingErrors = [];
        await recordOutcome(conn, this.outcomeOf(meta, rows));
        crashPoint('rows-inserted');
      } catch {
        await conn.run('ROLLBACK').catch(() => undefined);
        return undefined;
      }
      await conn.run('COMMIT');
      return rows;
    } finally {
      conn.closeSync();
    }
  }

  /**
   * The slow path: stages the chunks, checks `max_ignored_rows`, and applies the rows and the outcome in one
   * transaction. Returns the rows written, or a LOAD_FAILED status when too many rows were ignored.
   * Throws when the engine refused the rows (nothing was committed).
   */
  private async commitStaged(meta: CycleMeta, table: TableInfo): Promise<number | CycleMeta['status']> {
    const id = meta.cycleId;
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
        return {
          code: 'LOAD_FAILED',
          message: `${staged.ignored} rows were ignored, more than max_ignored_rows (${max}); no rows were written. See parsing_errors and the bad records file.`,
        };
      }
      return await load.commit(async (c, inserted) => {
        await recordOutcome(c, this.outcomeOf(meta, inserted));
        crashPoint('rows-inserted');
      });
    } finally {
      conn.closeSync();
    }
  }

  /**
   * CommitLoad's background work: waits for uploads in flight, commits (fast path, else staged), and ends
   * the cycle OK or LOAD_FAILED. Once the engine committed, the cycle ends OK whatever happens next.
   * Never throws.
   */
  async commit(meta: CycleMeta): Promise<void> {
    let committed = false;
    try {
      await Promise.allSettled([...(this.uploads.get(meta.cycleId) ?? [])]);
      const t = meta.definition.target;
      const table = this.ctx.findTable(t.database, t.schema, t.table);
      if (!table) return this.finish(meta, { code: 'LOAD_FAILED', message: MESSAGES.noTable });
      await this.onTable(table, async () => {
        const done = (await this.commitFast(meta, table)) ?? (await this.commitStaged(meta, table));
        if (typeof done !== 'number') return this.finish(meta, done);
        committed = true;
        meta.rowsWritten = done;
        crashPoint('engine-committed');
        this.finish(meta, { code: 'OK' });
        crashPoint('status-recorded');
        this.ctx.tableChanged(table);
      });
    } catch (e) {
      if (!committed) {
        meta.rowsWritten = 0;
        this.finish(meta, { code: 'LOAD_FAILED', message: `Commit failed, no rows were written: ${messageOf(e)}` });
      } else if (meta.stage !== 'DONE') {
        this.finish(meta, { code: 'OK' });
      }
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
