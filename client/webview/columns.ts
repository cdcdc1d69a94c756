/**
 * The grid's columns: the header (name, type and role, as text) and the widths measured on a canvas in
 * the editor's font.
 */
import { formatCell } from '../../common/src/results/format';
import type { CellValue, ResultColumn } from '../../common/src/results/shape';
import { el } from './tab';

/** A column's header: its name above its type and role, as text. */
export function headerNode(c: ResultColumn): Node {
  const box = el('span', 'col-title');
  box.append(el('span', 'col-name', c.name), el('span', 'col-type', c.bucket ? `${c.bucket} · ${c.role}` : `${c.dataType} · ${c.role}`));
  return box;
}

let measureContext: CanvasRenderingContext2D | null | undefined;

/**
 * Widths (px) of the grid's columns: the widest of the header's name and type and of the first rows'
 * texts, measured on a canvas in the grid's font, between 60 and 400 (no layout forced: nothing is
 * measured in the DOM).
 */
export function columnWidths(cols: ResultColumn[], rows: CellValue[][]): number[] {
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
