/**
 * Query history: every run of a query kept as an entry (its text, data source, connection name, time,
 * rows, duration and outcome), from a `.tsq` document or from Show Data on a saved answer, pinboard or
 * visualization (`answerRunEntry`), newest first, at most HISTORY_LIMIT, per workspace (the extension keeps it
 * in the workspace's storage, client/src/history.ts). An entry never holds a credential: the connection
 * is named, never its URL, user or password, and an error text is cut to ERROR_LIMIT characters.
 */

/** Most entries kept; the oldest go first. */
export const HISTORY_LIMIT = 500;
/** Longest error text kept, in characters. */
export const ERROR_LIMIT = 500;
/** Longest query text kept, in characters (a longer one is not kept: a history is not a file store). */
export const QUERY_LIMIT = 20_000;

/**
 * The saved object a Show Data run showed the data of (the Objects view's answer, pinboard or
 * visualization), so that Run Again shows it again. Names and GUIDs only.
 */
export interface HistoryAnswer {
  /** A saved answer (its search_query ran on its data source), a pinboard (all its visualizations), or one visualization of a pinboard. */
  kind: 'answer' | 'pinboard' | 'visualization';
  /** The object's GUID (of a visualization: the visualization's). */
  id: string;
  name: string;
  /** The pinboard of a visualization. */
  pinboardId?: string;
}

const ANSWER_KINDS: readonly HistoryAnswer['kind'][] = ['answer', 'pinboard', 'visualization'];

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
  /** The saved answer (pinboard, visualization) whose data the run showed (Show Data); absent for a run from a `.tsq` document. */
  answer?: HistoryAnswer;
}

const OUTCOMES: readonly HistoryOutcome[] = ['ok', 'error', 'cancelled'];

function isAnswer(v: unknown): v is HistoryAnswer {
  const a = v as HistoryAnswer;
  return !!a && typeof a === 'object' && ANSWER_KINDS.includes(a.kind) && typeof a.id === 'string' && typeof a.name === 'string' && (a.pinboardId === undefined || typeof a.pinboardId === 'string') && (a.kind !== 'visualization' || typeof a.pinboardId === 'string');
}

/** True for a well-formed entry (as stored: the storage is read back, so nothing is taken on trust). */
function isEntry(v: unknown): v is HistoryEntry {
  const e = v as HistoryEntry;
  return (
    !!e && typeof e === 'object' && typeof e.id === 'string' && typeof e.query === 'string' && e.query.length <= QUERY_LIMIT &&
    (e.dataSource === null || typeof e.dataSource === 'string') && (e.connection === undefined || typeof e.connection === 'string') &&
    Number.isFinite(e.startedAt) && Number.isFinite(e.rows) && Number.isFinite(e.durationMs) && OUTCOMES.includes(e.outcome) &&
    (e.error === undefined || typeof e.error === 'string') && (e.source === undefined || typeof e.source === 'string') && (e.answer === undefined || isAnswer(e.answer))
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

/** The entries whose query, data source, connection or answer name contains `text` (any case); all for empty text. */
export function searchHistory(list: readonly HistoryEntry[], text: string): HistoryEntry[] {
  const t = text.trim().toLowerCase();
  if (!t) return [...list];
  return list.filter((e) => e.query.toLowerCase().includes(t) || (e.dataSource ?? '').toLowerCase().includes(t) || (e.connection ?? '').toLowerCase().includes(t) || (e.answer?.name ?? '').toLowerCase().includes(t));
}

/**
 * How a Show Data run went: what `answerRunEntry` records beside the answer. The members are those of
 * `HistoryEntry` (one declaration), but the data source is optional (the answer's `tables`, when known)
 * and `searchQuery` (the answer's search_query, when known: a pinboard's data comes without one) stands
 * where the entry's text will go.
 */
export type AnswerRun = Pick<HistoryEntry, 'connection' | 'startedAt' | 'rows' | 'durationMs' | 'outcome' | 'error'> & {
  searchQuery?: string;
  dataSource?: string;
};

/**
 * The history entry of a Show Data run: its text is the answer's search_query when known, else the
 * answer's name and GUID (`Top flights (0f4c…)`, prefixed by the kind for a pinboard or a visualization),
 * so that the History view shows and searches it as it does a query.
 */
export function answerRunEntry(answer: HistoryAnswer, run: AnswerRun): Omit<HistoryEntry, 'id'> {
  const label = answer.kind === 'answer' ? '' : `${answer.kind} `;
  const query = run.searchQuery?.trim() || `${label}${answer.name} (${answer.id})`;
  return {
    query,
    dataSource: run.dataSource ?? null,
    ...(run.connection !== undefined ? { connection: run.connection } : {}),
    startedAt: run.startedAt,
    rows: run.rows,
    durationMs: run.durationMs,
    outcome: run.outcome,
    ...(run.error !== undefined ? { error: run.error } : {}),
    answer: { kind: answer.kind, id: answer.id, name: answer.name, ...(answer.pinboardId !== undefined ? { pinboardId: answer.pinboardId } : {}) },
  };
}
