/**
 * The results webview (browser code, bundled by esbuild into dist/webview.js as an IIFE).
 *
 * Tabs of answers, each with a grid (tabulator-tables: virtual rows, header sort and filter, column
 * resize, range selection) and a chart (chart.js on a canvas; no eval, styles through the CSSOM only).
 * Rows arrive from the host page by page (common/src/results/messages.ts, a page packed as one buffer)
 * and go into the grid in slices between the workbench's frames (`feed`: this page shares the
 * workbench's thread, so any long task here is a frozen editor). Every value and column name is put
 * into the DOM as text (text nodes, `textContent`), never as HTML. Copy and Export go through the host (clipboard, file), from the data, not the DOM.
 *
 * The webview keeps the first rows of each tab in its state (`setState`), so a panel restored after a
 * reload shows them until the query is run again.
 */
import { TabulatorFull as Tabulator, type CellComponent, type ColumnDefinition, type MenuObject, type MenuSeparator } from 'tabulator-tables';
import { Chart, registerables, type ChartConfiguration } from 'chart.js';
import 'tabulator-tables/dist/css/tabulator_simple.min.css';
import './results.css';
import { formatCell, formatNumber, isNumericColumn, statusLine } from '../../common/src/results/format';
import { chartData, chooseChart, compareCells, type CellValue, type ChartKind, type ResultColumn } from '../../common/src/results/shape';
import { unpackRows, type CopyFormat, type HostMessage, type WebviewMessage, type WebviewProbe } from '../../common/src/results/messages';

Chart.register(...registerables);

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

/** Rows kept per tab in the webview state for a restored panel. */
const STATE_ROWS = 1000;

interface Tab {
  tabId: string;
  title: string;
  query?: string;
  dataSource?: string;
  columns?: ResultColumn[];
  rows: CellValue[][];
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
  table?: Tabulator;
  tableBuilt?: boolean;
  /** How many of `rows` the grid holds (committed to Tabulator); `feed` adds the rest. */
  gridRows: number;
  /** The rows being added to the grid (see `feed`), or undefined when none are. */
  feeding?: Feed;
  /** Milestones of the run (ms since the host's `startedAt`), kept on the tab body for benchmarks. */
  marks: Record<string, number>;
  chart?: Chart;
  chartStale: boolean;
  painted: boolean;
  els: { button: HTMLButtonElement; body: HTMLElement; status: HTMLElement; error: HTMLElement; grid: HTMLElement; chart: HTMLElement; canvasBox: HTMLElement; number: HTMLElement; kind: HTMLSelectElement; note: HTMLElement; cancel: HTMLButtonElement; gridBtn: HTMLButtonElement; chartBtn: HTMLButtonElement };
}

const tabs = new Map<string, Tab>();
let activeTab: string | undefined;
let pinned = false;

/** Creates an element with a class and text (never HTML). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label: string, title: string, onClick: () => void, cls = 'btn'): HTMLButtonElement {
  const b = el('button', cls, label);
  b.type = 'button';
  b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

// ---- layout ----
const app = document.getElementById('app')!;
// Content-Security-Policy violations are recorded on #app (data-csp-violations) for the tests.
document.addEventListener('securitypolicyviolation', (e) => {
  app.dataset.cspViolations = `${app.dataset.cspViolations ?? ''}${e.violatedDirective} ${e.blockedURI};`;
});
const bar = el('div', 'tabs-bar');
const tabList = el('div', 'tab-list');
tabList.setAttribute('role', 'tablist');
const pinBtn = button('Pin', 'Keep this panel: the next run opens a new one', () => vscode.postMessage({ type: 'pin' }), 'btn pin');
bar.append(tabList, pinBtn);
const bodies = el('div', 'bodies');
const empty = el('div', 'empty', 'Run a query (Ctrl/Cmd+Enter in a .tsq file) to see its answer here.');
app.append(bar, bodies, empty);

function makeTab(tabId: string, title: string): Tab {
  const btn = el('button', 'tab', title);
  btn.type = 'button';
  btn.setAttribute('role', 'tab');
  btn.title = title;
  btn.addEventListener('click', () => activate(tabId));
  const body = el('section', 'tab-body');
  body.dataset.tabId = tabId;
  const toolbar = el('div', 'toolbar');
  const gridBtn = button('Grid', 'Show the answer as a grid', () => setView(tabs.get(tabId)!, 'grid'), 'btn view grid-btn');
  const chartBtn = button('Chart', 'Show the answer as a chart', () => setView(tabs.get(tabId)!, 'chart'), 'btn view chart-btn');
  const cancel = button('Cancel', 'Stop this query (aborts the request)', () => vscode.postMessage({ type: 'cancel', tabId }), 'btn cancel');
  const exportCsv = button('Export CSV', 'Write the whole answer to a CSV file', () => vscode.postMessage({ type: 'export', tabId, format: 'csv' }), 'btn export-csv');
  const exportJson = button('Export JSON', 'Write the whole answer to a JSON file', () => vscode.postMessage({ type: 'export', tabId, format: 'json' }), 'btn export-json');
  const status = el('span', 'status');
  status.setAttribute('role', 'status');
  toolbar.append(gridBtn, chartBtn, cancel, exportCsv, exportJson, status);
  const error = el('div', 'error');
  error.setAttribute('role', 'alert');
  error.hidden = true;
  const note = el('div', 'note');
  note.hidden = true;
  const grid = el('div', 'grid-host');
  const chart = el('div', 'chart-host');
  chart.hidden = true;
  const kindRow = el('div', 'chart-controls');
  const kindLabel = el('label', undefined, 'Chart type ');
  const kind = el('select', 'chart-kind');
  kind.addEventListener('change', () => {
    const t = tabs.get(tabId)!;
    t.chartKind = kind.value as ChartKind;
    vscode.postMessage({ type: 'chartKind', tabId, kind: t.chartKind });
    drawChart(t);
  });
  kindLabel.append(kind);
  kindRow.append(kindLabel);
  const canvasBox = el('div', 'canvas-box');
  const number = el('div', 'big-number');
  number.hidden = true;
  chart.append(kindRow, canvasBox, number);
  body.append(toolbar, note, error, grid, chart);
  tabList.append(btn);
  bodies.append(body);
  const tab: Tab = {
    tabId, title, rows: [], totalRowCount: 0, samplingRatio: 1, elapsedMs: 0, loading: true, limited: false, view: 'grid', gridRows: 0, marks: {}, chartStale: true, painted: false,
    els: { button: btn, body, status, error, grid, chart, canvasBox, number, kind, note, cancel, gridBtn, chartBtn },
  };
  tabs.set(tabId, tab);
  empty.hidden = true;
  return tab;
}

function removeAllTabs(): void {
  for (const t of tabs.values()) {
    dropGrid(t);
    t.chart?.destroy();
    t.els.button.remove();
    t.els.body.remove();
  }
  tabs.clear();
  activeTab = undefined;
  empty.hidden = false;
}

function activate(tabId: string): void {
  if (activeTab !== tabId) vscode.postMessage({ type: 'activeTab', tabId });
  activeTab = tabId;
  for (const t of tabs.values()) {
    const on = t.tabId === tabId;
    t.els.body.classList.toggle('active', on);
    t.els.button.classList.toggle('active', on);
    t.els.button.setAttribute('aria-selected', String(on));
  }
  const t = tabs.get(tabId);
  if (t) {
    ensureGrid(t);
    if (t.view === 'chart') drawChart(t);
    else t.table?.redraw();
  }
}

function setView(t: Tab, view: 'grid' | 'chart'): void {
  t.view = view;
  t.els.grid.hidden = view !== 'grid';
  t.els.chart.hidden = view !== 'chart';
  t.els.gridBtn.classList.toggle('active', view === 'grid');
  t.els.chartBtn.classList.toggle('active', view === 'chart');
  if (view === 'chart') drawChart(t);
  else t.table?.redraw(true);
}

function updateStatus(t: Tab): void {
  // rows shown: those the grid holds (the rest is on its way into it), or those fetched without a grid yet
  let text = t.columns ? statusLine({ shown: t.table ? t.gridRows : t.rows.length, totalRowCount: t.totalRowCount, samplingRatio: t.samplingRatio, elapsedMs: t.elapsedMs, loading: t.loading, limited: t.limited }) : t.loading ? 'Running…' : '';
  if (t.cancelled) text += (text ? ' · ' : '') + 'cancelled';
  if (t.error) text = `failed after ${(t.elapsedMs / 1000).toFixed(1)} s`;
  t.els.status.textContent = text;
  t.els.cancel.disabled = !t.loading;
  t.els.body.dataset.rows = String(t.rows.length);
  t.els.body.dataset.state = t.error ? 'error' : t.cancelled ? 'cancelled' : t.loading ? 'loading' : 'done';
}

// ---- grid ----

/** Filter of a header: `>10`, `<= 5`, `=3` compare numbers; anything else is a case-insensitive substring of the shown text. */
function headerFilter(column: ResultColumn) {
  return (filter: string, value: CellValue): boolean => {
    const f = String(filter ?? '').trim();
    if (!f) return true;
    const cmp = /^(<=|>=|<|>|=|!=)\s*(-?\d+(?:\.\d+)?)$/.exec(f);
    if (cmp && typeof value === 'number' && isNumericColumn(column)) {
      const n = Number(cmp[2]);
      switch (cmp[1]) {
        case '<': return value < n;
        case '<=': return value <= n;
        case '>': return value > n;
        case '>=': return value >= n;
        case '=': return value === n;
        default: return value !== n;
      }
    }
    return formatCell(value, column).toLowerCase().includes(f.toLowerCase());
  };
}

/** A row as the grid's row object (`{c0, c1, …}`). */
function rowObject(row: CellValue[], width: number): Record<string, CellValue> {
  const o: Record<string, CellValue> = {};
  for (let i = 0; i < width; i++) o[`c${i}`] = row[i] ?? null;
  return o;
}

function toObjects(rows: CellValue[][], width: number): Record<string, CellValue>[] {
  return rows.map((r) => rowObject(r, width));
}

/** The cells of the current selection (ranges), or of `cell`'s row/cell, in grid order. */
function copyCells(t: Tab, what: 'cell' | 'row' | 'selection', cell?: CellComponent): { columns: ResultColumn[]; rows: CellValue[][] } {
  const cols = t.columns ?? [];
  const indexOf = (c: CellComponent) => Number(c.getField().slice(1));
  if (what === 'cell' && cell) return { columns: [cols[indexOf(cell)]], rows: [[cell.getValue() as CellValue]] };
  if (what === 'row' && cell) {
    const d = cell.getRow().getData() as Record<string, CellValue>;
    return { columns: cols, rows: [cols.map((_, i) => d[`c${i}`] ?? null)] };
  }
  const ranges = t.table?.getRanges() ?? [];
  const structured = ranges.flatMap((r) => r.getStructuredCells()).filter((row) => row.length && row.every((c) => /^c\d+$/.test(c.getField() ?? '')));
  if (!structured.length) return { columns: [], rows: [] };
  const columnIdx = structured[0].map(indexOf);
  return { columns: columnIdx.map((i) => cols[i]), rows: structured.map((row) => row.map((c) => c.getValue() as CellValue)) };
}

function sendCopy(t: Tab, format: CopyFormat, what: 'cell' | 'row' | 'selection', cell?: CellComponent): void {
  const { columns, rows } = copyCells(t, what, cell);
  if (rows.length) vscode.postMessage({ type: 'copy', format, columns, rows });
}

function cellMenu(t: Tab): (MenuObject<CellComponent> | MenuSeparator)[] {
  const item = (label: string, format: CopyFormat, what: 'cell' | 'row' | 'selection'): MenuObject<CellComponent> => ({ label, action: (_e, cell) => sendCopy(t, format, what, cell) });
  return [
    item('Copy Cell', 'tsv', 'cell'),
    { separator: true },
    item('Copy Row as TSV', 'tsv', 'row'),
    item('Copy Row as CSV', 'csv', 'row'),
    item('Copy Row as JSON', 'json', 'row'),
    { separator: true },
    item('Copy Selection as TSV', 'tsv', 'selection'),
    item('Copy Selection as CSV', 'csv', 'selection'),
    item('Copy Selection as JSON', 'json', 'selection'),
  ];
}

/** A header: the column name and its data type, as text. */
function headerNode(c: ResultColumn): Node {
  const box = el('span', 'col-title');
  box.append(el('span', 'col-name', c.name), el('span', 'col-type', c.bucket ? `${c.bucket} · ${c.role}` : `${c.dataType} · ${c.role}`));
  return box;
}

function ensureGrid(t: Tab): void {
  if (t.table || !t.columns || activeTab !== t.tabId) return;
  const cols = t.columns;
  const menu = cellMenu(t);
  const widths = columnWidths(cols, t.rows);
  const columns: ColumnDefinition[] = cols.map((c, i) => ({
    title: '',
    width: widths[i],
    field: `c${i}`,
    titleFormatter: () => headerNode(c) as unknown as HTMLElement,
    formatter: (cell: CellComponent) => document.createTextNode(formatCell(cell.getValue() as CellValue, c)) as unknown as HTMLElement,
    hozAlign: isNumericColumn(c) ? 'right' : 'left',
    sorter: (a: unknown, b: unknown) => compareCells(a as CellValue, b as CellValue),
    headerFilter: 'input',
    headerFilterPlaceholder: isNumericColumn(c) ? 'filter (>10, <=5, …)' : 'filter',
    headerFilterFunc: headerFilter(c) as never,
    headerFilterLiveFilter: true,
    resizable: true,
    contextMenu: menu,
    minWidth: 60,
  }));
  // the grid starts with the first rows only; `feed` adds the others in slices
  const first = t.rows.slice(0, FIRST_GRID_ROWS);
  const data = toObjects(first, cols.length);
  t.gridRows = first.length;
  t.els.body.dataset.gridRows = String(first.length);
  const table = new Tabulator(t.els.grid, {
    data,
    columns,
    height: '100%',
    layout: 'fitData',
    renderVertical: 'virtual',
    // one height for every row: the virtual renderer then never measures rows' cells as it renders them
    rowHeight: ROW_HEIGHT,
    selectableRange: 1,
    selectableRangeColumns: true,
    selectableRangeRows: true,
    rowHeader: { resizable: false, frozen: true, width: 56, hozAlign: 'right', headerSort: false, formatter: 'rownum', contextMenu: menu } as never,
    placeholder: () => (t.loading ? 'Loading…' : 'No rows') as unknown as HTMLElement,
    headerSortClickElement: 'icon',
  });
  t.table = table;
  table.on('tableBuilt', () => {
    t.tableBuilt = true;
    mark(t, 'tableBuilt');
    if (!t.painted) reportPaint(t);
    feed(t);
  });
}

let measureContext: CanvasRenderingContext2D | null | undefined;

/**
 * Widths (px) of the grid's columns: the widest of the header's name and type and of the first rows'
 * texts, measured on a canvas in the grid's font, between 60 and 400. Tabulator's `fitData` measured
 * every rendered cell in the DOM instead, forcing layouts while the grid was being built.
 */
function columnWidths(cols: ResultColumn[], rows: CellValue[][]): number[] {
  measureContext ??= document.createElement('canvas').getContext('2d');
  const ctx = measureContext;
  const css = getComputedStyle(document.documentElement);
  const size = css.getPropertyValue('--vscode-editor-font-size').trim() || '13px';
  const font = `${/^[\d.]+$/.test(size) ? `${size}px` : size} ${css.getPropertyValue('--vscode-editor-font-family').trim() || 'monospace'}`;
  const text = (s: string, weight = ''): number => {
    if (!ctx) return s.length * 8;
    ctx.font = `${weight}${font}`;
    return ctx.measureText(s).width;
  };
  const sample = rows.slice(0, 200);
  return cols.map((c, i) => {
    // a header: the bold name above the type (0.8 em), with padding, the sort arrow and borders
    let w = Math.max(text(c.name, 'bold '), 0.8 * text(c.bucket ? `${c.bucket} · ${c.role}` : `${c.dataType} · ${c.role}`)) + 32;
    for (const r of sample) w = Math.max(w, text(formatCell(r[i] ?? null, c)) + 14);
    return Math.min(400, Math.max(60, Math.ceil(w)));
  });
}

/** Tells the host when the first rows are on screen (next frames after a row element exists). */
function reportPaint(t: Tab): void {
  const started = performance.now();
  const check = (): void => {
    if (t.els.grid.querySelector('.tabulator-row') || t.rows.length === 0) {
      // the frame with the rows is painted when the task after its animation frame runs
      nextTask(() => {
        t.painted = true;
        if (t.startedAt !== undefined) t.els.body.dataset.firstPaintMs = String(Date.now() - t.startedAt);
        mark(t, 'painted');
        vscode.postMessage({ type: 'painted', tabId: t.tabId, rows: t.els.grid.querySelectorAll('.tabulator-row').length });
      });
    } else if (performance.now() - started < 30_000) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

/** Height (px) of a grid row: one line of text in the theme's font. */
const ROW_HEIGHT = 24;
/** Rows the grid is built with (a first page: client/src/results FIRST_PAGE_ROWS); `feed` adds the rest of the answer. */
const FIRST_GRID_ROWS = 1000;
/** Most ms one slice of the grid's work runs before it yields: the webview shares the workbench's thread. */
const SLICE_MS = 12;
/**
 * Rows built ahead are added to the grid when this many wait, or when all rows that came are built and
 * the answer is complete or the last addition is COMMIT_MS old (each addition refreshes all rows).
 */
const COMMIT_ROWS = 20_000;
const COMMIT_MS = 150;

/**
 * The part of Tabulator (6.5) that `feed` uses beyond its public API: the row manager's list of all rows
 * and its refresh of the filter/sort/display pipelines (what `setData` does after building its rows).
 */
interface GridInternals {
  rowManager: {
    /** All rows; `created` when the row had an element (was on screen). */
    rows: { created?: boolean }[];
    /** The rows the grid shows, in order (after filter and sort). */
    getDisplayRows(): object[];
    /** Runs the filter/sort/display pipelines from `stage`, without rendering. */
    refreshPipelines(handler: false, stage: 'all', index: 0, renderInPosition: boolean): void;
    /** `refreshPipelines`, then renders the rows again where the grid is scrolled. */
    refreshActiveData(handler: false, skipStage: false, renderInPosition: boolean): void;
    dispatch(event: 'data-refreshed'): void;
    /** Renders the rows on screen again, where the grid is scrolled. */
    reRenderInPosition(): void;
    /** The vertical virtual renderer: rows vDomTop…vDomBottom of the display rows are in the DOM, the rest is padding. */
    renderer: { vDomTop: number; vDomBottom: number; vDomRowHeight: number; vDomBottomPad: number; vDomScrollHeight: number; tableElement: HTMLElement };
  };
}

/** Rows on their way into a tab's grid (see `feed`). */
interface Feed {
  /** Tabulator's row class: the constructor of the grid's first row. */
  Row: new (data: Record<string, CellValue>, rowManager: unknown) => { created?: boolean };
  /** Rows built and not yet in the grid. */
  built: { created?: boolean }[];
  scheduled: boolean;
  /** performance.now() of the last addition to the grid. */
  committed: number;
}

/** Runs `fn` as a new task soon (a message to itself: no 4 ms clamp of nested timers), after the page's pending work. */
const nextTask = (() => {
  const channel = new MessageChannel();
  const queue: (() => void)[] = [];
  channel.port1.onmessage = () => queue.shift()?.();
  return (fn: () => void): void => {
    queue.push(fn);
    channel.port2.postMessage(null);
  };
})();

/**
 * Runs `fn` once the page painted its next frame (the task after its animation frame), so that the
 * workbench, whose thread this page shares, draws a frame between any two slices of grid work; or
 * after 100 ms when no frame comes (a hidden page draws none).
 */
function afterFrame(fn: () => void): void {
  let ran = false;
  const run = (): void => {
    if (ran) return;
    ran = true;
    clearTimeout(timer);
    fn();
  };
  const timer = setTimeout(run, 100);
  requestAnimationFrame(() => nextTask(run));
}

/** Records a milestone of the tab's run (ms since the host's `startedAt`) on its body, for benchmarks. */
function mark(t: Tab, name: string, value?: number): void {
  if (t.startedAt === undefined) return;
  t.marks[name] = Math.round(value ?? Date.now() - t.startedAt);
  t.els.body.dataset.marks = JSON.stringify(t.marks);
}

/**
 * Adds the rows that came since the grid was built to it, without a long task: Tabulator's own ways
 * block for the whole batch (`replaceData` of 100,000 rows took seconds, and `addData` copies its list
 * of active rows once per added row), and this page shares its thread with the workbench. So the rows
 * are built as Tabulator rows in slices of SLICE_MS, one slice per frame, and added to the row
 * manager's list with one refresh of its pipelines (which keeps header sort, filters and the scroll
 * position) in a slice of its own (see COMMIT_ROWS).
 */
function feed(t: Tab): void {
  const table = t.table;
  if (!table || !t.tableBuilt || t.feeding?.scheduled) return;
  const f = t.feeding ?? newFeed(t);
  if (!f) return;
  if (t.gridRows + f.built.length >= t.rows.length && !f.built.length) return;
  f.scheduled = true;
  afterFrame(() => feedSlice(t, f));
}

function newFeed(t: Tab): Feed | undefined {
  const manager = (t.table as unknown as GridInternals).rowManager;
  const Row = manager.rows[0]?.constructor as Feed['Row'] | undefined;
  if (!Row) {
    // a grid built without rows: the rows that came since go in at once (there were none at first)
    t.gridRows = t.rows.length;
    void t.table!.setData(toObjects(t.rows, t.columns?.length ?? 0)).then(() => gridFilled(t));
    return undefined;
  }
  t.feeding = { Row, built: [], scheduled: false, committed: 0 };
  return t.feeding;
}

function feedSlice(t: Tab, f: Feed): void {
  f.scheduled = false;
  if (t.feeding !== f || !t.table) return;
  const manager = (t.table as unknown as GridInternals).rowManager;
  const began = performance.now();
  let i = t.gridRows + f.built.length;
  const caughtUp = i >= t.rows.length;
  // a slice either adds the rows built to the grid (a refresh over all its rows) or builds rows
  if (f.built.length && (f.built.length >= COMMIT_ROWS || (caughtUp && (!t.loading || began - f.committed >= COMMIT_MS)))) {
    commitRows(manager, f.built);
    f.built = [];
    f.committed = performance.now();
    t.gridRows = manager.rows.length;
    if (f.committed - began > (t.marks.maxCommitMs ?? 0)) mark(t, 'maxCommitMs', f.committed - began);
    gridFilled(t);
  } else {
    const width = t.columns?.length ?? 0;
    while (i < t.rows.length && performance.now() - began < SLICE_MS) {
      const end = Math.min(t.rows.length, i + 256);
      for (; i < end; i++) f.built.push(new f.Row(rowObject(t.rows[i], width), manager));
    }
    const took = performance.now() - began;
    if (took > (t.marks.maxSliceMs ?? 0)) mark(t, 'maxSliceMs', took);
  }
  feed(t);
}

/**
 * Destroys a tab's grid. Its rows that were never on screen (no element, nothing to undo) are let go
 * first: Tabulator's destroy wipes every row one by one, a long task at 100,000 rows.
 */
function dropGrid(t: Tab): void {
  t.feeding = undefined;
  const table = t.table;
  if (!table) return;
  const manager = (table as unknown as GridInternals).rowManager;
  manager.rows = manager.rows.filter((r) => r.created);
  table.destroy();
  t.table = undefined;
  t.tableBuilt = false;
}

/**
 * Adds built rows to the grid. Where the rows on screen stay the same ones (no sort put a new row among
 * them, and the screen does not reach the end), only the virtual renderer's bottom padding grows by the
 * new rows: rendering the rows on screen again measures them, tens of ms at every page.
 */
function commitRows(manager: GridInternals['rowManager'], rows: { created?: boolean }[]): void {
  const r = manager.renderer;
  const before = manager.getDisplayRows();
  const onScreen = before.slice(r.vDomTop, r.vDomBottom + 1);
  for (const row of rows) manager.rows.push(row);
  if (!onScreen.length || r.vDomBottom >= before.length - 1 || !r.tableElement.isConnected || !r.tableElement.offsetParent) {
    manager.refreshActiveData(false, false, true);
    return;
  }
  manager.refreshPipelines(false, 'all', 0, true);
  const after = manager.getDisplayRows();
  if (onScreen.every((row, k) => after[r.vDomTop + k] === row) && r.vDomBottom < after.length - 1) {
    const grown = (after.length - before.length) * r.vDomRowHeight;
    r.vDomBottomPad = Math.max(0, r.vDomBottomPad + grown);
    r.vDomScrollHeight += grown;
    r.tableElement.style.paddingBottom = `${r.vDomBottomPad}px`;
    manager.dispatch('data-refreshed');
  } else {
    manager.reRenderInPosition(); // the pipelines ran: only the rows on screen change
    manager.dispatch('data-refreshed');
  }
}

/** Shows how many rows the grid holds (`data-grid-rows`, for tests), and when it holds the whole answer. */
function gridFilled(t: Tab): void {
  t.els.body.dataset.gridRows = String(t.gridRows);
  updateStatus(t);
  if (!t.loading && t.gridRows === t.rows.length) mark(t, 'gridAll');
}

function appendRows(t: Tab, rows: CellValue[][]): void {
  for (const r of rows) t.rows.push(r);
  if (rows.length) t.chartStale = true;
  feed(t);
}

// ---- chart ----

/** A colour of the VS Code theme (`--vscode-charts-*`), with a fallback. */
function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function palette(): string[] {
  return [
    themeColor('--vscode-charts-blue', '#3794ff'),
    themeColor('--vscode-charts-orange', '#d18616'),
    themeColor('--vscode-charts-green', '#89d185'),
    themeColor('--vscode-charts-red', '#f14c4c'),
    themeColor('--vscode-charts-purple', '#b180d7'),
    themeColor('--vscode-charts-yellow', '#cca700'),
    '#4dc0b5', '#f66d9b', '#9561e2', '#6cb2eb', '#a0aec0', '#e3342f',
  ];
}

function drawChart(t: Tab): void {
  if (t.view !== 'chart' || !t.columns) return;
  const spec = chooseChart(t.columns, t.rows.length, t.chartKind);
  const kind = t.els.kind;
  const labels: Record<ChartKind, string> = { line: 'Line', bar: 'Bars', groupedBar: 'Grouped bars', number: 'Single number', none: 'None' };
  kind.replaceChildren(...spec.alternatives.map((k) => {
    const o = el('option', undefined, labels[k]);
    o.value = k;
    o.selected = k === spec.kind;
    return o;
  }));
  kind.disabled = spec.alternatives.length < 2;
  t.els.body.dataset.chartKind = spec.kind;
  t.chart?.destroy();
  t.chart = undefined;
  t.els.canvasBox.replaceChildren();
  t.els.number.hidden = true;
  if (spec.kind === 'none') {
    t.els.number.hidden = false;
    t.els.number.className = 'big-number none';
    t.els.number.textContent = spec.reason ?? 'No chart fits this answer.';
    return;
  }
  if (spec.kind === 'number') {
    const m = spec.measures[0];
    t.els.number.hidden = false;
    t.els.number.className = 'big-number';
    const v = t.rows[0]?.[m];
    t.els.number.replaceChildren(el('div', 'value', typeof v === 'number' ? formatNumber(v) : formatCell(v ?? null, t.columns[m])), el('div', 'caption', t.columns[m].name));
    return;
  }
  const data = chartData(spec, t.columns, t.rows, formatCell);
  const colors = palette();
  const fg = themeColor('--vscode-foreground', '#cccccc');
  const lines = themeColor('--vscode-charts-lines', 'rgba(128,128,128,0.3)');
  const type = spec.kind === 'line' ? 'line' : 'bar';
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${labels[spec.kind]} chart`);
  t.els.canvasBox.append(canvas);
  const config: ChartConfiguration = {
    type,
    data: {
      labels: data.labels,
      datasets: data.series.map((s, i) => ({
        label: s.label,
        data: s.data,
        borderColor: colors[i % colors.length],
        backgroundColor: colors[i % colors.length],
        pointRadius: data.labels.length > 200 ? 0 : 2,
        borderWidth: type === 'line' ? 2 : 0,
        spanGaps: true,
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: fg,
      plugins: { legend: { display: data.series.length > 1, labels: { color: fg } }, tooltip: { enabled: true } },
      scales: {
        x: { ticks: { color: fg, autoSkip: true, maxRotation: 60 }, grid: { color: lines } },
        y: { ticks: { color: fg }, grid: { color: lines }, beginAtZero: type === 'bar' },
      },
    },
  };
  t.chart = new Chart(canvas, config);
  t.chartStale = false;
  t.els.note.hidden = !data.truncated;
  if (data.truncated) t.els.note.textContent = 'The chart shows the first categories and the largest series only.';
}

// ---- state ----

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveState(): void {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    vscode.setState({
      active: activeTab,
      tabs: [...tabs.values()].map((t) => ({
        tabId: t.tabId, title: t.title, query: t.query, columns: t.columns, rows: t.rows.slice(0, STATE_ROWS), totalRowCount: t.totalRowCount,
        samplingRatio: t.samplingRatio, elapsedMs: t.elapsedMs, error: t.error, cancelled: t.cancelled, limited: t.limited,
      })),
    });
  }, 300);
}

interface SavedTab { tabId: string; title: string; query?: string; columns?: ResultColumn[]; rows: CellValue[][]; totalRowCount: number; samplingRatio: number; elapsedMs: number; error?: string; cancelled?: boolean; limited: boolean }

function restore(): void {
  const st = vscode.getState() as { active?: string; tabs?: SavedTab[] } | undefined;
  if (!st?.tabs?.length) return;
  for (const s of st.tabs) {
    const t = makeTab(s.tabId, s.title);
    Object.assign(t, { query: s.query, columns: s.columns, rows: s.rows ?? [], totalRowCount: s.totalRowCount, samplingRatio: s.samplingRatio, elapsedMs: s.elapsedMs, error: s.error, cancelled: s.cancelled, limited: s.limited, loading: false, restored: true });
    if (s.error) showError(t, s.error);
    t.els.note.hidden = false;
    t.els.note.textContent = `Restored after a reload: the first ${formatNumber(t.rows.length)} rows are kept. Run the query again for the whole answer.`;
    updateStatus(t);
  }
  activate(st.active && tabs.has(st.active) ? st.active : st.tabs[0].tabId);
}

function showError(t: Tab, message: string): void {
  t.els.error.hidden = false;
  t.els.error.textContent = message;
}

// ---- messages ----

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  if (!m || typeof m !== 'object') return;
  switch (m.type) {
    case 'start': {
      if (m.replace) removeAllTabs();
      const old = tabs.get(m.tabId);
      if (old) {
        dropGrid(old);
        old.els.button.remove();
        old.els.body.remove();
      }
      const t = makeTab(m.tabId, m.title);
      t.query = m.query;
      t.dataSource = m.dataSource;
      t.startedAt = m.startedAt;
      t.els.button.title = m.query ? `${m.query}${m.dataSource ? `\n@datasource ${m.dataSource}` : ''}` : m.title;
      setView(t, 'grid');
      updateStatus(t);
      if (!activeTab || m.replace) activate(t.tabId);
      break;
    }
    case 'columns': {
      const t = tabs.get(m.tabId);
      if (!t) break;
      t.columns = m.columns;
      t.totalRowCount = m.totalRowCount;
      t.samplingRatio = m.samplingRatio;
      t.elapsedMs = m.elapsedMs;
      t.loading = !m.done;
      t.limited = m.limited;
      t.rows = m.rows.slice();
      t.chartStale = true;
      mark(t, 'hostFirstPage', m.elapsedMs);
      mark(t, 'columns');
      dropGrid(t); // a tab's answer starts again: a new grid for it
      updateStatus(t);
      ensureGrid(t);
      if (m.done) gridFilled(t);
      if (t.view === 'chart') drawChart(t);
      saveState();
      break;
    }
    case 'rows': {
      const t = tabs.get(m.tabId);
      if (!t) break;
      t.elapsedMs = m.elapsedMs;
      t.loading = !m.done;
      t.limited = m.limited;
      const rows = unpackRows(m.packed);
      appendRows(t, rows);
      if (m.done) {
        mark(t, 'hostDone', m.elapsedMs);
        mark(t, 'lastRows');
        gridFilled(t);
      }
      updateStatus(t);
      if (t.view === 'chart' && (m.done || t.rows.length % 50_000 < rows.length)) drawChart(t);
      if (m.done) saveState();
      break;
    }
    case 'error': {
      const t = tabs.get(m.tabId);
      if (!t) break;
      t.error = m.message;
      t.loading = false;
      t.elapsedMs = m.elapsedMs;
      showError(t, m.message);
      updateStatus(t);
      saveState();
      break;
    }
    case 'cancelled': {
      const t = tabs.get(m.tabId);
      if (!t) break;
      t.cancelled = true;
      t.loading = false;
      t.elapsedMs = m.elapsedMs;
      updateStatus(t);
      break;
    }
    case 'pinned':
      pinned = m.pinned;
      pinBtn.textContent = pinned ? 'Unpin' : 'Pin';
      pinBtn.classList.toggle('active', pinned);
      break;
    case 'probe': {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      const state: WebviewProbe = {
        activeTab,
        tabs: [...tabs.values()].map((t) => ({ tabId: t.tabId, title: t.title, rows: t.rows.length, status: t.els.status.textContent ?? '', error: t.error, chartKind: t.els.body.dataset.chartKind as ChartKind | undefined })),
        heapBytes: memory?.usedJSHeapSize,
      };
      vscode.postMessage({ type: 'probeResult', id: m.id, state });
      break;
    }
  }
});

// Ctrl/Cmd+C copies the selected cells as TSV (Shift: CSV)
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c' && activeTab && !(e.target instanceof HTMLInputElement)) {
    const t = tabs.get(activeTab);
    if (!t?.table) return;
    e.preventDefault();
    sendCopy(t, e.shiftKey ? 'csv' : 'tsv', 'selection');
  }
});

restore();
vscode.postMessage({ type: 'ready' });
