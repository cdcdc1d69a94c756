/**
 * The grid's columns: the header (name, type and role, as text, the whole of it in a tooltip) and the
 * widths measured on a canvas in the editor's font.
 */
import { formatCell } from '../../common/src/results/format';
import type { CellValue, ResultColumn } from '../../common/src/results/shape';
import { el } from './tab';

/** A column's type and role as its header shows them under its name (`DATE · date`, `Month · date`). */
function typeLine(c: ResultColumn): string {
  return c.bucket ? `${c.bucket} · ${c.role}` : `${c.dataType} · ${c.role}`;
}

/**
 * A column's header: its name above its type and role, as text; its tooltip (`title`) holds the full
 * name, then the type line, for a name cut by a narrow column.
 */
export function headerNode(c: ResultColumn): Node {
  const box = el('span', 'col-title');
  box.title = `${c.name}\n${typeLine(c)}`;
  box.append(el('span', 'col-name', c.name), el('span', 'col-type', typeLine(c)));
  return box;
}

/**
 * Pixels of a header cell besides its name (results.css): 6 px padding each side, the 1 px right
 * border, the 4 px gap and the 16 px sort button, and 3 px for the canvas's measure rounding against
 * the DOM's.
 */
const HEADER_CHROME = 6 + 6 + 1 + 4 + 16 + 3;
/** Pixels of a body cell besides its text: 6 px padding each side, the 1 px border, 1 px of rounding. */
const CELL_CHROME = 6 + 6 + 1 + 1;
/** Narrowest column (px). */
export const MIN_WIDTH = 60;
/** Widest column by default (px); a double-click on a header's edge fits up to FIT_MAX_WIDTH. */
const DEFAULT_MAX_WIDTH = 400;
/** Widest column a double-click on a header's edge makes (px). */
const FIT_MAX_WIDTH = 1000;

let measureContext: CanvasRenderingContext2D | null | undefined;

/** Measures text (px) in the grid's font (the editor's), `weight` e.g. `bold `. */
function measurer(): (s: string, weight?: string) => number {
  measureContext ??= document.createElement('canvas').getContext('2d');
  const ctx = measureContext;
  const css = getComputedStyle(document.documentElement);
  const size = css.getPropertyValue('--vscode-editor-font-size').trim() || '13px';
  const font = `${/^[\d.]+$/.test(size) ? `${size}px` : size} ${css.getPropertyValue('--vscode-editor-font-family').trim() || 'monospace'}`;
  return (s, weight = '') => {
    if (!ctx) return s.length * 8;
    ctx.font = `${weight}${font}`;
    return ctx.measureText(s).width;
  };
}

/** The width (px) fitting header `c` (bold name above the 0.8 em type line) and `texts` of its cells, between MIN_WIDTH and `max`. */
function fit(text: (s: string, weight?: string) => number, c: ResultColumn, texts: Iterable<string>, max: number): number {
  let w = Math.max(text(c.name, 'bold '), 0.8 * text(typeLine(c))) + HEADER_CHROME;
  for (const s of texts) w = Math.max(w, text(s) + CELL_CHROME);
  return Math.min(max, Math.max(MIN_WIDTH, Math.ceil(w)));
}

/**
 * Widths (px) of the grid's columns: the widest of the header's name and type and of the first rows'
 * texts, measured on a canvas in the grid's font, between 60 and 400 (no layout forced: nothing is
 * measured in the DOM).
 */
export function columnWidths(cols: ResultColumn[], rows: CellValue[][]): number[] {
  const text = measurer();
  const sample = rows.slice(0, 200);
  return cols.map((c, i) => fit(text, c, sample.map((r) => formatCell(r[i] ?? null, c)), DEFAULT_MAX_WIDTH));
}

/**
 * The width (px) that fits column `c`'s header and `cells` (its values as shown), up to 1000 px: what a
 * double-click on the header's edge makes it, as a spreadsheet's autofit does.
 */
export function fitColumnWidth(c: ResultColumn, cells: Iterable<CellValue>): number {
  const text = measurer();
  const texts = function* (): Generator<string> {
    for (const v of cells) yield formatCell(v, c);
  };
  return fit(text, c, texts(), FIT_MAX_WIDTH);
}
