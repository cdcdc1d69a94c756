/**
 * The status bar's words for a run (client/src/results/status.ts): the query running, then the rows
 * and time of the last run, as vscode-mssql shows a query's execution there. Pure (no `vscode`).
 */

/** What the last run gave, per query (a run of several queries, or a pinboard's visualizations). */
export interface RunOutcome {
  rows: number;
  elapsedMs: number;
  error?: string;
  cancelled?: boolean;
}

/** The query text as one line of at most `max` characters (an ellipsis when cut). */
export function shortQuery(text: string, max = 40): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `1 row`, `1,234 rows`. */
export function rowCount(n: number): string {
  return `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`;
}

/** Seconds with one decimal: `0.4 s` (ms in). */
export function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/**
 * The words of the last run: `1,234 rows · 0.4 s` (rows summed over its queries, the longest time);
 * `failed after 0.4 s` when every query failed, `cancelled after 0.4 s · 12 rows` when one was
 * cancelled; undefined for a run with no query.
 */
export function lastRunText(outcomes: readonly RunOutcome[]): string | undefined {
  if (!outcomes.length) return undefined;
  const rows = outcomes.reduce((n, o) => n + o.rows, 0);
  const ms = Math.max(...outcomes.map((o) => o.elapsedMs));
  if (outcomes.some((o) => o.cancelled)) return `cancelled after ${seconds(ms)} · ${rowCount(rows)}`;
  if (outcomes.every((o) => o.error !== undefined)) return `failed after ${seconds(ms)}`;
  const failed = outcomes.filter((o) => o.error !== undefined).length;
  return `${rowCount(rows)} · ${seconds(ms)}${failed ? ` · ${failed} failed` : ''}`;
}
