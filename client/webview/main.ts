/**
 * The results webview (browser code, bundled by esbuild into dist/webview.js as an IIFE). Tabs of answers,
 * each with a grid (grid.ts: a virtual grid over a columnar store, sort and filter over all rows, resize,
 * range selection) and a chart (chart.js; no eval, styles through the CSSOM only).
 * Rows arrive page by page (common/src/results/messages.ts) into the tab's ColumnStore (only the rows on
 * screen are DOM). Values and names go into the DOM as text, never as HTML; Copy and Export go through
 * the host, from the data. A tab's first rows stay in `setState`, so a panel restored after a reload shows
 * them. In the TSQ Results view (`<body data-location="panel">`, client/src/results/view.ts) every tab belongs
 * to a group (one document's runs): a run replaces its group's tabs only, each tab has a Pin action for
 * its group, and a Messages tab lists every run (rows, time, the service's message). The view keeps no
 * state of its own: its host replays the Messages when it is resolved again.
 */
import './results.css';
import { formatNumber } from '../../common/src/results/format';
import { ColumnStore } from '../../common/src/results/columnar';
import type { CellValue, ChartKind, ResultColumn } from '../../common/src/results/shape';
import { drawChart } from './chart';
import { columnWidths } from './columns';
import { appendPage, dropGrid, gridFilled, nextTask } from './feed';
import { VirtualGrid } from './grid';
import { button, el, mark, updateStatus, type Tab } from './tab';
import { runLogText, unpackPage, type HostMessage, type RunLogEntry, type WebviewMessage, type WebviewProbe } from '../../common/src/results/messages';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

/** Rows kept per tab in the webview state for a restored panel. */
const STATE_ROWS = 1000;

const tabs = new Map<string, Tab>();
let activeTab: string | undefined;
let pinned = false;
/** In the TSQ Results view: true (tabs grouped per document, a Messages tab). */
const inView = document.body.dataset.location === 'panel';
/** The view's group of each tab, and the groups pinned. */
const tabGroup = new Map<string, string>();
const pinnedGroups = new Set<string>();
/** The Messages tab is the one shown. */
let messagesActive = false;

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
bar.append(tabList);
if (!inView) bar.append(pinBtn);
const bodies = el('div', 'bodies');
const empty = el('div', 'empty', 'Run a query (Ctrl/Cmd+Enter in a .tsq file) to see its answer here.');
app.append(bar, bodies, empty);

// the Messages tab of the view: a line per run, newest last
const messagesBtn = inView ? el('button', 'tab messages-tab', 'Messages') : undefined;
const messagesBody = el('section', 'tab-body messages-body');
const messagesList = el('ol', 'messages-list');
if (messagesBtn) {
  messagesBtn.type = 'button';
  messagesBtn.setAttribute('role', 'tab');
  messagesBtn.title = 'Every run: its rows, its time and the service\'s messages';
  messagesBtn.addEventListener('click', () => activateMessages());
  messagesBody.dataset.tabId = 'messages';
  messagesBody.append(messagesList);
  tabList.append(messagesBtn);
  bodies.append(messagesBody);
}

/** Shows the Messages tab. */
function activateMessages(): void {
  messagesActive = true;
  for (const t of tabs.values()) {
    t.els.body.classList.remove('active');
    t.els.button.classList.remove('active');
    t.els.button.setAttribute('aria-selected', 'false');
  }
  messagesBody.classList.add('active');
  messagesBtn?.classList.add('active');
  messagesBtn?.setAttribute('aria-selected', 'true');
  empty.hidden = true;
}

/** Adds a run's line to the Messages tab. */
function addLog(entry: RunLogEntry): void {
  const li = el('li', 'message-row', runLogText(entry));
  li.dataset.outcome = entry.outcome;
  li.dataset.rows = String(entry.rows);
  li.dataset.elapsedMs = String(entry.elapsedMs);
  messagesList.append(li);
  li.scrollIntoView({ block: 'nearest' });
}

/** Shows the pin state of a group on its tabs (their Pin actions pressed, a 📌 before their titles). */
function showGroupPinned(group: string): void {
  const on = pinnedGroups.has(group);
  for (const t of tabs.values()) {
    if (tabGroup.get(t.tabId) !== group) continue;
    t.els.button.textContent = `${on ? '📌 ' : ''}${t.title}`;
    t.els.button.dataset.pinned = String(on);
    const pin = t.els.button.nextElementSibling;
    if (pin instanceof HTMLButtonElement && pin.classList.contains('tab-pin')) {
      pin.classList.toggle('active', on);
      pin.setAttribute('aria-pressed', String(on));
      pin.title = on ? 'Unpin: the next run of this document replaces these results' : 'Pin: keep these results; the next run of this document opens a new tab';
    }
  }
}

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
  tabList.insertBefore(btn, messagesBtn ?? null);
  bodies.append(body);
  const tab: Tab = {
    tabId, title, store: new ColumnStore(0), totalRowCount: 0, samplingRatio: 1, elapsedMs: 0, loading: true, limited: false, view: 'grid', gridRows: 0, marks: {}, chartStale: true, painted: false,
    els: { button: btn, body, status, error, grid, chart, canvasBox, number, kind, note, cancel, gridBtn, chartBtn },
  };
  tabs.set(tabId, tab);
  empty.hidden = true;
  return tab;
}

/** Removes a tab: its grid, chart, button (and Pin action) and body. */
function removeTab(t: Tab): void {
  dropGrid(t);
  t.chart?.destroy();
  const pin = t.els.button.nextElementSibling;
  if (pin?.classList.contains('tab-pin')) pin.remove();
  t.els.button.remove();
  t.els.body.remove();
  tabs.delete(t.tabId);
  tabGroup.delete(t.tabId);
  if (activeTab === t.tabId) activeTab = undefined;
}

/** Removes every tab (in the view: every tab of `group`). */
function removeAllTabs(group?: string): void {
  for (const t of [...tabs.values()]) if (group === undefined || tabGroup.get(t.tabId) === group) removeTab(t);
  if (!tabs.size) empty.hidden = messagesActive;
}

function activate(tabId: string): void {
  if (activeTab !== tabId || messagesActive) vscode.postMessage({ type: 'activeTab', tabId });
  activeTab = tabId;
  messagesActive = false;
  messagesBody.classList.remove('active');
  messagesBtn?.classList.remove('active');
  messagesBtn?.setAttribute('aria-selected', 'false');
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
    else t.grid?.redraw();
  }
}

function setView(t: Tab, view: 'grid' | 'chart'): void {
  t.view = view;
  t.els.grid.hidden = view !== 'grid';
  t.els.chart.hidden = view !== 'chart';
  t.els.gridBtn.classList.toggle('active', view === 'grid');
  t.els.chartBtn.classList.toggle('active', view === 'chart');
  if (view === 'chart') drawChart(t);
  else t.grid?.redraw();
}

// ---- grid ----

/** Makes the tab's grid, when it is the active tab and has columns; the grid shows from the tab's store. */
function ensureGrid(t: Tab): void {
  if (t.grid || !t.columns || activeTab !== t.tabId) return;
  const widths = columnWidths(t.columns, t.store.rows(0, 200));
  t.grid = new VirtualGrid(t.els.grid, t.store, t.columns, widths, {
    copy: (format, columns, rows) => vscode.postMessage({ type: 'copy', format, columns, rows }),
    viewChanged: (ms) => {
      t.els.body.dataset.viewMs = String(Math.round(ms));
      t.els.body.dataset.viewRows = String(t.grid?.view.length ?? 0);
      updateStatus(t);
    },
  });
  gridFilled(t);
  mark(t, 'tableBuilt');
  if (!t.painted) reportPaint(t);
}

/** Tells the host when the first rows are on screen (next frames after a row element exists). */
function reportPaint(t: Tab): void {
  const started = performance.now();
  const check = (): void => {
    if (t.els.grid.querySelector('.vgrid-row:not([hidden])') || t.store.length === 0) {
      // the frame with the rows is painted when the task after its animation frame runs
      nextTask(() => {
        t.painted = true;
        if (t.startedAt !== undefined) t.els.body.dataset.firstPaintMs = String(Date.now() - t.startedAt);
        mark(t, 'painted');
        vscode.postMessage({ type: 'painted', tabId: t.tabId, rows: t.els.grid.querySelectorAll('.vgrid-row:not([hidden])').length });
      });
    } else if (performance.now() - started < 30_000) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

// ---- state ----

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveState(): void {
  if (inView) return;
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    vscode.setState({
      active: activeTab,
      tabs: [...tabs.values()].map((t) => ({
        tabId: t.tabId, title: t.title, query: t.query, columns: t.columns, rows: t.store.rows(0, STATE_ROWS), totalRowCount: t.totalRowCount,
        samplingRatio: t.samplingRatio, elapsedMs: t.elapsedMs, error: t.error, cancelled: t.cancelled, limited: t.limited,
      })),
    });
  }, 300);
}

interface SavedTab { tabId: string; title: string; query?: string; columns?: ResultColumn[]; rows: CellValue[][]; totalRowCount: number; samplingRatio: number; elapsedMs: number; error?: string; cancelled?: boolean; limited: boolean }

function restore(): void {
  if (inView) return;
  const st = vscode.getState() as { active?: string; tabs?: SavedTab[] } | undefined;
  if (!st?.tabs?.length) return;
  for (const s of st.tabs) {
    const t = makeTab(s.tabId, s.title);
    const store = new ColumnStore(s.columns?.length ?? 0);
    store.append(s.rows ?? []);
    Object.assign(t, { query: s.query, columns: s.columns, store, totalRowCount: s.totalRowCount, samplingRatio: s.samplingRatio, elapsedMs: s.elapsedMs, error: s.error, cancelled: s.cancelled, limited: s.limited, loading: false, restored: true });
    if (s.error) showError(t, s.error);
    t.els.note.hidden = false;
    t.els.note.textContent = `Restored after a reload: the first ${formatNumber(t.store.length)} rows are kept. Run the query again for the whole answer.`;
    updateStatus(t);
  }
  activate(st.active && tabs.has(st.active) ? st.active : st.tabs[0].tabId);
}

function showError(t: Tab, message: string): void {
  t.els.error.hidden = false;
  t.els.error.textContent = message;
  // a failed tab has no answer to chart or export
  for (const b of t.els.body.querySelectorAll<HTMLButtonElement>('.chart-btn, .export-csv, .export-json')) b.disabled = true;
}

/** A tab starts (`start`): in the view, in its group, with the group's Pin action beside it. */
function startTab(m: Extract<HostMessage, { type: 'start' }>): void {
  if (m.replace) removeAllTabs(m.group);
  const old = tabs.get(m.tabId);
  if (old) removeTab(old);
  const t = makeTab(m.tabId, m.group !== undefined && m.groupTitle ? `${m.groupTitle} · ${m.title}` : m.title);
  if (m.group !== undefined) {
    const group = m.group;
    tabGroup.set(m.tabId, group);
    t.els.button.dataset.group = group;
    const pin = button('📌', '', () => vscode.postMessage({ type: 'pin', group }), 'tab-pin');
    t.els.button.after(pin);
    showGroupPinned(group);
  }
  t.query = m.query;
  t.dataSource = m.dataSource;
  t.startedAt = m.startedAt;
  t.els.button.title = m.query ? `${m.query}${m.dataSource ? `\n@datasource ${m.dataSource}` : ''}` : m.title;
  setView(t, 'grid');
  updateStatus(t);
  if (!activeTab || m.replace) activate(t.tabId);
}

// ---- messages ----

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  if (!m || typeof m !== 'object') return;
  switch (m.type) {
    case 'start':
      startTab(m);
      break;
    case 'columns': {
      const t = tabs.get(m.tabId);
      if (!t) break;
      t.columns = m.columns;
      t.totalRowCount = m.totalRowCount;
      t.samplingRatio = m.samplingRatio;
      t.elapsedMs = m.elapsedMs;
      t.loading = !m.done;
      t.limited = m.limited;
      t.store = new ColumnStore(m.columns.length, m.expectedRows);
      t.store.append(m.rows);
      t.chartStale = true;
      mark(t, 'hostFirstPage', m.elapsedMs);
      mark(t, 'columns');
      dropGrid(t); // a tab's answer starts again: a new grid for it
      updateStatus(t);
      ensureGrid(t);
      gridFilled(t);
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
      const page = unpackPage(m.packed);
      appendPage(t, page);
      if (m.done) {
        mark(t, 'hostDone', m.elapsedMs);
        mark(t, 'lastRows');
      }
      updateStatus(t);
      if (t.view === 'chart' && (m.done || t.store.length % 50_000 < page.length)) drawChart(t);
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
      if (m.group !== undefined) {
        if (m.pinned) pinnedGroups.add(m.group);
        else pinnedGroups.delete(m.group);
        showGroupPinned(m.group);
        break;
      }
      pinned = m.pinned;
      pinBtn.textContent = pinned ? 'Unpin' : 'Pin';
      pinBtn.classList.toggle('active', pinned);
      break;
    case 'log':
      addLog(m.entry);
      break;
    case 'probe': {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      const state: WebviewProbe = {
        activeTab,
        tabs: [...tabs.values()].map((t) => ({ tabId: t.tabId, title: t.title, rows: t.store.length, status: t.els.status.textContent ?? '', error: t.error, chartKind: t.els.body.dataset.chartKind as ChartKind | undefined })),
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
    if (!t?.grid) return;
    e.preventDefault();
    t.grid.copy(e.shiftKey ? 'csv' : 'tsv', 'selection');
  }
});

restore();
vscode.postMessage({ type: 'ready' });
