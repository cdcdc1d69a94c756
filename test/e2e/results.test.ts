/**
 * End-to-end test of Run Query and the results panel in a real VS Code (code-server in Chromium)
 * against the demo emulator. The in-host suite (suites/results.js) connects, checks the ▶ Run
 * CodeLens and a run by command; then, through the UI of results.tsq: Ctrl+Enter runs the query under
 * the cursor and the grid shows the rows and the row count searchdata answers (compared with a direct
 * call of the service); a 25,000-row answer reaches the grid page by page, and header sort and filter
 * cover all its rows; the chart tab draws; Export CSV writes a file equal to the answer; values such
 * as `<img src=x onerror=alert(1)>` and `</script>` render as text; Cancel stops a query the emulator
 * holds back (TSQ_EMULATOR_DELAY_SEARCHDATA) and aborts its request; a searchdata error shows the
 * service's message in the panel and in the Problems panel; Show Data on a pinboard shows a tab per
 * visualization. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import type { Frame, Page } from 'playwright-core';
import { AnalyticsServiceClient, ServiceError } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';
import { ServiceCatalog } from '../../common/src/catalog';
import { formatCell, formatNumber } from '../../common/src/results/format';
import { describeColumns, type CellValue } from '../../common/src/results/shape';
import { e2eSkip, exactText, startSession, waitUntil, type E2eSession, tsqLogs } from './harness';
import { reportInHost } from './report';

/** The slow query's text holds this; the emulator delays its searchdata by SLOW_MS. */
const SLOW_MARK = '[Miles_per_Gallon]';
const SLOW_MS = 120_000;
const HOSTILE = ['<img src=x onerror=alert(1)>', '</script>'];

/** What the active tab of the results webview shows. */
interface PanelView {
  tabId: string;
  state: string;
  rows: number;
  status: string;
  error: string;
  headers: string[];
  cells: string[][];
  tabs: string[];
}

/**
 * Answers VS Code's save dialog (a quick input in code-server) with `target` and returns the text of
 * the file once written. The dialog fills in its default path (ending in `ext`) a moment after it
 * shows: ours is typed once it did.
 */
async function saveAs(page: Page, target: string, ext: string): Promise<string> {
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await waitUntil(async () => (await input.inputValue()).endsWith(ext), 'the save dialog\'s default path', 10_000);
  await waitUntil(async () => {
    await input.fill(target);
    return (await input.inputValue()) === target;
  }, 'the save dialog to hold the target path', 10_000);
  await page.keyboard.press('Enter');
  return waitUntil(() => (existsSync(target) && statSync(target).size > 0 ? readFileSync(target, 'utf8') : undefined), `${target} to be written`, 30_000);
}

/** Clicks the row of the open quick pick whose label is `label` (the click waits `clickTimeoutMs`, default playwright's 30 s). */
async function pickQuickRow(page: Page, label: string, clickTimeoutMs?: number): Promise<void> {
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: exactText(label) }) }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click(clickTimeoutMs ? { timeout: clickTimeoutMs } : undefined);
}

async function panelView(frame: Frame): Promise<PanelView | undefined> {
  return frame.evaluate(() => {
    const body = document.querySelector<HTMLElement>('.tab-body.active');
    if (!body) return undefined;
    const rows = [...body.querySelectorAll('.vgrid-row:not([hidden])')].map((r) => [...r.querySelectorAll('.vgrid-cell[data-col]')].map((c) => c.textContent ?? ''));
    const error = body.querySelector<HTMLElement>('.error');
    return {
      tabId: body.dataset.tabId ?? '',
      state: body.dataset.state ?? '',
      rows: Number(body.dataset.rows ?? 0),
      status: body.querySelector('.status')?.textContent ?? '',
      error: error && !error.hidden ? error.textContent ?? '' : '',
      headers: [...body.querySelectorAll('.vgrid-col .col-name')].map((h) => h.textContent ?? ''),
      cells: rows,
      tabs: [...document.querySelectorAll('.tab')].map((t) => t.textContent ?? ''),
    };
  });
}

test('results: run, grid, chart, export, hostile values, cancel, errors and pinboard data in a real VS Code', { skip: e2eSkip(['dist/emulator.js', 'dist/webview.js']), timeout: 900_000 }, async (t) => {
  process.env.TSQ_EMULATOR_DELAY_SEARCHDATA = `${SLOW_MS}:${SLOW_MARK}`;
  let session: E2eSession;
  try {
    // this file tests the results editor tab beside the query; resultsLocation.test.ts the bottom panel
    session = await startSession({ name: 'results', suite: 'results.js', emulator: true, settings: { 'tsq.results.location': 'beside' } });
  } finally {
    delete process.env.TSQ_EMULATOR_DELAY_SEARCHDATA;
  }
  const client = new AnalyticsServiceClient({ url: session.emulatorUrl!, username: 'tsadmin', password: 'admin' });
  const page = session.page;
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  try {
    // hostile values reach the service as data, through the data-load API
    const csv = `${HOSTILE[0]},20,4,100,90,2000,15,1980-01-01,${HOSTILE[1]}\n${HOSTILE[1]},21,4,100,91,2000,15,1980-01-01,"<b>bold</b>"\n`;
    const load = await runLoad(client, { stream: Readable.from([Buffer.from(csv)]) }, { target: { database: 'demo', table: 'cars' }, format: { type: 'CSV', has_header_row: false, date_time: { converted_to_epoch: false, date_format: '%Y-%m-%d' } } }, { pollIntervalMs: 50 });
    assert.equal(load.status.rowsWritten, 2, JSON.stringify(load.status));

    await reportInHost(t, session, 3);

    const tables = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
    const flights = tables.find((h) => h.name === 'flights')!;
    const cars = tables.find((h) => h.name === 'cars')!;
    const flightColumns = (await new ServiceCatalog(client).columns(flights.id))!.columns;

    let frame: Frame | undefined;
    /** Puts the cursor on the line holding `text` and presses Ctrl+Enter. */
    const runLine = async (text: string): Promise<void> => {
      await session.openFile('results.tsq');
      const line = page.locator('.editor-group-container .monaco-editor .view-line', { hasText: text }).first();
      await line.waitFor({ state: 'visible', timeout: 10_000 });
      await line.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Control+Enter');
    };
    /** Waits until the results webview's active tab satisfies `until` (a new tab unless `sameTab`). */
    const view = async (until: (v: PanelView) => boolean, previous?: string, timeoutMs = 60_000): Promise<PanelView> => {
      frame ??= await session.webviewFrame('.tab-body', timeoutMs);
      return waitUntil(async () => {
        const v = await panelView(frame!);
        return v && v.tabId !== previous && until(v) ? v : undefined;
      }, 'the results panel', timeoutMs, 100);
    };

    let lastTab: string | undefined;
    await t.test('Ctrl+Enter runs the query under the cursor; the grid shows the rows and the row count searchdata returns', () => session.step('run', async () => {
      const query = '[date] [origin] [destination] [delay] [distance] top 1000';
      const direct = await client.searchData({ queryString: query, dataSourceGuid: flights.id, batchSize: 10_000, pageNumber: 1 });
      // the in-host suite's Run Query left its answer (10 rows) in the panel: the tab to wait for is
      // another one, or that answer passes for this run's when the run has not replaced it yet
      const shown = await session.webviewFrame('.tab-body', 10_000).then(async (f) => {
        frame = f;
        return (await panelView(f))?.tabId;
      }, () => undefined);
      await runLine(query);
      const v = await view((x) => x.state === 'done' && x.cells.length >= 5, shown);
      lastTab = v.tabId;
      assert.equal(v.rows, direct.data.length);
      assert.ok(v.status.startsWith(`${direct.data.length.toLocaleString('en-US')} of ${direct.totalRowCount.toLocaleString('en-US')} rows`), v.status);
      assert.match(v.status, /sampling 100%/);
      assert.deepEqual(v.headers, direct.columnNames);
      const cols = describeColumns(direct.columnNames, direct.data as CellValue[][], flightColumns);
      const expected = (direct.data as CellValue[][]).slice(0, 5).map((r) => r.map((x, i) => formatCell(x, cols[i])));
      assert.deepEqual(v.cells.slice(0, 5), expected);
      assert.match(v.cells[0][0], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'dates show as dates');
    }));

    await t.test('a 25,000-row answer streams page by page and every row reaches the grid', () => session.step('pages', async () => {
      const query = '[date] [origin] [destination] [delay] [distance] top 25000';
      const direct = await client.searchData({ queryString: query, dataSourceGuid: flights.id, batchSize: -1 });
      assert.equal(direct.data.length, 25_000);
      await runLine(query);
      const v = await view((x) => x.state === 'done' && x.rows === 25_000, lastTab, 120_000);
      lastTab = v.tabId;
      // the grid holds them all (pages go into it at most once a second): scroll to its end and
      // read the last row's number and cells
      await waitUntil(() => frame!.evaluate(() => document.querySelector<HTMLElement>('.tab-body.active')!.dataset.gridRows === '25000'), 'all 25,000 rows in the grid', 30_000);
      const last = await waitUntil(() => frame!.evaluate(() => {
        const holder = document.querySelector<HTMLElement>('.tab-body.active .vgrid-scroll')!;
        holder.scrollTop = holder.scrollHeight;
        const rows = [...document.querySelectorAll('.tab-body.active .vgrid-row:not([hidden])')];
        const row = rows.find((r) => r.querySelector('.vgrid-cell.row-num')?.textContent?.trim() === '25000');
        return row ? [...row.querySelectorAll('.vgrid-cell[data-col]')].map((c) => c.textContent ?? '') : undefined;
      }), 'the row numbered 25000 in the grid', 30_000, 200);
      const cols = describeColumns(direct.columnNames, direct.data as CellValue[][], flightColumns);
      assert.deepEqual(last, (direct.data[24_999] as CellValue[]).map((x, i) => formatCell(x, cols[i])));

      // header sort and filter reach every row, those added to the grid page by page too: sorted by
      // delay, the row numbered 1 holds the smallest delay; filtered by an origin, the last row's
      // number is the count of rows of that origin and every row shown has it
      const data = direct.data as CellValue[][];
      const numbered = (n: number, scrollToEnd: boolean) => frame!.evaluate(({ n, scrollToEnd }) => {
        const holder = document.querySelector<HTMLElement>('.tab-body.active .vgrid-scroll')!;
        holder.scrollTop = scrollToEnd ? holder.scrollHeight : 0;
        const rows = [...document.querySelectorAll('.tab-body.active .vgrid-row:not([hidden])')].map((r) => ({
          number: Number(r.querySelector('.vgrid-cell.row-num')?.textContent?.trim()),
          cells: [...r.querySelectorAll('.vgrid-cell[data-col]')].map((c) => c.textContent ?? ''),
        }));
        const row = rows.find((r) => r.number === n);
        return row ? { row: row.cells, shown: rows.map((r) => r.cells) } : undefined;
      }, { n, scrollToEnd });
      const smallest = Math.min(...data.map((r) => r[3]).filter((x): x is number => typeof x === 'number'));
      await frame!.locator('.tab-body.active .vgrid-col[data-col="3"] .vgrid-sorter').click();
      await waitUntil(async () => (await numbered(1, false))?.row[3] === formatCell(smallest, cols[3]), `the smallest delay (${smallest}) in row 1 once sorted`, 30_000, 200);
      const origin = String(data[24_999][1]);
      const ofOrigin = data.filter((r) => formatCell(r[1], cols[1]).toLowerCase().includes(origin.toLowerCase())).length;
      assert.ok(ofOrigin > 0 && ofOrigin < 25_000, `${ofOrigin} rows of ${origin}`);
      await frame!.locator('.tab-body.active .vgrid-col[data-col="1"] .vgrid-filter').pressSequentially(origin); // the filter listens to keys
      const end = await waitUntil(() => numbered(ofOrigin, true), `row ${ofOrigin}, the last of origin ${origin}`, 30_000, 200);
      assert.ok(end.shown.every((cells) => cells[1].toLowerCase().includes(origin.toLowerCase())), JSON.stringify(end.shown.slice(0, 5)));
      assert.equal(await numbered(ofOrigin + 1, true), undefined, 'no row past the filtered count');
      const status = (await panelView(frame!))?.status ?? '';
      assert.ok(status.includes(`${formatNumber(ofOrigin)} match the filter`), status);
    }));

    await t.test('the chart tab draws a chart chosen from the answer', () => session.step('chart', async () => {
      await runLine('[date].monthly [distance]');
      const v = await view((x) => x.state === 'done', lastTab);
      lastTab = v.tabId;
      await frame!.locator('.tab-body.active .chart-btn').click();
      const drawn = await waitUntil(() => frame!.evaluate(() => {
        const body = document.querySelector<HTMLElement>('.tab-body.active')!;
        const canvas = body.querySelector('canvas');
        if (!canvas || !canvas.width || !canvas.height) return undefined;
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return painted > 500 ? { kind: body.dataset.chartKind, painted, options: [...body.querySelectorAll('.chart-kind option')].map((o) => (o as HTMLOptionElement).value) } : undefined;
      }), 'a drawn chart');
      assert.equal(drawn.kind, 'line', 'a line over a date bucket');
      assert.deepEqual(drawn.options, ['line', 'bar']);
      await frame!.locator('.tab-body.active .chart-kind').selectOption('bar');
      await waitUntil(() => frame!.evaluate(() => document.querySelector<HTMLElement>('.tab-body.active')!.dataset.chartKind === 'bar'), 'the switch to bars');
      await frame!.locator('.tab-body.active .grid-btn').click();
    }));

    await t.test('Export CSV writes a file equal to the answer', () => session.step('export', async () => {
      const query = '[origin] [delay] top 10';
      await runLine(query);
      const v = await view((x) => x.state === 'done' && x.rows === 10, lastTab);
      lastTab = v.tabId;
      const target = join(session.workspace, 'exported-answer.csv');
      await frame!.locator('.tab-body.active .export-csv').click();
      const text = await saveAs(page, target, '.csv');
      const direct = await client.searchData({ queryString: query, dataSourceGuid: flights.id });
      const records = parse(text) as string[][];
      assert.deepEqual(records, [direct.columnNames, ...(direct.data as CellValue[][]).map((r) => r.map((x) => (x === null ? '' : String(x))))]);
    }));

    await t.test('hostile values render as text, never as HTML', () => session.step('hostile', async () => {
      await runLine("[Name] [Origin] [Horsepower] [Name] = '<img");
      const v = await view((x) => x.state === 'done' && x.rows === 2 && x.cells.length === 2, lastTab);
      lastTab = v.tabId;
      const direct = await client.searchData({ queryString: `[Name] [Origin] [Horsepower] [Name] = '${HOSTILE[0]}', '${HOSTILE[1]}'`, dataSourceGuid: cars.id });
      assert.equal(direct.data.length, 2);
      const shown = v.cells.flat();
      for (const h of [...HOSTILE, '<b>bold</b>']) assert.ok(shown.includes(h), `${h} shows as text: ${JSON.stringify(v.cells)}`);
      const injected = await frame!.evaluate(() => ({
        img: document.querySelectorAll('img').length,
        b: document.querySelectorAll('.vgrid-cell b').length,
        onerror: document.querySelectorAll('[onerror]').length,
        scriptsWithValues: [...document.scripts].filter((s) => /alert|onerror/.test(s.textContent ?? '')).length,
      }));
      assert.deepEqual(injected, { img: 0, b: 0, onerror: 0, scriptsWithValues: 0 });
      const violations = await frame!.evaluate(() => document.getElementById('app')!.dataset.cspViolations ?? '');
      assert.equal(violations, '', 'no Content-Security-Policy violation in the panel');
      assert.deepEqual(dialogs, [], 'no alert ran');
    }));

    await t.test('Cancel stops a slow query and aborts its request', () => session.step('cancel', async () => {
      await runLine(`[Name] ${SLOW_MARK} [Origin] = 'USA'`);
      const v = await view((x) => x.state === 'loading', lastTab);
      lastTab = v.tabId;
      const clicked = Date.now();
      await frame!.locator('.tab-body.active .cancel').click();
      const after = await view((x) => x.tabId === v.tabId && x.state === 'cancelled', undefined, 30_000);
      assert.ok(Date.now() - clicked < SLOW_MS / 2, 'stopped long before the service would answer');
      assert.match(after.status, /cancelled/);
      const logs = await waitUntil(() => {
        const text = tsqLogs(session);
        return /POST \S*searchdata ERR/.test(text) && /Query cancelled/.test(text) ? text : undefined;
      }, 'the TSQ log to show the aborted searchdata request', 30_000);
      assert.match(logs, /Query cancelled after \d+ ms/);
    }));

    await t.test("a searchdata error shows the service's message in the panel, and no second problem beside the local one", () => session.step('error', async () => {
      const query = '[origin] [no such column]';
      const message = await client.searchData({ queryString: query, dataSourceGuid: flights.id }).then(() => '', (e: unknown) => (e instanceof ServiceError ? e.serviceMessage : String(e)));
      assert.ok(message, 'the service refuses the query');
      // the query has a local error (the unknown column), so it is held back until Run Anyway sends it
      await runLine(query);
      await session.notificationAction('the query was not sent', 'Run Anyway');
      const v = await view((x) => x.state === 'error', lastTab);
      lastTab = v.tabId;
      assert.ok(v.error.includes(message), `${JSON.stringify(v.error)} includes ${JSON.stringify(message)}`);
      // one mistake, one problem: the local unknown-column problem stands, the service's refusal is not added beside it
      const rows = await session.problems((r) => r.some((x) => x.includes('no such column')));
      assert.ok(!rows.some((x) => /TSQ \(service\)/.test(x)), JSON.stringify(rows));
    }));

    await t.test('Show Data on a pinboard shows each visualization as its own tab', () => session.step('pinboard', async () => {
      const pinboards = await client.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', batchSize: -1 });
      const board = pinboards.find((p) => p.name === 'Flight Operations')!;
      const data = await client.pinboardData({ id: board.id });
      const names = Object.values(data).map((d) => d.name);
      await session.treeItems('TSQ', (r) => r.includes('Liveboards'));
      const rows = await session.treeItems('TSQ', (r) => r.includes('Liveboards'));
      if (!rows.includes('Flight Operations')) await session.toggleTreeItem('Liveboards');
      await session.treeItems('TSQ', (r) => r.includes('Flight Operations'));
      const item = page.locator('.sidebar .monaco-list-row[role="treeitem"]', { hasText: 'Flight Operations' }).first();
      const boardFrame = async (): Promise<Frame | undefined> => {
        for (const f of page.frames()) {
          const titles = await f.evaluate(() => [...document.querySelectorAll('.tab')].map((x) => x.textContent)).catch(() => [] as string[]);
          if (names.every((n) => titles.includes(n))) return f;
        }
        return undefined;
      };
      // Show Data from the row's context menu (the same command as the row's inline button). The inline
      // button shows only while the row is hovered: a re-render of the tree between the hover and the
      // click took it away, the click was lost, and the step timed out. A right-click needs no hover and
      // hands VS Code the row's element when the menu opens, so a later re-render cannot take it back.
      // The menu's entry is clicked until the menu closes (a menu ignores a click that comes right after
      // it opened); a menu that a re-render closed first is opened again. A click that reaches the command
      // with no tree element is the bug this step once timed out on: a root refresh of the tree (when
      // "Users & Groups" appeared) dropped the element handles of the rows being expanded, so every click
      // gave `undefined`. The step fails at once on it, naming it, instead of clicking until a timeout.
      const editorTab = page.locator('.tabs-container .tab', { hasText: 'Data: Flight Operations' }).first();
      const entry = page.locator('.context-view .action-item', { has: page.locator('.action-label', { hasText: exactText('Show Data') }) }).first();
      const orphaned = () => tsqLogs(session).includes('Show Data: not an answer, a Liveboard or a visualization of one: undefined');
      const chosen = async (): Promise<boolean> => {
        await page.keyboard.press('Escape');
        const opened = await item.click({ button: 'right', timeout: 5_000 }).then(() => entry.waitFor({ state: 'visible', timeout: 5_000 })).then(() => true, () => false);
        if (!opened) return false;
        for (let i = 0; i < 15 && (await entry.isVisible()); i++) await entry.click({ timeout: 1_000 }).catch(() => undefined);
        return !(await entry.isVisible());
      };
      const outcome = await waitUntil(async () => {
        if (!(await chosen())) return undefined;
        return editorTab.waitFor({ state: 'attached', timeout: 10_000 }).then(() => 'opened', () => (orphaned() ? 'orphaned' : undefined));
      }, 'Show Data to open the pinboard panel', 60_000);
      assert.equal(outcome, 'opened', 'Show Data was given no tree element: the row is shown but its handle is gone');
      const found = await waitUntil(boardFrame, `a panel with the tabs ${names.join(', ')}`, 90_000);
      const first = await waitUntil(async () => {
        const v = await panelView(found);
        return v && v.state === 'done' ? v : undefined;
      }, 'the first visualization to load');
      const firstViz = Object.values(data)[0];
      assert.equal(first.rows, firstViz.data.length);
      assert.deepEqual(first.headers, firstViz.columnNames);

      // TSQ: Export Results… from the palette exports the tab on screen, as JSON when asked
      const second = Object.values(data)[1];
      await found.locator('button.tab', { hasText: second.name }).first().click();
      await waitUntil(async () => {
        const v = await panelView(found);
        return v && v.state === 'done' && v.headers.join() === second.columnNames.join() ? v : undefined;
      }, 'the second visualization on screen');
      const target = join(session.workspace, 'exported-visualization.json');
      // the quick pick closes when the workbench hands the focus back to the panel just clicked (seen
      // once in CI: the row was found, then hidden): open it again, up to three times
      for (let attempt = 1; ; attempt++) {
        await session.runCommand('TSQ: Export Results');
        try {
          await pickQuickRow(page, 'json', 5_000);
          break;
        } catch (e) {
          if (attempt === 3) throw e;
          await page.keyboard.press('Escape');
        }
      }
      const text = await saveAs(page, target, '.json');
      const exported = JSON.parse(text) as Record<string, unknown>[];
      assert.equal(exported.length, second.data.length);
      assert.deepEqual(Object.keys(exported[0] ?? {}), second.columnNames);
    }));
  } finally {
    await client.close();
    await session.close();
  }
});
