/**
 * How rows reach a tab: each page goes into the tab's ColumnStore (columnar, common/src/results/
 * columnar.ts) and the grid shows it at once, since the grid makes DOM only for the rows on screen.
 */
import type { PackedPage } from '../../common/src/results/messages';
import { mark, updateStatus, type Tab } from './tab';

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

/** Destroys a tab's grid. */
export function dropGrid(t: Tab): void {
  t.grid?.destroy();
  t.grid = undefined;
}

/** Shows how many rows the grid holds (`data-grid-rows`, for tests), and when it holds the whole answer. */
export function gridFilled(t: Tab): void {
  t.gridRows = t.store.length;
  t.els.body.dataset.gridRows = String(t.gridRows);
  t.grid?.setPlaceholder(t.loading ? 'Loading…' : 'No rows');
  updateStatus(t);
  if (!t.loading) mark(t, 'gridAll');
}

/** Appends a page that came from the host (packed by column) to a tab's store, and shows it in its grid. */
export function appendPage(t: Tab, page: PackedPage): void {
  const began = performance.now();
  t.store.appendPage(page);
  if (page.length) t.chartStale = true;
  t.grid?.rowsAdded();
  const took = performance.now() - began;
  if (took > (t.marks.maxSliceMs ?? 0)) mark(t, 'maxSliceMs', took);
  gridFilled(t);
}
