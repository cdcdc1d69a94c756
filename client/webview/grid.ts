/**
 * The results grid: a virtual grid over a ColumnStore. Only the rows on screen are DOM (a pool of row
 * elements, recycled as it scrolls); the scroll spacer is capped below the browser's 2^24 px element
 * height, and past the cap the scroll position maps onto the rows with a scale (firstRowAt), so every row
 * of a million is reachable. Header: name and type (the full name in its tooltip), a sort button
 * (asc → desc → none), a filter, a resize handle (drag it; double-click it to fit the column to its
 * header and cells). Range selection by mouse and keys; copy goes through the host. Text only, never HTML.
 * Own code rather than a library: finos regular-table also renders from a data callback and caps its
 * scroll pane (BROWSER_MAX_HEIGHT), but it is a custom element with its own table DOM and styles, and
 * sort, filters, selection, copy and the menu would still be ours on top; this with them is ~600 lines.
 */
import type { ColumnStore } from '../../common/src/results/columnar';
import { formatCell, isNumericColumn } from '../../common/src/results/format';
import { firstRowAt, scrollTopFor, spacerHeight } from '../../common/src/results/gridView';
import type { CellValue, ResultColumn } from '../../common/src/results/shape';
import type { CopyFormat } from '../../common/src/results/messages';
import { fitColumnWidth, headerNode, MIN_WIDTH } from './columns';
import { GridView, type SortDir } from './gridState';
import { openMenu } from './menu';
import { el } from './tab';

/** Height (px) of a grid row: one line of text in the theme's font. */
export const ROW_HEIGHT = 24;
/** Width (px) of the row-number column. */
const NUM_WIDTH = 56;

/** A cell position in the shown rows: `row` in the view (0-based), `col` the answer's column. */
interface Pos { row: number; col: number }

/** What the grid asks of its tab. */
export interface GridHost {
  /** Copies cells (the host writes the clipboard). */
  copy(format: CopyFormat, columns: ResultColumn[], rows: CellValue[][]): void;
  /** A sort or filter over all rows ended after `ms`. */
  viewChanged(ms: number): void;
}

/** A virtual grid in `host` over `store`'s rows, with `columns` of `widths` px. */
export class VirtualGrid {
  readonly view: GridView;
  readonly root = el('div', 'vgrid');
  private readonly head = el('div', 'vgrid-head');
  private readonly headRow = el('div', 'vgrid-head-row');
  private readonly scroller = el('div', 'vgrid-scroll');
  private readonly body = el('div', 'vgrid-body');
  private readonly spacer = el('div', 'vgrid-spacer');
  private readonly placeholder = el('div', 'vgrid-empty');
  private readonly pool: HTMLElement[] = [];
  private anchor?: Pos;
  private focus?: Pos;
  private dragging = false;
  private frame = 0;
  /** Ends what the grid listens to outside its own elements (window events, the resize observer). */
  private readonly disposal = new AbortController();
  /** The first shown row (fractional) at the last render. */
  private first = 0;
  /**
   * A first row set by the grid itself (wheel, keys) at scroll position `top`: past the spacer cap one
   * pixel is several rows, so the row is kept exactly while the scroll position stays there.
   */
  private pinned?: { top: number; first: number };

  constructor(private readonly hostEl: HTMLElement, private readonly store: ColumnStore, readonly columns: ResultColumn[], private readonly widths: number[], private readonly host: GridHost) {
    this.view = new GridView(store, columns, (ms) => {
      this.anchor = this.focus = undefined;
      this.render();
      host.viewChanged(ms);
    });
    this.root.tabIndex = 0;
    this.root.setAttribute('role', 'grid');
    this.root.setAttribute('aria-colcount', String(columns.length + 1));
    this.head.append(this.headRow);
    this.scroller.append(this.body, this.spacer);
    this.root.append(this.head, this.scroller, this.placeholder);
    hostEl.append(this.root);
    this.buildHeader();
    this.scroller.addEventListener('scroll', () => {
      this.head.scrollLeft = this.scroller.scrollLeft;
      this.render();
    });
    this.listen();
    const resized = new ResizeObserver(() => this.render());
    resized.observe(this.scroller);
    this.disposal.signal.addEventListener('abort', () => resized.disconnect());
    this.render();
  }

  /** Rows were added to the store: the view grows (or computes again when sorted or filtered). */
  rowsAdded(): void {
    this.view.rowsAdded();
    this.schedule();
  }

  /** Renders the rows on screen now (after a tab or view switch). */
  redraw(): void {
    this.render();
  }

  /** Sets the placeholder shown when no row is (`Loading…`, `No rows`). */
  setPlaceholder(text: string): void {
    this.placeholder.textContent = text;
    this.placeholder.hidden = this.view.length > 0;
  }

  /** Removes the grid and stops its work. */
  destroy(): void {
    this.view.dispose();
    cancelAnimationFrame(this.frame);
    this.disposal.abort();
    this.root.remove();
  }

  /** Scrolls so that shown row `row` (0-based) is the first on screen. */
  scrollToRow(row: number): void {
    const n = this.view.length;
    const vp = this.viewportPx();
    const first = Math.max(0, Math.min(row, n - vp / ROW_HEIGHT));
    this.scroller.scrollTop = scrollTopFor(first, n, ROW_HEIGHT, vp);
    this.pinned = { top: this.scroller.scrollTop, first };
    this.render();
  }

  /** The selected cells (or those at the menu's row/cell), as columns and rows of cells, in grid order. */
  cells(what: 'cell' | 'row' | 'selection'): { columns: ResultColumn[]; rows: CellValue[][] } {
    if (!this.anchor || !this.focus) return { columns: [], rows: [] };
    let [r0, r1] = [Math.min(this.anchor.row, this.focus.row), Math.max(this.anchor.row, this.focus.row)];
    let [c0, c1] = [Math.min(this.anchor.col, this.focus.col), Math.max(this.anchor.col, this.focus.col)];
    if (what !== 'selection') [r0, r1] = [this.focus.row, this.focus.row];
    if (what === 'cell') [c0, c1] = [this.focus.col, this.focus.col];
    if (what === 'row') [c0, c1] = [0, this.columns.length - 1];
    const rows: CellValue[][] = [];
    for (let r = r0; r <= r1 && r < this.view.length; r++) {
      const at = this.view.rowAt(r);
      const row: CellValue[] = [];
      for (let c = c0; c <= c1; c++) row.push(this.store.get(at, c));
      rows.push(row);
    }
    return { columns: this.columns.slice(c0, c1 + 1), rows };
  }

  /** Copies the selection (or the focused cell / row) through the host. */
  copy(format: CopyFormat, what: 'cell' | 'row' | 'selection' = 'selection'): void {
    const { columns, rows } = this.cells(what);
    if (rows.length) this.host.copy(format, columns, rows);
  }

  private viewportPx(): number {
    return Math.max(ROW_HEIGHT, this.scroller.clientHeight);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private buildHeader(): void {
    const num = el('div', 'vgrid-col row-num');
    num.style.width = `${NUM_WIDTH}px`;
    this.headRow.append(num);
    this.columns.forEach((c, i) => {
      const cell = el('div', 'vgrid-col');
      cell.dataset.col = String(i);
      cell.setAttribute('role', 'columnheader');
      cell.style.width = `${this.widths[i]}px`;
      if (isNumericColumn(c)) cell.classList.add('num');
      const top = el('div', 'vgrid-col-top');
      const sorter = el('button', 'vgrid-sorter');
      sorter.type = 'button';
      sorter.title = 'Sort by this column (ascending, descending, none)';
      sorter.addEventListener('click', () => this.cycleSort(i));
      top.append(headerNode(c), sorter);
      const filter = el('input', 'vgrid-filter');
      filter.placeholder = isNumericColumn(c) ? 'filter (>10, <=5, …)' : 'filter';
      filter.setAttribute('aria-label', `Filter ${c.name}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      filter.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.view.setFilter(i, filter.value), 120);
      });
      const resize = el('div', 'vgrid-resize');
      resize.title = 'Drag to resize the column; double-click to fit it';
      resize.addEventListener('pointerdown', (e) => this.startResize(e, i, resize));
      resize.addEventListener('dblclick', (e) => {
        e.preventDefault();
        e.stopPropagation();
        this.fitColumn(i);
      });
      cell.append(top, filter, resize);
      this.headRow.append(cell);
    });
    this.layoutWidths();
  }

  private cycleSort(col: number): void {
    const now = this.view.sort?.col === col ? this.view.sort.dir : undefined;
    const next: SortDir | undefined = now === undefined ? 'asc' : now === 'asc' ? 'desc' : undefined;
    for (const h of this.headRow.querySelectorAll<HTMLElement>('.vgrid-col[data-col]')) {
      h.setAttribute('aria-sort', Number(h.dataset.col) === col && next ? (next === 'asc' ? 'ascending' : 'descending') : 'none');
    }
    this.view.setSort(col, next);
  }

  private startResize(e: PointerEvent, col: number, handle: HTMLElement): void {
    e.preventDefault();
    e.stopPropagation();
    const x0 = e.clientX;
    const w0 = this.widths[col];
    handle.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent): void => {
      this.widths[col] = Math.max(MIN_WIDTH, Math.round(w0 + m.clientX - x0));
      this.layoutWidths();
    };
    const up = (): void => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  }

  /** Rows (shown positions) measured by `fitColumn`: the first ones and those on screen. */
  private static readonly FIT_ROWS = 1000;

  /** Sets column `col`'s width to fit its header and the cells of the first FIT_ROWS shown rows and of those on screen. */
  fitColumn(col: number): void {
    const n = this.view.length;
    const top = Math.floor(this.first);
    const shown = Math.ceil(this.viewportPx() / ROW_HEIGHT) + 1;
    const rows = new Set<number>();
    for (let r = 0; r < Math.min(n, VirtualGrid.FIT_ROWS); r++) rows.add(r);
    for (let r = top; r < Math.min(n, top + shown); r++) rows.add(r);
    this.widths[col] = fitColumnWidth(this.columns[col], [...rows].map((r) => this.store.get(this.view.rowAt(r), col)));
    this.layoutWidths();
  }

  /** Applies the column widths to the header, the pooled rows and the scrolled width. */
  private layoutWidths(): void {
    const total = NUM_WIDTH + this.widths.reduce((a, b) => a + b, 0);
    this.headRow.style.width = `${total + 20}px`;
    this.body.style.width = `${total}px`;
    for (const h of this.headRow.querySelectorAll<HTMLElement>('.vgrid-col[data-col]')) h.style.width = `${this.widths[Number(h.dataset.col)]}px`;
    for (const row of this.pool) this.sizeRow(row);
  }

  private sizeRow(row: HTMLElement): void {
    const cells = row.children;
    for (let c = 0; c < this.columns.length; c++) (cells[c + 1] as HTMLElement).style.width = `${this.widths[c]}px`;
  }

  private newRow(): HTMLElement {
    const row = el('div', 'vgrid-row');
    row.setAttribute('role', 'row');
    const num = el('div', 'vgrid-cell row-num');
    num.style.width = `${NUM_WIDTH}px`;
    row.append(num);
    this.columns.forEach((c, i) => {
      const cell = el('div', isNumericColumn(c) ? 'vgrid-cell num' : 'vgrid-cell');
      cell.dataset.col = String(i);
      cell.setAttribute('role', 'gridcell');
      row.append(cell);
    });
    this.sizeRow(row);
    this.body.append(row);
    return row;
  }

  /** Shows the rows at the scroll position: the pool grows to the viewport, each row's text set where it changed. */
  private render(): void {
    const n = this.view.length;
    const vp = this.viewportPx();
    const spacer = spacerHeight(n, ROW_HEIGHT);
    this.body.style.height = `${vp}px`;
    this.spacer.style.height = `${Math.max(0, spacer - vp)}px`;
    this.placeholder.hidden = n > 0;
    this.root.setAttribute('aria-rowcount', String(n + 1));
    const st = this.scroller.scrollTop;
    if (this.pinned && Math.abs(st - this.pinned.top) >= 1) this.pinned = undefined;
    const first = this.pinned ? Math.max(0, Math.min(this.pinned.first, n - vp / ROW_HEIGHT)) : firstRowAt(st, n, ROW_HEIGHT, vp);
    this.first = first;
    const top = Math.floor(first);
    const offset = -(first - top) * ROW_HEIGHT;
    const count = Math.min(n - top, Math.ceil(vp / ROW_HEIGHT) + 1);
    while (this.pool.length < count) this.pool.push(this.newRow());
    const sel = this.range();
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k];
      if (k >= count) {
        row.hidden = true;
        continue;
      }
      row.hidden = false;
      const r = top + k;
      row.style.transform = `translateY(${offset + k * ROW_HEIGHT}px)`;
      row.setAttribute('aria-rowindex', String(r + 2));
      row.classList.toggle('odd', r % 2 === 1);
      const at = this.view.rowAt(r);
      const cells = row.children;
      setText(cells[0] as HTMLElement, String(r + 1));
      for (let c = 0; c < this.columns.length; c++) {
        const cell = cells[c + 1] as HTMLElement;
        setText(cell, formatCell(this.store.get(at, c), this.columns[c]));
        const inSel = !!sel && r >= sel.r0 && r <= sel.r1 && c >= sel.c0 && c <= sel.c1;
        cell.classList.toggle('selected', inSel);
        cell.classList.toggle('focused', !!this.focus && this.focus.row === r && this.focus.col === c);
      }
    }
  }

  private range(): { r0: number; r1: number; c0: number; c1: number } | undefined {
    if (!this.anchor || !this.focus) return undefined;
    return { r0: Math.min(this.anchor.row, this.focus.row), r1: Math.max(this.anchor.row, this.focus.row), c0: Math.min(this.anchor.col, this.focus.col), c1: Math.max(this.anchor.col, this.focus.col) };
  }

  /** The cell position under a mouse event, or undefined (row-number cells give col -1). */
  private posOf(target: EventTarget | null): Pos | undefined {
    const cell = (target as HTMLElement | null)?.closest?.('.vgrid-cell');
    const row = cell?.parentElement;
    if (!cell || !row) return undefined;
    const k = this.pool.indexOf(row);
    if (k < 0) return undefined;
    return { row: Math.floor(this.first) + k, col: cell.classList.contains('row-num') ? -1 : Number((cell as HTMLElement).dataset.col) };
  }

  /** Selects from `anchor` (kept when `extend`) to `to`; col -1 selects the whole row. */
  private select(to: Pos, extend: boolean): void {
    const last = this.columns.length - 1;
    if (to.col < 0) {
      this.anchor = extend && this.anchor ? { row: this.anchor.row, col: 0 } : { row: to.row, col: 0 };
      this.focus = { row: to.row, col: last };
    } else {
      if (!extend || !this.anchor) this.anchor = to;
      this.focus = to;
    }
    this.render();
  }

  private listen(): void {
    this.body.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      const p = this.posOf(e.target);
      if (!p) return;
      this.root.focus({ preventScroll: true });
      this.dragging = true;
      this.select(p, e.shiftKey);
    });
    this.body.addEventListener('mousemove', (e) => {
      const p = this.dragging && e.buttons === 1 ? this.posOf(e.target) : undefined;
      if (p && (p.row !== this.focus?.row || p.col !== this.focus?.col)) this.select({ row: p.row, col: p.col < 0 ? 0 : p.col }, true);
    });
    // removed by destroy(): a listener on window would keep a dropped grid, and its answer, alive
    window.addEventListener('mouseup', () => (this.dragging = false), { signal: this.disposal.signal });
    this.body.addEventListener('contextmenu', (e) => {
      const p = this.posOf(e.target);
      if (!p) return;
      e.preventDefault();
      const r = this.range();
      if (!r || p.row < r.r0 || p.row > r.r1 || (p.col >= 0 && (p.col < r.c0 || p.col > r.c1))) this.select(p, false);
      else this.focus = { row: p.row, col: p.col < 0 ? this.focus!.col : p.col };
      openMenu(e.clientX, e.clientY, (format, what) => this.copy(format, what));
    });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    // past the spacer cap a pixel is several rows: the wheel moves by rows, as below the cap
    this.scroller.addEventListener('wheel', (e) => {
      if (this.view.length * ROW_HEIGHT <= spacerHeight(this.view.length, ROW_HEIGHT) || e.ctrlKey) return;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? ROW_HEIGHT : e.deltaMode === 2 ? this.viewportPx() : 1;
      this.scroller.scrollLeft += e.deltaX * unit;
      this.scrollToRow(Math.max(0, this.first + (e.deltaY * unit) / ROW_HEIGHT));
    }, { passive: false });
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement) return;
    const n = this.view.length;
    if (!n) return;
    const page = Math.max(1, Math.floor(this.viewportPx() / ROW_HEIGHT) - 1);
    const f = this.focus ?? { row: 0, col: 0 };
    const ctrl = e.ctrlKey || e.metaKey;
    let to: Pos | undefined;
    switch (e.key) {
      case 'ArrowDown': to = { row: ctrl ? n - 1 : f.row + 1, col: f.col }; break;
      case 'ArrowUp': to = { row: ctrl ? 0 : f.row - 1, col: f.col }; break;
      case 'ArrowRight': to = { row: f.row, col: ctrl ? this.columns.length - 1 : f.col + 1 }; break;
      case 'ArrowLeft': to = { row: f.row, col: ctrl ? 0 : f.col - 1 }; break;
      case 'PageDown': to = { row: f.row + page, col: f.col }; break;
      case 'PageUp': to = { row: f.row - page, col: f.col }; break;
      case 'Home': to = ctrl ? { row: 0, col: f.col } : { row: f.row, col: 0 }; break;
      case 'End': to = ctrl ? { row: n - 1, col: f.col } : { row: f.row, col: this.columns.length - 1 }; break;
      case 'a':
        if (!ctrl) return;
        e.preventDefault();
        this.anchor = { row: 0, col: 0 };
        this.focus = { row: n - 1, col: this.columns.length - 1 };
        this.render();
        return;
      default:
        return;
    }
    e.preventDefault();
    to = { row: Math.max(0, Math.min(n - 1, to.row)), col: Math.max(0, Math.min(this.columns.length - 1, to.col)) };
    this.select(to, e.shiftKey);
    this.reveal(to);
  }

  /** Scrolls so that `p` is on screen. */
  private reveal(p: Pos): void {
    const vp = this.viewportPx();
    const shown = Math.floor(vp / ROW_HEIGHT);
    if (p.row < Math.ceil(this.first)) this.scrollToRow(p.row);
    else if (p.row >= Math.floor(this.first) + shown) this.scrollToRow(p.row - shown + 1);
    const left = NUM_WIDTH + this.widths.slice(0, p.col).reduce((a, b) => a + b, 0);
    const right = left + this.widths[p.col];
    if (left - NUM_WIDTH < this.scroller.scrollLeft) this.scroller.scrollLeft = left - NUM_WIDTH;
    else if (right > this.scroller.scrollLeft + this.scroller.clientWidth) this.scroller.scrollLeft = right - this.scroller.clientWidth;
  }
}

function setText(cell: HTMLElement, text: string): void {
  if (cell.textContent !== text) cell.textContent = text;
}
