/**
 * The rows a grid shows: its header sort and filters over ALL the rows of its ColumnStore, computed in
 * the webview (common/src/results/gridView.ts) in slices between frames (the webview shares the
 * workbench's thread), as a permutation of row positions. Rows that arrive while sorted or filtered
 * start the computation again once the one running ends.
 */
import type { ColumnStore } from '../../common/src/results/columnar';
import { filterIds, runFor, sortIds, type Sliced } from '../../common/src/results/gridView';
import type { ResultColumn } from '../../common/src/results/shape';

/** Most ms of sort/filter work per slice: the workbench, whose thread this page shares, draws between slices. */
const SLICE_MS = 8;

/** Runs `fn` after the page's next frame (a task after its animation frame), or after 100 ms when none comes. */
export function afterFrame(fn: () => void): void {
  let ran = false;
  const run = (): void => {
    if (ran) return;
    ran = true;
    clearTimeout(timer);
    fn();
  };
  const timer = setTimeout(run, 100);
  requestAnimationFrame(() => setTimeout(run, 0));
}

/** A column's sort direction. */
export type SortDir = 'asc' | 'desc';

/**
 * The order and filter of a grid. `length` rows are shown; `rowAt(i)` is the store's row position of
 * the i-th shown row. `onChange(ms)` is called when a computation ended (ms: from the request to its end).
 */
export class GridView {
  sort?: { col: number; dir: SortDir };
  readonly filters: string[];
  /** The shown row positions, or undefined when rows show in arrival order, all of them. */
  ids?: Uint32Array;
  /** Whether a computation is running (the shown rows are those of the one before). */
  busy = false;
  private generation = 0;
  private dirty = false;

  constructor(private readonly store: ColumnStore, private readonly columns: readonly ResultColumn[], private readonly onChange: (ms: number) => void) {
    this.filters = columns.map(() => '');
  }

  /** Rows shown. */
  get length(): number {
    return this.ids ? this.ids.length : this.store.length;
  }

  /** The store's row position of the i-th shown row. */
  rowAt(i: number): number {
    return this.ids ? this.ids[i] : i;
  }

  /** Sorts by column `col` (`dir` undefined: arrival order). */
  setSort(col: number, dir: SortDir | undefined): void {
    this.sort = dir ? { col, dir } : undefined;
    this.recompute();
  }

  /** Sets column `col`'s filter text (see cellFilter). */
  setFilter(col: number, text: string): void {
    this.filters[col] = text;
    this.recompute();
  }

  /** Rows were added to the store: a sorted or filtered view computes again (an unsorted one just grows). */
  rowsAdded(): void {
    if (this.ids || this.busy) this.recompute();
  }

  /** Stops any computation (the grid goes away). */
  dispose(): void {
    this.generation++;
  }

  private recompute(): void {
    if (this.busy) {
      this.dirty = true;
      return;
    }
    const active = this.sort || this.filters.some((f) => f.trim());
    if (!active) {
      this.ids = undefined;
      this.onChange(0);
      return;
    }
    this.busy = true;
    this.dirty = false;
    const gen = this.generation;
    const began = performance.now();
    const job = this.job();
    const step = (): void => {
      if (gen !== this.generation) return;
      const r = runFor(job, SLICE_MS);
      if (!r.done) return afterFrame(step);
      this.busy = false;
      if (this.dirty) return this.recompute();
      this.ids = r.value ?? identity(this.store.length);
      this.onChange(performance.now() - began);
    };
    afterFrame(step);
  }

  private *job(): Sliced<Uint32Array | undefined> {
    const order = this.sort ? yield* sortIds(this.store, this.sort.col, this.sort.dir) : undefined;
    return yield* filterIds(this.store, this.columns, this.filters, order);
  }
}

function identity(n: number): Uint32Array {
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  return ids;
}
