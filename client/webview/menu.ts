/**
 * The grid's context menu: Copy Cell, Copy Row and Copy Selection as TSV, CSV or JSON. One menu at a
 * time; it closes on a choice, Escape, a click elsewhere or a scroll. Labels go in as text.
 */
import type { CopyFormat } from '../../common/src/results/messages';
import { el } from './tab';

type What = 'cell' | 'row' | 'selection';
const ITEMS: ([label: string, format: CopyFormat, what: What] | null)[] = [
  ['Copy Cell', 'tsv', 'cell'],
  null,
  ['Copy Row as TSV', 'tsv', 'row'],
  ['Copy Row as CSV', 'csv', 'row'],
  ['Copy Row as JSON', 'json', 'row'],
  null,
  ['Copy Selection as TSV', 'tsv', 'selection'],
  ['Copy Selection as CSV', 'csv', 'selection'],
  ['Copy Selection as JSON', 'json', 'selection'],
];

let open: HTMLElement | undefined;

/** Closes the open menu, if any. */
export function closeMenu(): void {
  open?.remove();
  open = undefined;
}

/** Opens the menu at (x, y) px of the page; `choose` runs with the item chosen. */
export function openMenu(x: number, y: number, choose: (format: CopyFormat, what: What) => void): void {
  closeMenu();
  const menu = el('div', 'vgrid-menu');
  menu.setAttribute('role', 'menu');
  for (const item of ITEMS) {
    if (!item) {
      menu.append(el('div', 'vgrid-menu-separator'));
      continue;
    }
    const b = el('button', 'vgrid-menu-item', item[0]);
    b.type = 'button';
    b.setAttribute('role', 'menuitem');
    b.addEventListener('click', () => {
      closeMenu();
      choose(item[1], item[2]);
    });
    menu.append(b);
  }
  document.body.append(menu);
  menu.style.left = `${Math.max(0, Math.min(x, window.innerWidth - menu.offsetWidth))}px`;
  menu.style.top = `${Math.max(0, Math.min(y, window.innerHeight - menu.offsetHeight))}px`;
  open = menu;
  (menu.querySelector('button') as HTMLButtonElement | null)?.focus();
}

document.addEventListener('mousedown', (e) => {
  if (open && !open.contains(e.target as Node)) closeMenu();
}, true);
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') closeMenu();
});
window.addEventListener('blur', closeMenu);
