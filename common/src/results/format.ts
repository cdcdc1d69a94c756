/**
 * How values of an answer are shown and copied. Pure (no `vscode`, no DOM): used by the extension
 * host (copy, export) and bundled into the results webview (grid cells, chart labels).
 *
 * - Dates: the service sends DATE and DATE_TIME values as epoch **seconds** (docs/service-notes.md §1.2); they
 *   are shown in UTC, at the precision of their bucket (`Month(date)` → `2001-01`).
 * - Numbers: right-aligned in the grid, with digit grouping; at most 4 fraction digits shown.
 * - null shows as an empty cell. Nothing here produces HTML: callers put the text into the DOM as text.
 */
import { displayOf, isFamily } from '../model';
import type { CellValue, ResultColumn } from './shape';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * An epoch-seconds value as UTC text at the precision of `bucket` (default: a day for DATE, seconds
 * for DATE_TIME): `Year` → `2001`, `Quarter` → `2001 Q1`, `Month` → `2001-01`, `Hour` →
 * `2001-01-01 13:00`, `Day`/`Week`/DATE → `2001-01-01`, DATE_TIME → `2001-01-01 13:45:10`.
 * Returns `String(seconds)` for a value that is not a finite number.
 */
export function formatEpochSeconds(seconds: number, dataType: string, bucket?: string): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) return String(seconds);
  const y = pad(d.getUTCFullYear(), 4);
  const mo = pad(d.getUTCMonth() + 1);
  const day = `${y}-${mo}-${pad(d.getUTCDate())}`;
  switch (bucket) {
    case 'Year':
      return y;
    case 'Quarter':
      return `${y} Q${Math.floor(d.getUTCMonth() / 3) + 1}`;
    case 'Month':
      return `${y}-${mo}`;
    case 'Hour':
      return `${day} ${pad(d.getUTCHours())}:00`;
    case 'Day':
    case 'Week':
      return day;
  }
  if (displayOf(dataType) === 'dayTime') return `${day} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return day;
}

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

/** A number with digit grouping (`1,322,243`, `5.4687`); integers keep no fraction. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Number.isInteger(n) ? integerFormat.format(n) : decimalFormat.format(n);
}

/** Whether a column's values are numbers to right-align. */
export function isNumericColumn(column: ResultColumn): boolean {
  return column.role !== 'date' && isFamily(column.dataType, 'number');
}

/**
 * A cell as the grid and the chart show it: dates as dates (UTC), `Day of week` 1 as `Monday` and
 * `Month of year` 1 as `January`, numbers grouped, null as '' and everything else as its text.
 */
export function formatCell(value: CellValue | undefined, column: ResultColumn): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (column.role === 'date' || displayOf(column.dataType)) return formatEpochSeconds(value, column.dataType, column.bucket);
    if (column.bucket === 'Day of week' && Number.isInteger(value) && value >= 1 && value <= 7) return DAY_NAMES[value - 1];
    if (column.bucket === 'Month of year' && Number.isInteger(value) && value >= 1 && value <= 12) return MONTH_NAMES[value - 1];
    if (column.bucket) return String(value);
    return formatNumber(value);
  }
  return String(value);
}

/**
 * A cell as copied to the clipboard: like the grid for dates and date parts, numbers without grouping
 * (so a spreadsheet reads them as numbers), null as ''.
 */
export function copyText(value: CellValue | undefined, column: ResultColumn): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' && !column.bucket && column.role !== 'date' && !displayOf(column.dataType)) return String(value);
  return formatCell(value, column);
}

/** Elapsed time for the status line: `850 ms`, `2.4 s`, `1 min 5 s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * The status line of a results tab: `1,000 of 199,978 rows · sampling 100% · 1.2 s`, with
 * `(loading…)` while pages are still coming and `(limit tsq.results.maxRows)` when cut there, and
 * `· 312 match the filter` when a header filter is set (`matching`: the rows the grid then shows).
 */
export function statusLine(s: { shown: number; totalRowCount: number; samplingRatio: number; elapsedMs: number; loading: boolean; limited: boolean; matching?: number }): string {
  const parts = [`${formatNumber(s.shown)} of ${formatNumber(s.totalRowCount)} rows`];
  if (s.loading) parts[0] += ' (loading…)';
  else if (s.limited) parts[0] += ' (limit tsq.results.maxRows)';
  if (s.matching !== undefined) parts.push(`${formatNumber(s.matching)} match the filter`);
  parts.push(`sampling ${Math.round(s.samplingRatio * 10000) / 100}%`);
  parts.push(formatElapsed(s.elapsedMs));
  return parts.join(' · ');
}
