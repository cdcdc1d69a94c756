/**
 * The messages between the extension host (client/src/results/panel.ts) and the results webview
 * (client/webview/main.ts), posted with `postMessage`. Rows travel as data (arrays of cells), never as
 * HTML. No `vscode`.
 *
 * A panel has tabs: one per query run (Run All adds one per query) or one per visualization of a
 * pinboard (Show Data). Each tab gets `start`, then `columns` with the first page, then `rows` per
 * page until `done`, or `error` / `cancelled`.
 */
import type { CellValue, ChartKind, ResultColumn } from './shape';
import { rowCount, seconds } from './runStatus';

/** Host → webview. */
export type HostMessage =
  /**
   * A tab starts (replaces the tab of the same id). `replace` clears the other tabs first. `startedAt`
   * is the host's `Date.now()` when the run was asked for: the webview reports the time to its first
   * painted rows against it (`data-first-paint-ms` on the tab, for tests and benchmarks). In the TSQ
   * Results view every tab belongs to a `group` (one document's runs, titled `groupTitle`): there
   * `replace` clears the other tabs of that group only.
   */
  | { type: 'start'; tabId: string; title: string; query?: string; dataSource?: string; replace: boolean; startedAt?: number; group?: string; groupTitle?: string }
  /**
   * The first page: columns described, counts, and its rows. `expectedRows`: the rows the tab will hold
   * (the total, capped at `tsq.results.maxRows`), so that the webview sizes its store once.
   */
  | { type: 'columns'; tabId: string; columns: ResultColumn[]; totalRowCount: number; samplingRatio: number; rows: CellValue[][]; elapsedMs: number; done: boolean; limited: boolean; expectedRows?: number }
  /**
   * A further page, its rows packed by column (`packPage`): one byte buffer crosses from the extension
   * host to the webview as a copy of bytes, where arrays of cells were serialized and cloned value by
   * value on the way (on the thread the workbench and the webview share). `loaded` counts all rows sent so far.
   */
  | { type: 'rows'; tabId: string; packed: Uint8Array; loaded: number; elapsedMs: number; done: boolean; limited: boolean }
  /** The search failed: `message` is the service's own text (with what to do). */
  | { type: 'error'; tabId: string; message: string; elapsedMs: number }
  /** The run was cancelled; rows already shown stay. */
  | { type: 'cancelled'; tabId: string; elapsedMs: number }
  /** The panel (in the view: the tabs of `group`) was pinned or unpinned. */
  | { type: 'pinned'; pinned: boolean; group?: string }
  /** Asks the webview to report what it shows (tests and benchmarks); in the view, the tabs of `group` only. */
  | { type: 'probe'; id: number; group?: string }
  /** A run ended: a line of the Messages tab of the TSQ Results view. */
  | { type: 'log'; entry: RunLogEntry };

/** One run in the Messages tab of the TSQ Results view. */
export interface RunLogEntry {
  /** When the run was asked for, epoch milliseconds. */
  at: number;
  /** What ran: the document's file name, or the answer's or pinboard's name. */
  source: string;
  /** The query text (or the visualization's name). */
  query: string;
  outcome: 'ok' | 'error' | 'cancelled';
  /** Rows fetched, and the rows the service said the answer has. */
  rows: number;
  totalRowCount: number;
  /** ms from the command to the last page, the error or the cancel. */
  elapsedMs: number;
  /** The service's message (or the error's text) when the run failed. */
  message?: string;
}

/**
 * The text of a Messages line: `12:03:04 flights.tsq — 10 rows of 120 in 0.4 s: [origin] top 10`, a
 * failure with its message, a cancel. `at` is shown in the webview's local time (HH:MM:SS).
 */
export function runLogText(e: RunLogEntry): string {
  const d = new Date(e.at);
  const time = [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const secs = seconds(e.elapsedMs);
  const rows = `${rowCount(e.rows)}${e.totalRowCount > e.rows ? ` of ${e.totalRowCount.toLocaleString('en-US')}` : ''}`;
  const what = e.outcome === 'ok' ? `${rows} in ${secs}` : e.outcome === 'cancelled' ? `cancelled after ${secs} (${rows})` : `failed after ${secs}: ${e.message ?? 'error'}`;
  return `${time} ${e.source} — ${what}: ${e.query.replace(/\s+/g, ' ').trim()}`;
}

/** Formats of Copy and Export. */
export type CopyFormat = 'tsv' | 'csv' | 'json';

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'cancel'; tabId: string }
  | { type: 'export'; tabId: string; format: 'csv' | 'json' }
  /** Copy of a cell, a row or a selection: the cells as the grid holds them, in grid order. */
  | { type: 'copy'; format: CopyFormat; columns: ResultColumn[]; rows: CellValue[][] }
  /** Pin or unpin the panel (in the view: the tabs of `group`). */
  | { type: 'pin'; group?: string }
  /** The user switched to another tab of the panel (Export Results then exports that one). */
  | { type: 'activeTab'; tabId: string }
  | { type: 'chartKind'; tabId: string; kind: ChartKind }
  /** The first rows of a tab were painted (performance.now() of the webview, and rows in the grid). */
  | { type: 'painted'; tabId: string; rows: number }
  /** The answer to `probe`. */
  | { type: 'probeResult'; id: number; state: WebviewProbe };

/** What the webview reports to a probe (tests, benchmarks). */
export interface WebviewProbe {
  activeTab?: string;
  tabs: { tabId: string; title: string; rows: number; status: string; error?: string; chartKind?: ChartKind }[];
  /** Approximate JS heap of the webview in bytes (Chromium's performance.memory), when available. */
  heapBytes?: number;
}

/** Code of null in a packed string column. */
export const NULL_CODE = 0xffffffff;

/**
 * One column of a packed page: numbers as a Float64Array (NaN for null: JSON has no NaN), strings as
 * codes into the page's own string table (NULL_CODE for null), a column of nulls as nothing, and any
 * other mix as its cells.
 */
export type PackedColumn =
  | { kind: 'num'; values: Float64Array }
  | { kind: 'str'; strings: string[]; codes: Uint32Array }
  | { kind: 'null' }
  | { kind: 'any'; values: CellValue[] };

/** A page of rows by column (`unpackPage`): `length` rows, one entry per column. */
export interface PackedPage {
  length: number;
  columns: PackedColumn[];
}

type ColumnMeta = { kind: 'num' } | { kind: 'str'; strings: string[] } | { kind: 'null' } | { kind: 'any'; values: CellValue[] };

/**
 * Rows as the bytes of a `rows` message, by column: a uint32 (little-endian) length of a UTF-8 JSON
 * header (`{ length, columns }`: each column's kind, and a string column's string table), then, each
 * at an offset that is a multiple of 8, the Float64Array of each number column and the Uint32Array of
 * each string column, in column order. The webview copies those arrays into its columnar store
 * without making an array per row: with JSON rows, a million rows left a million arrays of garbage
 * whose collection stalled the thread the workbench and the webview share (frames over 100 ms).
 * Values are data, never markup; a hostile string is a string in the table like any other.
 */
export function packPage(rows: readonly (readonly CellValue[])[]): Uint8Array {
  const n = rows.length;
  let width = 0;
  for (const r of rows) width = Math.max(width, r.length);
  const meta: ColumnMeta[] = [];
  const arrays: (Float64Array | Uint32Array)[] = [];
  for (let c = 0; c < width; c++) {
    let kind: ColumnMeta['kind'] = 'null';
    for (let r = 0; r < n && kind !== 'any'; r++) {
      const v = rows[r]![c] ?? null;
      if (v === null) continue;
      const k = typeof v === 'number' ? 'num' : typeof v === 'string' ? 'str' : 'any';
      kind = kind === 'null' || kind === k ? k : 'any';
    }
    if (kind === 'num') {
      const values = new Float64Array(n);
      for (let r = 0; r < n; r++) values[r] = (rows[r]![c] as number | null | undefined) ?? NaN;
      meta.push({ kind });
      arrays.push(values);
    } else if (kind === 'str') {
      const index = new Map<string, number>();
      const strings: string[] = [];
      const codes = new Uint32Array(n);
      for (let r = 0; r < n; r++) {
        const v = rows[r]![c] as string | null | undefined;
        if (v === null || v === undefined) {
          codes[r] = NULL_CODE;
          continue;
        }
        let code = index.get(v);
        if (code === undefined) index.set(v, (code = strings.push(v) - 1));
        codes[r] = code;
      }
      meta.push({ kind, strings });
      arrays.push(codes);
    } else if (kind === 'any') meta.push({ kind, values: rows.map((r) => r[c] ?? null) });
    else meta.push({ kind });
  }
  const header = new TextEncoder().encode(JSON.stringify({ length: n, columns: meta }));
  let size = align8(4 + header.length);
  for (const a of arrays) size = align8(size + a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let at = align8(4 + header.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at = align8(at + a.byteLength);
  }
  return out;
}

/**
 * The page of `packPage`'s bytes; the arrays are views of those bytes (of a copy when they do not start
 * at a multiple of 8). Throws a SyntaxError or RangeError when the bytes are not such a page.
 */
export function unpackPage(packed: Uint8Array): PackedPage {
  const bytes = packed.byteOffset % 8 === 0 ? packed : packed.slice();
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as { length: number; columns: ColumnMeta[] };
  const n = head.length;
  let at = align8(4 + headerLength);
  const columns = head.columns.map((m): PackedColumn => {
    if (m.kind === 'num' || m.kind === 'str') {
      const view = m.kind === 'num' ? new Float64Array(bytes.buffer, bytes.byteOffset + at, n) : new Uint32Array(bytes.buffer, bytes.byteOffset + at, n);
      at = align8(at + view.byteLength);
      return m.kind === 'num' ? { kind: 'num', values: view as Float64Array } : { kind: 'str', strings: m.strings, codes: view as Uint32Array };
    }
    return m;
  });
  return { length: n, columns };
}

/** The cell at `row` of a packed column. */
export function packedCell(col: PackedColumn, row: number): CellValue {
  if (col.kind === 'num') return Number.isNaN(col.values[row]) ? null : col.values[row]!;
  if (col.kind === 'str') return col.codes[row] === NULL_CODE ? null : col.strings[col.codes[row]!]!;
  if (col.kind === 'any') return col.values[row] ?? null;
  return null;
}

/** The rows of a packed page as arrays of cells (export, tests). */
export function pageRows(page: PackedPage): CellValue[][] {
  const out: CellValue[][] = [];
  for (let r = 0; r < page.length; r++) out.push(page.columns.map((c) => packedCell(c, r)));
  return out;
}

const align8 = (n: number): number => (n + 7) & ~7;
