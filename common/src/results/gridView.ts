/**
 * What the results grid shows of a ColumnStore: the rows in header sort order that pass the header
 * filters, as a permutation (Uint32Array of row positions), computed over ALL the rows in the webview
 * (not by asking the service), by generators that yield often so that a caller can run them in slices
 * between frames (`runFor`); and the scroll mapping past the browser's element height limit. Pure.
 */
import type { ColumnStore, StoredColumn } from './columnar';
import { formatCell, isNumericColumn } from './format';
import { compareCells, type CellValue, type ResultColumn } from './shape';

/** Work done between two yields of the generators below (elements moved or tested). */
const STEP = 4096;

/** A generator of this module: yields between steps, returns its result. */
export type Sliced<T> = Generator<void, T, void>;

/**
 * Runs `gen` until it returns or `ms` milliseconds (by `now`, default performance.now) have passed.
 * @returns `{ done: true, value }` when it returned, else `{ done: false }` (call again to go on).
 */
export function runFor<T>(gen: Sliced<T>, ms: number, now: () => number = () => performance.now()): { done: true; value: T } | { done: false } {
  const end = now() + ms;
  for (;;) {
    const r = gen.next();
    if (r.done) return { done: true, value: r.value };
    if (now() >= end) return { done: false };
  }
}

/** Runs `gen` to its end at once (tests, small answers). */
export function runAll<T>(gen: Sliced<T>): T {
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value;
  }
}

/**
 * A stable bottom-up merge sort of `ids` by `cmp`, yielding every STEP elements.
 * @returns the sorted ids (`ids` itself or a buffer of the same length)
 */
export function* mergeSort(ids: Uint32Array, cmp: (a: number, b: number) => number): Sliced<Uint32Array> {
  const n = ids.length;
  const RUN = 32;
  let work = 0;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(n, lo + RUN);
    for (let i = lo + 1; i < hi; i++) {
      const x = ids[i];
      let j = i - 1;
      while (j >= lo && cmp(ids[j], x) > 0) ids[j + 1] = ids[j--];
      ids[j + 1] = x;
    }
    if ((work += RUN) >= STEP) { work = 0; yield; }
  }
  let src: Uint32Array = ids;
  let dst: Uint32Array = new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        dst[k++] = cmp(src[j], src[i]) < 0 ? src[j++] : src[i++];
        if (++work >= STEP) { work = 0; yield; }
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    [src, dst] = [dst, src];
  }
  return src;
}

const collator = new Intl.Collator(undefined);

/** Ranks of a string column's dictionary: rank[code] orders codes as compareCells orders their strings. */
function* dictionaryRanks(strings: readonly string[]): Sliced<Uint32Array> {
  const codes = new Uint32Array(strings.length);
  for (let i = 0; i < codes.length; i++) codes[i] = i;
  const sorted = yield* mergeSort(codes, (a, b) => collator.compare(strings[a], strings[b]));
  const rank = new Uint32Array(strings.length);
  for (let i = 0; i < sorted.length; i++) rank[sorted[i]] = i;
  return rank;
}

/**
 * The row positions of `store` sorted by column `col`, `dir` ascending or descending, nulls last either
 * way, ties in arrival order (what compareCells orders: numbers numerically, text by locale).
 */
export function* sortIds(store: ColumnStore, col: number, dir: 'asc' | 'desc'): Sliced<Uint32Array> {
  const n = store.length;
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const c: StoredColumn | undefined = store.columns[col];
  const sign = dir === 'asc' ? 1 : -1;
  if (!c || c.kind === 'empty') return ids;
  if (c.kind === 'num') {
    const v = c.values;
    return yield* mergeSort(ids, (a, b) => {
      const x = v[a], y = v[b];
      if (x !== x) return y !== y ? 0 : 1; // NaN is null: last
      if (y !== y) return -1;
      return sign * (x - y);
    });
  }
  if (c.kind === 'str') {
    const rank = yield* dictionaryRanks(c.strings);
    const codes = c.codes;
    const NULL = 0xffffffff;
    return yield* mergeSort(ids, (a, b) => {
      const x = codes[a], y = codes[b];
      if (x === NULL) return y === NULL ? 0 : 1;
      if (y === NULL) return -1;
      return sign * (rank[x] - rank[y]);
    });
  }
  const values = c.values;
  return yield* mergeSort(ids, (a, b) => {
    const x = values[a] ?? null, y = values[b] ?? null;
    if (x === null || y === null) return compareCells(x, y);
    return sign * compareCells(x, y);
  });
}

/**
 * A header filter as a test of a cell: `>10`, `<= 5`, `=3`, `!=3` compare numbers of a numeric column;
 * anything else is a case-insensitive substring of the cell's shown text (formatCell). Empty: all pass.
 */
export function cellFilter(filter: string, column: ResultColumn): ((value: CellValue) => boolean) | undefined {
  const f = String(filter ?? '').trim();
  if (!f) return undefined;
  const cmp = /^(<=|>=|<|>|=|!=)\s*(-?\d+(?:\.\d+)?)$/.exec(f);
  const needle = f.toLowerCase();
  const text = (value: CellValue): boolean => formatCell(value, column).toLowerCase().includes(needle);
  if (!cmp || !isNumericColumn(column)) return text;
  const n = Number(cmp[2]);
  const op = cmp[1];
  return (value) => {
    if (typeof value !== 'number') return text(value);
    switch (op) {
      case '<': return value < n;
      case '<=': return value <= n;
      case '>': return value > n;
      case '>=': return value >= n;
      case '=': return value === n;
      default: return value !== n;
    }
  };
}

/** A test of row positions for column `col`'s filter; a string column tests each distinct string once. */
function rowTest(store: ColumnStore, col: number, test: (value: CellValue) => boolean): (row: number) => boolean {
  const c = store.columns[col];
  if (c?.kind === 'str') {
    const seen = new Uint8Array(c.strings.length); // 0 not yet, 1 passes, 2 fails
    const codes = c.codes;
    const nullPasses = test(null);
    return (row) => {
      const code = codes[row];
      if (code === 0xffffffff) return nullPasses;
      if (!seen[code]) seen[code] = test(c.strings[code]) ? 1 : 2;
      return seen[code] === 1;
    };
  }
  return (row) => test(store.get(row, col));
}

/**
 * The rows to show: `order` (row positions, or arrival order when undefined) without those failing a
 * filter (`filters[col]`, text as typed in the header). Yields every STEP rows.
 * @returns the row positions that pass, in `order`'s order, or `order` itself when no filter is set
 */
export function* filterIds(store: ColumnStore, columns: readonly ResultColumn[], filters: readonly (string | undefined)[], order?: Uint32Array): Sliced<Uint32Array | undefined> {
  const tests: ((row: number) => boolean)[] = [];
  filters.forEach((f, col) => {
    const t = columns[col] && cellFilter(f ?? '', columns[col]);
    if (t) tests.push(rowTest(store, col, t));
  });
  if (!tests.length) return order;
  const n = order ? order.length : store.length;
  const out = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const row = order ? order[i] : i;
    let pass = true;
    for (const t of tests) if (!(pass = t(row))) break;
    if (pass) out[k++] = row;
    if ((i & (STEP - 1)) === STEP - 1) yield;
  }
  return out.slice(0, k);
}

/** The tallest scroll spacer (px) the grid makes: below Chromium's 2^24 px cap of an element's layout height. */
export const MAX_SCROLL_PX = 8_000_000;

/** The height (px) of the grid's scroll spacer for `rows` rows of `rowHeight` px: their height, at most MAX_SCROLL_PX. */
export function spacerHeight(rows: number, rowHeight: number, maxPx = MAX_SCROLL_PX): number {
  return Math.min(rows * rowHeight, maxPx);
}

/**
 * The first row shown (fractional: its part is the part of the row scrolled out of sight) at scroll
 * position `scrollTop` (px) of a viewport `viewportPx` high. Up to MAX_SCROLL_PX of rows a pixel is a
 * pixel; past it, the scroll range maps linearly onto the rows, so that the bottom shows the last rows.
 */
export function firstRowAt(scrollTop: number, rows: number, rowHeight: number, viewportPx: number, maxPx = MAX_SCROLL_PX): number {
  const content = rows * rowHeight;
  const lastFirst = Math.max(0, rows - viewportPx / rowHeight);
  if (content <= maxPx) return Math.min(lastFirst, Math.max(0, scrollTop / rowHeight));
  const range = Math.max(1, spacerHeight(rows, rowHeight, maxPx) - viewportPx);
  return Math.min(1, Math.max(0, scrollTop / range)) * lastFirst;
}

/** The scroll position (px) that shows row `row` (0-based) first: the inverse of firstRowAt. */
export function scrollTopFor(row: number, rows: number, rowHeight: number, viewportPx: number, maxPx = MAX_SCROLL_PX): number {
  const content = rows * rowHeight;
  if (content <= maxPx) return row * rowHeight;
  const lastFirst = Math.max(0, rows - viewportPx / rowHeight);
  const range = Math.max(1, spacerHeight(rows, rowHeight, maxPx) - viewportPx);
  return lastFirst ? (Math.min(row, lastFirst) / lastFirst) * range : 0;
}
