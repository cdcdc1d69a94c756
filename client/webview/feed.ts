/**
 * How rows reach a tab's grid without a long task: the webview shares the workbench's thread, so rows
 * are built in slices between frames and added to Tabulator's row manager with one refresh (`feed`).
 */
import type { CellValue } from '../../common/src/results/shape';
import { mark, rowObject, toObjects, updateStatus, type Tab } from './tab';

/** Height (px) of a grid row: one line of text in the theme's font. */
export const ROW_HEIGHT = 24;
/** Rows the grid is built with (a first page: client/src/results FIRST_PAGE_ROWS); `feed` adds the rest of the answer. */
export const FIRST_GRID_ROWS = 1000;
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
export interface Feed {
  /** Tabulator's row class: the constructor of the grid's first row. */
  Row: new (data: Record<string, CellValue>, rowManager: unknown) => { created?: boolean };
  /** Rows built and not yet in the grid. */
  built: { created?: boolean }[];
  scheduled: boolean;
  /** performance.now() of the last addition to the grid. */
  committed: number;
}

/** Runs `fn` as a new task soon (a message to itself: no 4 ms clamp of nested timers), after the page's pending work. */
export const nextTask = (() => {
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
export function afterFrame(fn: () => void): void {
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

/**
 * Adds the rows that came since the grid was built to it, without a long task: Tabulator's own ways
 * block for the whole batch (`replaceData` of 100,000 rows took seconds, and `addData` copies its list
 * of active rows once per added row), and this page shares its thread with the workbench. So the rows
 * are built as Tabulator rows in slices of SLICE_MS, one slice per frame, and added to the row
 * manager's list with one refresh of its pipelines (which keeps header sort, filters and the scroll
 * position) in a slice of its own (see COMMIT_ROWS).
 */
export function feed(t: Tab): void {
  const table = t.table;
  if (!table || !t.tableBuilt || t.feeding?.scheduled) return;
  const f = t.feeding ?? newFeed(t);
  if (!f) return;
  if (t.gridRows + f.built.length >= t.rows.length && !f.built.length) return;
  f.scheduled = true;
  afterFrame(() => feedSlice(t, f));
}

/** Starts feeding a grid built with rows: Tabulator's row class is taken from its first row. */
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

/** One slice of `feed`'s work: build up to SLICE_MS of rows, or add the rows built to the grid. */
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
export function dropGrid(t: Tab): void {
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
export function gridFilled(t: Tab): void {
  t.els.body.dataset.gridRows = String(t.gridRows);
  updateStatus(t);
  if (!t.loading && t.gridRows === t.rows.length) mark(t, 'gridAll');
}

/** Appends rows that came from the host to a tab, and feeds them to its grid. */
export function appendRows(t: Tab, rows: CellValue[][]): void {
  for (const r of rows) t.rows.push(r);
  if (rows.length) t.chartStale = true;
  feed(t);
}
