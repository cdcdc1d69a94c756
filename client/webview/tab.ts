/**
 * A tab of the results webview: its answer, its grid and chart state, its elements, and the helpers
 * that put text into the DOM (as text nodes, never as HTML) and show its status line.
 */
import type { Chart } from 'chart.js';
import { statusLine } from '../../common/src/results/format';
import type { ChartKind, ResultColumn } from '../../common/src/results/shape';
import type { ColumnStore } from '../../common/src/results/columnar';
import type { VirtualGrid } from './grid';

/** One answer shown in the panel (a query's, or a visualization's). */
export interface Tab {
  tabId: string;
  title: string;
  query?: string;
  dataSource?: string;
  columns?: ResultColumn[];
  /** The answer's rows, by column. */
  store: ColumnStore;
  totalRowCount: number;
  samplingRatio: number;
  elapsedMs: number;
  loading: boolean;
  limited: boolean;
  error?: string;
  cancelled?: boolean;
  restored?: boolean;
  /** The host's Date.now() when the run was asked for. */
  startedAt?: number;
  view: 'grid' | 'chart';
  chartKind?: ChartKind;
  /** The grid, made when the tab is first shown with columns. */
  grid?: VirtualGrid;
  /** How many of the store's rows the grid can show (all of them: it shows from the store). */
  gridRows: number;
  /** Milestones of the run (ms since the host's `startedAt`), kept on the tab body for benchmarks. */
  marks: Record<string, number>;
  chart?: Chart;
  chartStale: boolean;
  painted: boolean;
  els: { button: HTMLButtonElement; body: HTMLElement; status: HTMLElement; error: HTMLElement; grid: HTMLElement; chart: HTMLElement; canvasBox: HTMLElement; number: HTMLElement; kind: HTMLSelectElement; note: HTMLElement; cancel: HTMLButtonElement; gridBtn: HTMLButtonElement; chartBtn: HTMLButtonElement };
}

/** Creates an element with a class and text (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A button with a label, a tooltip and a click handler. */
export function button(label: string, title: string, onClick: () => void, cls = 'btn'): HTMLButtonElement {
  const b = el('button', cls, label);
  b.type = 'button';
  b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

/** Shows the tab's status line (rows shown, total, time) and its state on the body (`data-state`, for tests). */
export function updateStatus(t: Tab): void {
  // rows shown: those that came (the grid shows from the store, all of them at once)
  const view = t.grid?.view;
  const matching = view && !view.busy && view.filters.some((f) => f.trim()) ? view.length : undefined;
  let text = t.columns ? statusLine({ shown: t.store.length, totalRowCount: t.totalRowCount, samplingRatio: t.samplingRatio, elapsedMs: t.elapsedMs, loading: t.loading, limited: t.limited, matching }) : t.loading ? 'Running…' : '';
  if (t.cancelled) text += (text ? ' · ' : '') + 'cancelled';
  if (t.error) text = `failed after ${(t.elapsedMs / 1000).toFixed(1)} s`;
  t.els.status.textContent = text;
  t.els.cancel.disabled = !t.loading;
  t.els.body.dataset.rows = String(t.store.length);
  t.els.body.dataset.state = t.error ? 'error' : t.cancelled ? 'cancelled' : t.loading ? 'loading' : 'done';
}

/** Records a milestone of the tab's run (ms since the host's `startedAt`) on its body, for benchmarks. */
export function mark(t: Tab, name: string, value?: number): void {
  if (t.startedAt === undefined) return;
  t.marks[name] = Math.round(value ?? Date.now() - t.startedAt);
  t.els.body.dataset.marks = JSON.stringify(t.marks);
}
