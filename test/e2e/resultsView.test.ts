/**
 * End-to-end test of how the results grid, chart and export read, in a real VS Code (code-server in
 * Chromium) against the demo emulator. The in-host suite (suites/results.js) connects; then, through the
 * UI of a `.tsq` file written into the workspace: each header's tooltip holds the column's full name, a
 * header's default width shows its whole name, a column narrowed by its resize handle fits its header
 * again on a double-click of that handle; the chart (chart.js, its options read back from the drawn
 * chart) titles its axes with the answer's column names, shows a legend of the series of a colour-by
 * attribute and none for one series, and starts the y axis at 0 for a non-negative measure; Export CSV
 * offers a file named after the data source and the time, and the notification's Open opens the file
 * in an editor. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Frame } from 'playwright-core';
import { AnalyticsServiceClient } from '../../common/src/api';
import { e2eSkip, startSession, waitUntil, type E2eSession } from './harness';
import { reportInHost } from './report';

const FILE = 'results-view.tsq';
const GROUPED = "[date].monthly [distance] [origin] [origin] = 'SEA', 'PDX'";
const MONTHLY = '[date].monthly [distance]';
const TOP = '[origin] [delay] top 10';

/** The active results tab: its id, state and each header's shown name, tooltip and whether the name is cut. */
interface Headers {
  tabId: string;
  state: string;
  headers: { name: string; title: string; cut: boolean; width: number }[];
}

function readHeaders(frame: Frame): Promise<Headers | undefined> {
  return frame.evaluate(() => {
    const body = document.querySelector<HTMLElement>('.tab-body.active');
    if (!body) return undefined;
    return {
      tabId: body.dataset.tabId ?? '',
      state: body.dataset.state ?? '',
      headers: [...body.querySelectorAll<HTMLElement>('.vgrid-col[data-col]')].map((h) => {
        const name = h.querySelector<HTMLElement>('.col-name')!;
        return { name: name.textContent ?? '', title: h.querySelector<HTMLElement>('.col-title')?.title ?? '', cut: name.scrollWidth > name.clientWidth, width: h.getBoundingClientRect().width };
      }),
    };
  });
}

/** What the drawn chart says of itself (the canvas's data-* attributes, read from the chart.js instance after it rendered). */
function readChart(frame: Frame): Promise<Record<string, string> | undefined> {
  return frame.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('.tab-body.active canvas');
    return canvas && canvas.dataset.yMin !== undefined ? { ...canvas.dataset } as Record<string, string> : undefined;
  });
}

test('results view: header tooltips and widths, chart axes, legend and baseline, export name and Open in a real VS Code', { skip: e2eSkip(['dist/emulator.js', 'dist/webview.js']), timeout: 600_000 }, async (t) => {
  const session: E2eSession = await startSession({ name: 'results-view', suite: 'results.js', emulator: true });
  const client = new AnalyticsServiceClient({ url: session.emulatorUrl!, username: 'tsadmin', password: 'admin' });
  const page = session.page;
  try {
    await reportInHost(t, session, 3);
    // MONTHLY stands first: the GROUPED line holds its text too, and a run clicks the first line holding it
    writeFileSync(join(session.workspace, FILE), `@datasource 'flights'\n${MONTHLY}\n\n${GROUPED}\n\n${TOP}\n`);
    const tables = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
    const flights = tables.find((h) => h.name === 'flights')!;
    const columnsOf = async (query: string): Promise<string[]> => (await client.searchData({ queryString: query, dataSourceGuid: flights.id })).columnNames;

    // each .tsq file has its own results panel (a webview frame): the answer of a run is the tab, in
    // whichever frame, that was not there before it
    const answers = async (): Promise<{ frame: Frame; headers: Headers }[]> => {
      const out: { frame: Frame; headers: Headers }[] = [];
      for (const f of page.frames()) {
        if (f === page.mainFrame()) continue;
        const headers = await readHeaders(f).catch(() => undefined);
        if (headers) out.push({ frame: f, headers });
      }
      return out;
    };
    await session.webviewFrame('.tab-body', 60_000);
    const seen = new Set((await answers()).map((a) => a.headers.tabId));
    let frame!: Frame;
    /** Runs the query on the line holding `text` (Ctrl+Enter) and waits for its answer in a new tab. */
    const run = async (text: string): Promise<Headers> => {
      await session.openFile(FILE);
      const line = page.locator('.editor-group-container .monaco-editor .view-line', { hasText: text }).first();
      await line.waitFor({ state: 'visible', timeout: 10_000 });
      await line.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Control+Enter');
      const found = await waitUntil(async () => (await answers()).find((a) => !seen.has(a.headers.tabId) && a.headers.state === 'done' && a.headers.headers.length), `the answer of ${text}`, 60_000, 200);
      seen.add(found.headers.tabId);
      frame = found.frame;
      return found.headers;
    };

    let groupedNames: string[] = [];
    await t.test('each header shows its full name on hover and by default; a double-click on its edge fits it again', () => session.step('headers', async () => {
      groupedNames = await columnsOf(GROUPED);
      const h = await run(GROUPED);
      assert.deepEqual(h.headers.map((x) => x.name), groupedNames);
      assert.deepEqual(h.headers.map((x) => x.title.split('\n')[0]), groupedNames, 'the tooltip starts with the full name');
      assert.deepEqual(h.headers.filter((x) => x.cut).map((x) => x.name), [], 'no header name is cut at its default width');

      // narrow the first column by dragging its edge, then double-click the edge
      const handle = frame.locator('.tab-body.active .vgrid-col[data-col="0"] .vgrid-resize');
      const box = (await handle.boundingBox())!;
      await handle.hover();
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 - 60, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
      const narrowed = await waitUntil(async () => {
        const x = (await readHeaders(frame))!.headers[0];
        return x.cut ? x : undefined;
      }, 'the narrowed header to cut its name', 10_000);
      assert.ok(narrowed.width < h.headers[0].width, `${narrowed.width} < ${h.headers[0].width}`);
      await handle.dblclick();
      const fitted = await waitUntil(async () => {
        const x = (await readHeaders(frame))!.headers[0];
        return x.cut ? undefined : x;
      }, 'the header to fit its name after a double-click on its edge', 10_000);
      assert.ok(fitted.width > narrowed.width, `${fitted.width} > ${narrowed.width}`);
    }));

    await t.test('the chart titles its axes with the column names and shows a legend of the colour-by attribute', () => session.step('chart-grouped', async () => {
      await frame.locator('.tab-body.active .chart-btn').click();
      const c = await waitUntil(() => readChart(frame), 'the drawn chart', 30_000);
      assert.equal(c.xTitle, groupedNames.find((n) => /^Month\(/.test(n)));
      assert.equal(c.yTitle, groupedNames.find((n) => /distance/i.test(n)));
      assert.equal(c.legendTitle, 'origin');
      assert.deepEqual(JSON.parse(c.legend ?? '[]').sort(), ['PDX', 'SEA']);
      assert.equal(c.yMin, '0', 'a non-negative measure starts at 0');
      await frame.locator('.tab-body.active .grid-btn').click();
    }));

    await t.test('a line of one non-negative measure has no legend and its y axis starts at 0', () => session.step('chart-line', async () => {
      const names = await columnsOf(MONTHLY);
      await run(MONTHLY);
      await frame.locator('.tab-body.active .chart-btn').click();
      const c = await waitUntil(() => readChart(frame), 'the drawn chart', 30_000);
      assert.equal(c.xTitle, names.find((n) => /^Month\(/.test(n)));
      assert.equal(c.yTitle, names.find((n) => /distance/i.test(n)));
      assert.equal(c.legend, '[]', 'one series: no legend');
      assert.equal(c.yMin, '0');
      await frame.locator('.tab-body.active .grid-btn').click();
    }));

    await t.test('Export CSV offers a name of the data source and the time, and the notification opens the file', () => session.step('export', async () => {
      await run(TOP);
      await frame.locator('.tab-body.active .export-csv').click();
      const input = page.locator('.quick-input-widget input').first();
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      const offered = await waitUntil(async () => {
        const v = await input.inputValue();
        return v.endsWith('.csv') ? v : undefined;
      }, 'the save dialog\'s default path', 10_000);
      assert.match(basename(offered), /^flights \d{4}-\d\d-\d\d \d{4}\.csv$/);
      const target = join(session.workspace, 'exported view.csv');
      await waitUntil(async () => {
        await input.fill(target);
        return (await input.inputValue()) === target;
      }, 'the save dialog to hold the target path', 10_000);
      await page.keyboard.press('Enter');
      await waitUntil(() => existsSync(target) && statSync(target).size > 0, `${target} to be written`, 30_000);
      const open = page.locator('.notification-list-item', { hasText: 'exported 10 rows' }).locator('.monaco-button', { hasText: 'Open' }).first();
      await open.waitFor({ state: 'visible', timeout: 30_000 });
      await open.click();
      const tab = page.locator('.tabs-container .tab', { hasText: 'exported view.csv' }).first();
      await tab.waitFor({ state: 'visible', timeout: 30_000 });
      const first = readFileSync(target, 'utf8').split('\n')[0];
      const line = page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: first }).first();
      await line.waitFor({ state: 'visible', timeout: 30_000 });
    }));
  } finally {
    await client.close();
    await session.close();
  }
});
