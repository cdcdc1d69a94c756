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

/** Host → webview. */
export type HostMessage =
  /**
   * A tab starts (replaces the tab of the same id). `replace` clears the other tabs first. `startedAt`
   * is the host's `Date.now()` when the run was asked for: the webview reports the time to its first
   * painted rows against it (`data-first-paint-ms` on the tab, for tests and benchmarks).
   */
  | { type: 'start'; tabId: string; title: string; query?: string; dataSource?: string; replace: boolean; startedAt?: number }
  /** The first page: columns described, counts, and its rows. */
  | { type: 'columns'; tabId: string; columns: ResultColumn[]; totalRowCount: number; samplingRatio: number; rows: CellValue[][]; elapsedMs: number; done: boolean; limited: boolean }
  /**
   * A further page, its rows packed (`packRows`): one byte buffer crosses from the extension host to the
   * webview as a copy of bytes, where arrays of cells were serialized and cloned value by value on the
   * way (on the thread the workbench and the webview share). `loaded` counts all rows sent so far.
   */
  | { type: 'rows'; tabId: string; packed: Uint8Array; loaded: number; elapsedMs: number; done: boolean; limited: boolean }
  /** The search failed: `message` is the service's own text (with what to do). */
  | { type: 'error'; tabId: string; message: string; elapsedMs: number }
  /** The run was cancelled; rows already shown stay. */
  | { type: 'cancelled'; tabId: string; elapsedMs: number }
  /** The panel was pinned or unpinned. */
  | { type: 'pinned'; pinned: boolean }
  /** Asks the webview to report what it shows (tests and benchmarks). */
  | { type: 'probe'; id: number };

/** Formats of Copy and Export. */
export type CopyFormat = 'tsv' | 'csv' | 'json';

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'cancel'; tabId: string }
  | { type: 'export'; tabId: string; format: 'csv' | 'json' }
  /** Copy of a cell, a row or a selection: the cells as the grid holds them, in grid order. */
  | { type: 'copy'; format: CopyFormat; columns: ResultColumn[]; rows: CellValue[][] }
  | { type: 'pin' }
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

/** Rows as the bytes of a `rows` message: their JSON text (an array of rows), UTF-8 encoded. */
export function packRows(rows: readonly (readonly CellValue[])[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(rows));
}

/** The rows of `packRows`' bytes. Throws a SyntaxError when the bytes are not such JSON. */
export function unpackRows(packed: Uint8Array): CellValue[][] {
  return JSON.parse(new TextDecoder().decode(packed)) as CellValue[][];
}
