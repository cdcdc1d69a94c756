/**
 * Query history: every run of a query kept as an entry (its text, data source, connection name, time,
 * rows, duration and outcome), newest first, at most HISTORY_LIMIT, per workspace (the extension keeps it
 * in the workspace's storage, client/src/history.ts). An entry never holds a credential: the connection
 * is named, never its URL, user or password, and an error text is cut to ERROR_LIMIT characters.
 */

/** Most entries kept; the oldest go first. */
export const HISTORY_LIMIT = 500;
/** Longest error text kept, in characters. */
export const ERROR_LIMIT = 500;
/** Longest query text kept, in characters (a longer one is not kept: a history is not a file store). */
export const QUERY_LIMIT = 20_000;

/** How a run ended. */
export type HistoryOutcome = 'ok' | 'error' | 'cancelled';

/** One run of a query. */
export interface HistoryEntry {
  /** Unique within the history. */
  id: string;
  /** The query text as sent (comments removed). */
  query: string;
  /** The data source name or GUID in force, or null. */
  dataSource: string | null;
  /** The connection's name (never its URL or user). */
  connection?: string;
  /** When the run started, epoch milliseconds. */
  startedAt: number;
  /** Rows fetched. */
  rows: number;
  /** Duration of the run, milliseconds. */
  durationMs: number;
  outcome: HistoryOutcome;
  /** The error text, cut to ERROR_LIMIT, when the run failed. */
  error?: string;
  /** The document the query ran from (a file URI), when there was one. */
  source?: string;
}

const OUTCOMES: readonly HistoryOutcome[] = ['ok', 'error', 'cancelled'];

/** True for a well-formed entry (as stored: the storage is read back, so nothing is taken on trust). */
function isEntry(v: unknown): v is HistoryEntry {
  const e = v as HistoryEntry;
  return (
    !!e && typeof e === 'object' && typeof e.id === 'string' && typeof e.query === 'string' && e.query.length <= QUERY_LIMIT &&
    (e.dataSource === null || typeof e.dataSource === 'string') && (e.connection === undefined || typeof e.connection === 'string') &&
    Number.isFinite(e.startedAt) && Number.isFinite(e.rows) && Number.isFinite(e.durationMs) && OUTCOMES.includes(e.outcome) &&
    (e.error === undefined || typeof e.error === 'string') && (e.source === undefined || typeof e.source === 'string')
  );
}

/** The entries of a stored value: well-formed ones only, at most `limit`, newest first. Never throws. */
export function readHistory(raw: unknown, limit = HISTORY_LIMIT): HistoryEntry[] {
  return Array.isArray(raw) ? raw.filter(isEntry).sort((a, b) => b.startedAt - a.startedAt).slice(0, limit) : [];
}

/**
 * The history with `entry` added first, bounded to `limit`. A query longer than QUERY_LIMIT is not kept;
 * the error text is cut to ERROR_LIMIT.
 */
export function addToHistory(list: readonly HistoryEntry[], entry: HistoryEntry, limit = HISTORY_LIMIT): HistoryEntry[] {
  if (entry.query.length > QUERY_LIMIT) return [...list];
  const kept: HistoryEntry = { ...entry, ...(entry.error !== undefined ? { error: entry.error.slice(0, ERROR_LIMIT) } : {}) };
  return [kept, ...list.filter((e) => e.id !== entry.id)].slice(0, limit);
}

/** The entries whose query, data source or connection contains `text` (any case); all for empty text. */
export function searchHistory(list: readonly HistoryEntry[], text: string): HistoryEntry[] {
  const t = text.trim().toLowerCase();
  if (!t) return [...list];
  return list.filter((e) => e.query.toLowerCase().includes(t) || (e.dataSource ?? '').toLowerCase().includes(t) || (e.connection ?? '').toLowerCase().includes(t));
}
