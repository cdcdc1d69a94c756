/**
 * An answer's rows stored by column, for the results webview: a million rows as row arrays took over
 * 2 GB of a webview's heap (issue 25). Numbers go into a Float64Array (NaN is null: JSON carries no NaN),
 * strings into a dictionary (Uint32Array codes into a string table), anything else (booleans, a column
 * of mixed types) into a plain array. Row arrays are made only for the rows asked for (those on screen,
 * a copy). Pure (no DOM, no `vscode`).
 */
import { NULL_CODE, packedCell, type PackedPage } from './messages';
import type { CellValue } from './shape';

/** One column: its kind decided by its first non-null value, widened to `any` when a value does not fit. */
export type StoredColumn =
  | { kind: 'empty' }
  | { kind: 'num'; values: Float64Array }
  | { kind: 'str'; codes: Uint32Array; strings: string[]; index: Map<string, number> }
  | { kind: 'any'; values: CellValue[] };

/**
 * Rows of an answer by column. `append` adds rows (arrays of cells, as searchdata gives them);
 * `get(row, col)` reads a cell, `row(i)` makes a row array. Row numbers are 0-based positions of arrival.
 */
export class ColumnStore {
  /** Rows stored. */
  length = 0;
  /** The columns, one per answer column. */
  readonly columns: StoredColumn[];
  private capacity = 0;

  /**
   * `expectedRows`: the rows the store will likely hold; its typed arrays are made that long at once
   * (growing a million-row store by half each time made 17 generations of large arrays, and the
   * collector's pauses for them stalled the thread). More rows still fit: the arrays grow.
   */
  constructor(readonly width: number, expectedRows = 0) {
    this.columns = Array.from({ length: width }, () => ({ kind: 'empty' }) as StoredColumn);
    this.capacity = Math.max(0, Math.min(expectedRows, 2 ** 24));
  }

  /** Adds rows; a row shorter than `width` gets nulls. */
  append(rows: readonly (readonly CellValue[])[]): void {
    this.reserve(this.length + rows.length);
    for (let c = 0; c < this.width; c++) {
      let col = this.columns[c]!;
      for (let r = 0; r < rows.length; r++) col = this.put(c, col, this.length + r, rows[r]![c] ?? null);
    }
    this.length += rows.length;
  }

  /** Stores `v` at row `at` of column `c` (whose column is `col`), typing or widening it; returns the column. */
  private put(c: number, col: StoredColumn, at: number, v: CellValue): StoredColumn {
    if (col.kind === 'empty' && v !== null) col = this.columns[c] = this.typed(v, at);
    if (col.kind === 'num') {
      if (v === null || typeof v === 'number') col.values[at] = v === null ? NaN : v;
      else col = this.widen(c, at, v);
    } else if (col.kind === 'str') {
      if (v === null) col.codes[at] = NULL_CODE;
      else if (typeof v === 'string') col.codes[at] = codeOf(col, v);
      else col = this.widen(c, at, v);
    } else if (col.kind === 'any') col.values[at] = v;
    return col;
  }

  /**
   * Adds a page packed by column (`packPage`): a number column into a number column and a string column
   * into a string column are array copies (string codes mapped through the page's table), with no array
   * per row; any other pairing goes cell by cell, as `append` does.
   */
  appendPage(page: PackedPage): void {
    const n = page.length;
    this.reserve(this.length + n);
    for (let c = 0; c < this.width; c++) {
      const src = page.columns[c] ?? { kind: 'null' as const };
      let col = this.columns[c]!;
      if (src.kind === 'num' && (col.kind === 'num' || col.kind === 'empty')) {
        if (col.kind === 'empty') col = this.columns[c] = this.typed(0, this.length);
        (col as { values: Float64Array }).values.set(src.values, this.length);
      } else if (src.kind === 'str' && (col.kind === 'str' || col.kind === 'empty')) {
        if (col.kind === 'empty') col = this.columns[c] = this.typed('', this.length);
        const into = col as Extract<StoredColumn, { kind: 'str' }>;
        const codes = src.strings.map((v) => codeOf(into, v));
        for (let r = 0; r < n; r++) {
          const code = src.codes[r]!;
          into.codes[this.length + r] = code === NULL_CODE ? NULL_CODE : codes[code]!;
        }
      } else for (let r = 0; r < n; r++) col = this.put(c, col, this.length + r, packedCell(src, r));
    }
    this.length += n;
  }

  /** The cell at `row`, `col` (null past the end). */
  get(row: number, col: number): CellValue {
    if (row < 0 || row >= this.length || col < 0 || col >= this.width) return null;
    return cellOf(this.columns[col], row);
  }

  /** Row `i` as an array of cells. */
  row(i: number): CellValue[] {
    const out = new Array<CellValue>(this.width);
    for (let c = 0; c < this.width; c++) out[c] = this.get(i, c);
    return out;
  }

  /** Rows `from` to `to` (exclusive) as arrays of cells, or the rows of positions `ids` when given. */
  rows(from: number, to: number, ids?: ArrayLike<number>): CellValue[][] {
    const out: CellValue[][] = [];
    for (let i = from; i < Math.min(to, ids ? ids.length : this.length); i++) out.push(this.row(ids ? ids[i] : i));
    return out;
  }

  /** The rows one by one as arrays of cells (each made as it is read: no array of all rows). */
  *[Symbol.iterator](): Iterator<CellValue[]> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }

  /** Approximate bytes the store holds (typed arrays at capacity, strings at 2 bytes a character). */
  bytes(): number {
    let n = 0;
    for (const c of this.columns) {
      if (c.kind === 'num') n += c.values.byteLength;
      else if (c.kind === 'str') n += c.codes.byteLength + c.strings.reduce((s, x) => s + 2 * x.length + 32, 0);
      else if (c.kind === 'any') n += 8 * c.values.length;
    }
    return n;
  }

  private reserve(n: number): void {
    if (n <= this.capacity) return;
    const cap = Math.max(1024, n, Math.ceil(this.capacity * 1.5));
    for (const c of this.columns) {
      if (c.kind === 'num') c.values = grow(c.values, new Float64Array(cap));
      else if (c.kind === 'str') c.codes = grow(c.codes, new Uint32Array(cap));
    }
    this.capacity = cap;
  }

  /** A typed column for a first non-null value `v` at row `at` (the rows before it are null). */
  private typed(v: CellValue, at: number): StoredColumn {
    if (typeof v === 'number') return { kind: 'num', values: new Float64Array(this.capacity).fill(NaN, 0, at) };
    if (typeof v === 'string') return { kind: 'str', codes: new Uint32Array(this.capacity).fill(NULL_CODE, 0, at), strings: [], index: new Map() };
    return { kind: 'any', values: new Array<CellValue>(at).fill(null) };
  }

  /** Makes column `c` a plain array (rows before `at` kept) and stores `v` at `at`. */
  private widen(c: number, at: number, v: CellValue): StoredColumn {
    const values: CellValue[] = [];
    const old = this.columns[c];
    for (let r = 0; r < at; r++) values.push(cellOf(old, r));
    values.push(v);
    return (this.columns[c] = { kind: 'any', values });
  }
}

function codeOf(col: { strings: string[]; index: Map<string, number> }, v: string): number {
  let code = col.index.get(v);
  if (code === undefined) {
    code = col.strings.length;
    col.strings.push(v);
    col.index.set(v, code);
  }
  return code;
}

function grow<T extends Float64Array | Uint32Array>(old: T, bigger: T): T {
  bigger.set(old);
  if (bigger instanceof Float64Array) bigger.fill(NaN, old.length);
  return bigger;
}

/** The cell of `c` at `row` (no bounds check). */
function cellOf(c: StoredColumn, row: number): CellValue {
  switch (c.kind) {
    case 'num': {
      const v = c.values[row];
      return Number.isNaN(v) ? null : v;
    }
    case 'str': {
      const code = c.codes[row];
      return code === NULL_CODE ? null : c.strings[code];
    }
    case 'any':
      return c.values[row] ?? null;
    default:
      return null;
  }
}
