/**
 * Reading a load cycle's status patiently. A status read is idempotent (docs/service-notes.md §4.2:
 * `GET /public/loads/{cycle}`), so a read that fails because the service could not be reached, or
 * answered with a server error (5xx), is read again with backoff; a dropped read never ends a load.
 * Only when the service has been unreachable for `unreachableMs` in a row is the cycle's fate called
 * unknown (`StatusUnreachableError`), and the cycle id lets a person check it later (`checkCycle`, the
 * extension's "TSQ: Check Load Status"). A 401 is retried by the session itself after a new login.
 *
 * No `vscode` here.
 */
import { ConnectionError, ServiceError } from '../api/errors';
import { delay, type LoadStatus } from '../api/loadApi';
import type { AnalyticsServiceClient } from '../api/index';
import { memberOf } from '../guards';

/** How long the service may be unreachable after a commit before the load is reported unknown: 2 minutes. */
export const DEFAULT_UNREACHABLE_MS = 120_000;

/** Options of `readStatusPatiently` and `awaitOutcome`. */
export interface StatusReadOptions {
  /** First wait between reads in ms (default 250); grows ×1.5 up to `maxIntervalMs` (default 5000). */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** How long the service may be unreachable in a row before giving up (default `DEFAULT_UNREACHABLE_MS`). */
  unreachableMs?: number;
  /** Longest wait for one status answer in ms (default 30 000). */
  readTimeoutMs?: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** The service could not be reached for the whole allowed time; the cycle's fate is unknown. */
export class StatusUnreachableError extends Error {
  constructor(
    readonly cycleId: string,
    readonly unreachableMs: number,
    options?: { cause?: unknown },
  ) {
    super(`the service could not be reached for ${Math.round(unreachableMs / 1000)} s while reading the status of cycle ${cycleId}`, options);
    this.name = 'StatusUnreachableError';
  }
}

/** True for a failure worth reading again: no answer (network, timeout) or a server error (5xx). */
export function isTransient(e: unknown): boolean {
  if (e instanceof ConnectionError) return !e.aborted;
  if (e instanceof ServiceError) return e.status >= 500 && !/unknown cycle|cycle_id/i.test(e.serviceMessage);
  return memberOf(e, 'name') === 'TimeoutError';
}

/**
 * One status, read again with backoff while the failures are transient (`isTransient`).
 * @throws StatusUnreachableError after `unreachableMs` of transient failures in a row; any other error at once.
 */
export async function readStatusPatiently(client: AnalyticsServiceClient, cycleId: string, opts: StatusReadOptions = {}): Promise<LoadStatus> {
  const limit = opts.unreachableMs ?? DEFAULT_UNREACHABLE_MS;
  let wait = opts.intervalMs ?? 250;
  const since = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.readTimeoutMs ?? 30_000)]) : AbortSignal.timeout(opts.readTimeoutMs ?? 30_000);
      return await client.loadStatus(cycleId, { signal });
    } catch (e) {
      if (opts.signal?.aborted || !isTransient(e)) throw e;
      const down = performance.now() - since;
      if (down >= limit) throw new StatusUnreachableError(cycleId, down, { cause: e });
      opts.log?.(`status of cycle ${cycleId} could not be read (${e instanceof Error ? e.message : String(e)}); reading again in ${wait} ms (attempt ${attempt})`);
      await delay(Math.min(wait, Math.max(0, limit - down)), opts.signal);
      wait = Math.min(opts.maxIntervalMs ?? 5000, Math.ceil(wait * 1.5));
    }
  }
}

/**
 * Polls until the cycle ends: resolves with the final status, DONE with code OK, or with the failed
 * status (a code other than OK) thrown as `CycleFailedError`. Reads are patient (`readStatusPatiently`).
 */
export async function awaitOutcome(client: AnalyticsServiceClient, cycleId: string, opts: StatusReadOptions & { onStatus?: (s: LoadStatus) => void } = {}): Promise<LoadStatus> {
  let wait = opts.intervalMs ?? 250;
  for (;;) {
    const s = await readStatusPatiently(client, cycleId, opts);
    opts.onStatus?.(s);
    opts.log?.(`status of cycle ${cycleId}: ${s.internalStage ?? '?'}${s.status.code ? ` ${s.status.code}` : ''}, ${s.rowsWritten} rows written, ${s.ignoredRowCount} ignored`);
    if (s.status.code && s.status.code !== 'OK') throw new CycleFailedError(s);
    if (s.internalStage === 'DONE') return s;
    await delay(wait, opts.signal);
    wait = Math.min(opts.maxIntervalMs ?? 5000, Math.ceil(wait * 1.5));
  }
}

/** A cycle whose status ended with a code other than OK (e.g. LOAD_FAILED); `status` is that status. */
export class CycleFailedError extends Error {
  constructor(readonly status: LoadStatus) {
    super(`load cycle ${status.cycleId} failed (${status.status.code})${status.status.message ? `: ${status.status.message}` : ''}`);
    this.name = 'CycleFailedError';
  }
}

/** What `checkCycle` found, for a person. */
export interface CycleReport {
  cycleId: string;
  /** `done` (committed, OK), `failed` (no rows written), `open` (still ingesting or committing), `unknown` (the service does not know it). */
  state: 'done' | 'failed' | 'open' | 'unknown';
  status?: LoadStatus;
  /** One sentence: what happened to the table. */
  message: string;
}

/**
 * Reads a cycle's status once (patiently) and says what it means for the table: the check behind
 * "TSQ: Check Load Status" after a load whose outcome was unknown.
 * @throws StatusUnreachableError when the service cannot be reached; other errors of the status call (403).
 */
export async function checkCycle(client: AnalyticsServiceClient, cycleId: string, opts: StatusReadOptions = {}): Promise<CycleReport> {
  let s: LoadStatus;
  try {
    s = await readStatusPatiently(client, cycleId, { unreachableMs: 15_000, ...opts });
  } catch (e) {
    if (e instanceof ServiceError && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 403) {
      return { cycleId, state: 'unknown', message: `The service does not know cycle ${cycleId} (${e.serviceMessage || `HTTP ${e.status}`}): it may have expired or belong to another service.` };
    }
    throw e;
  }
  if (s.status.code && s.status.code !== 'OK') {
    return { cycleId, state: 'failed', status: s, message: `Cycle ${cycleId} failed (${s.status.code}): ${s.status.message ?? 'no reason given'}. It wrote no rows; the table was not changed by it.` };
  }
  if (s.internalStage === 'DONE') {
    return { cycleId, state: 'done', status: s, message: `Cycle ${cycleId} committed: ${s.rowsWritten} rows written, ${s.ignoredRowCount} ignored. Do not load the file again, or its rows are there twice.` };
  }
  return { cycleId, state: 'open', status: s, message: `Cycle ${cycleId} is still ${s.internalStage ?? 'in progress'}: check again later.` };
}
