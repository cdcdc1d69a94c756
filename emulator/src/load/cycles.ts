/**
 * Load cycles (docs/service-interface.md §3): their state on disk under `<dataDir>/cycles/<cycle id>/` —
 * `cycle.json` (the metadata below), `chunk-<n>` (uploaded chunks, as received; `chunk-<n>.part` while one
 * arrives), `staged-<k>.csv` (the converted rows, during a commit) and `<cycle id>.bad_record` (the
 * rejected raw records). The metadata is written on every change of stage, so the status of a cycle
 * survives a restart of the emulator. Whether a cycle cut off while COMMITTING wrote its rows is not
 * decided here but by the engine (emulator/src/load/outcome.ts, `settleInterrupted`).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { LoadDefinition } from './definition';

/** Cycle ids are UUIDs; anything else is refused before a path is built from it. */
const CYCLE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `id` has the shape of a cycle id (so it cannot name a path outside the cycles folder). */
export function isCycleId(id: string): boolean {
  return CYCLE_ID.test(id);
}

/** Stages of a cycle (`internal_stage`): INGESTING (open for chunks), COMMITTING, DONE (docs/service-notes.md §4.3). */
export type Stage = 'INGESTING' | 'COMMITTING' | 'DONE';

/** A parsing error reported with the status (at most `max_reported_parsing_errors`). */
export interface ParsingError {
  /** 1-based number of the chunk (in upload order). */
  chunk: number;
  /** 1-based line of the chunk where the rejected record starts. */
  row: number;
  reason: string;
}

/** What `cycle.json` holds. */
export interface CycleMeta {
  cycleId: string;
  /** The StartLoad body as received (answered by `input_summary`). */
  loadParams: unknown;
  definition: LoadDefinition;
  /** Id of the user who started the cycle. */
  userId: string;
  stage: Stage;
  /** `{}` while the cycle runs; then OK or LOAD_FAILED with a message. */
  status: { code?: 'OK' | 'LOAD_FAILED'; message?: string };
  /** Numbers of the chunks completely received, in upload order. */
  chunks: number[];
  /** Bytes received in all chunks. */
  bytesIngested: number;
  rowsWritten: number;
  ignoredRowCount: number;
  parsingErrors: ParsingError[];
  /** True when AbortLoad ended the cycle. */
  cancelled?: boolean;
  /** True once the bad records file exists. */
  hasBadRecords: boolean;
  /** Epoch microseconds. */
  startTime: number;
  endTime?: number;
  /** Epoch milliseconds (the real clock, not `--now`) of the last StartLoad or chunk: an INGESTING cycle idle for longer than the emulator's limit expires. */
  lastActivity?: number;
}

/** The cycles of one data directory, shared by every node (Fastify instance) of an emulator. */
export class CycleStore {
  private readonly cycles = new Map<string, CycleMeta>();
  readonly root: string;

  constructor(dataDir: string) {
    this.root = resolve(dataDir, 'cycles');
    mkdirSync(this.root, { recursive: true });
  }

  /**
   * The folder of a cycle. Throws `Error` when `id` is not a cycle id or the folder would lie outside
   * `<dataDir>/cycles` (both checked, so no id can reach another path).
   */
  dir(id: string): string {
    if (!isCycleId(id)) throw new Error(`not a cycle id: ${id}`);
    const d = resolve(this.root, id);
    if (!d.startsWith(this.root + sep)) throw new Error(`cycle folder outside the data directory: ${id}`);
    return d;
  }

  /** Creates a cycle in stage INGESTING and writes its metadata. */
  create(definition: LoadDefinition, loadParams: unknown, userId: string, nowMicros: number): CycleMeta {
    const cycleId = randomUUID();
    mkdirSync(this.dir(cycleId), { recursive: true });
    const meta: CycleMeta = {
      cycleId,
      loadParams,
      definition,
      userId,
      stage: 'INGESTING',
      status: {},
      chunks: [],
      bytesIngested: 0,
      rowsWritten: 0,
      ignoredRowCount: 0,
      parsingErrors: [],
      hasBadRecords: false,
      startTime: nowMicros,
      lastActivity: Date.now(),
    };
    this.cycles.set(cycleId, meta);
    this.save(meta);
    return meta;
  }

  /**
   * A cycle by id: from memory, else from its `cycle.json` (after a restart), as it was saved.
   * Undefined for an unknown or malformed id, or unreadable metadata.
   */
  get(id: string): CycleMeta | undefined {
    if (!isCycleId(id)) return undefined;
    const key = id.toLowerCase();
    const known = this.cycles.get(key);
    if (known) return known;
    const file = join(this.dir(key), 'cycle.json');
    if (!existsSync(file)) return undefined;
    let meta: CycleMeta;
    try {
      meta = JSON.parse(readFileSync(file, 'utf8')) as CycleMeta;
    } catch {
      return undefined;
    }
    this.cycles.set(key, meta);
    return meta;
  }

  /**
   * Deletes the folders of cycles that have no `cycle.json`: a StartLoad cut off (the process killed) between
   * creating its folder and writing its metadata, whose caller never got a cycle id. Called at start-up only,
   * before any StartLoad of this process. Returns how many were deleted.
   */
  deleteOrphans(): number {
    let n = 0;
    for (const name of readdirSync(this.root)) {
      if (!isCycleId(name) || existsSync(join(this.dir(name), 'cycle.json'))) continue;
      rmSync(this.dir(name), { recursive: true, force: true });
      n++;
    }
    return n;
  }

  /** Every cycle of the data directory (read from disk once, then from memory). */
  all(): CycleMeta[] {
    const out: CycleMeta[] = [];
    for (const name of readdirSync(this.root)) {
      const meta = isCycleId(name) ? this.get(name) : undefined;
      if (meta) out.push(meta);
    }
    return out;
  }

  /**
   * Ends a cycle found COMMITTING after a restart, from what the engine recorded in the commit's own
   * transaction (emulator/src/load/outcome.ts): with an outcome, DONE OK with its counts (the rows are in
   * the table); without, DONE LOAD_FAILED (the transaction never committed: no rows were written). Saves it.
   */
  settleInterrupted(meta: CycleMeta, outcome: { rowsWritten: number; ignoredRowCount: number; parsingErrors: ParsingError[]; hasBadRecords: boolean; endTime: number } | undefined, nowMicros: number): void {
    meta.stage = 'DONE';
    if (outcome) {
      meta.status = { code: 'OK' };
      meta.rowsWritten = outcome.rowsWritten;
      meta.ignoredRowCount = outcome.ignoredRowCount;
      meta.parsingErrors = outcome.parsingErrors;
      meta.hasBadRecords = outcome.hasBadRecords;
      meta.endTime = outcome.endTime;
    } else {
      meta.status = { code: 'LOAD_FAILED', message: 'The emulator stopped while this cycle was being committed, before its rows were committed; no rows were written. Start a new load cycle.' };
      meta.rowsWritten = 0;
      meta.endTime = nowMicros;
    }
    this.save(meta);
  }

  /** Writes `cycle.json` (to a temporary file first, so a crash never leaves half a file). */
  save(meta: CycleMeta): void {
    const d = this.dir(meta.cycleId);
    const tmp = join(d, 'cycle.json.tmp');
    writeFileSync(tmp, JSON.stringify(meta));
    renameSync(tmp, join(d, 'cycle.json'));
  }

  /** Path of chunk `n` of a cycle. */
  chunkPath(id: string, n: number): string {
    return join(this.dir(id), `chunk-${n}`);
  }

  /** Path of the bad records file: `<cycle id>.bad_record` (docs/service-interface.md §4.1). */
  badRecordsPath(id: string): string {
    return join(this.dir(id), `${id}.bad_record`);
  }

  /** Path of part `k` of the staged rows of a commit. */
  stagedPartPath(id: string, k: number): string {
    return join(this.dir(id), `staged-${k}.csv`);
  }
}

/** The status JSON of a cycle (docs/service-notes.md §4.3): counts and times as strings (int64 in protobuf JSON). */
export function statusJson(meta: CycleMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {
    cycle_id: meta.cycleId,
    internal_stage: meta.stage,
    status: meta.status,
    start_time: String(meta.startTime),
    ingested_network_bw: String(meta.bytesIngested),
    rows_written: String(meta.rowsWritten),
    ignored_row_count: String(meta.ignoredRowCount),
  };
  if (meta.endTime !== undefined) out.end_time = String(meta.endTime);
  if (meta.parsingErrors.length) out.parsing_errors = meta.parsingErrors;
  return out;
}
