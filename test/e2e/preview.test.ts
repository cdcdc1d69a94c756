/**
 * End-to-end test of the Objects view's data-source actions in a real VS Code (code-server in
 * Chromium) against the demo emulator. The in-host suite (suites/preview.js) connects and previews a
 * table named by its name only (a finished load's Show Data); then, through the UI: the roots say
 * Liveboards; **Preview Data** from the context menu of the flights table opens its results tab with
 * the first 1,000 rows of every column, the same rows searchdata answers for the query of its columns;
 * **New Query on This Data Source** opens an editor holding `@datasource 'flights'` and its first
 * attribute and measure, with the cursor after them. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Locator } from 'playwright-core';
import { AnalyticsServiceClient } from '../../common/src/api';
import { ServiceCatalog } from '../../common/src/catalog';
import { PREVIEW_ROWS, previewQuery, starterQuery } from '../../common/src/language/queryText';
import { e2eSkip, exactText, startSession, waitUntil, type E2eSession, tsqLogs } from './harness';
import { reportInHost } from './report';

/** Expands `label` when its children are not shown yet, and waits for rows that `until` accepts. */
async function expand(session: E2eSession, label: string, until: (rows: string[]) => boolean): Promise<string[]> {
  const before = await session.treeItems('TSQ', (r) => r.includes(label));
  if (!until(before)) await session.toggleTreeItem(label);
  return session.treeItems('TSQ', until);
}

/** What the active tab of a results webview shows: its title tabs, state, row count, headers. */
interface PanelView { tabs: string[]; state: string; rows: number; headers: string[]; firstRow: string[] }

async function panelView(frame: Frame): Promise<PanelView | undefined> {
  return frame.evaluate(() => {
    const body = document.querySelector<HTMLElement>('.tab-body.active');
    if (!body) return undefined;
    const first = body.querySelector('.vgrid-row:not([hidden])');
    return {
      tabs: [...document.querySelectorAll('.tab')].map((t) => t.textContent ?? ''),
      state: body.dataset.state ?? '',
      rows: Number(body.dataset.rows ?? 0),
      headers: [...body.querySelectorAll('.vgrid-col .col-name')].map((h) => h.textContent ?? ''),
      firstRow: first ? [...first.querySelectorAll('.vgrid-cell[data-col]')].map((c) => c.textContent ?? '') : [],
    };
  }).catch(() => undefined);
}

test('preview: Preview Data and New Query on a data source of the Objects view in a real VS Code', { skip: e2eSkip(['dist/emulator.js', 'dist/webview.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({ name: 'preview', suite: 'preview.js', emulator: true, settings: { 'tsq.results.location': 'beside' } });
  const page = session.page;
  const client = new AnalyticsServiceClient({ url: session.emulatorUrl!, username: 'tsadmin', password: 'admin' });
  try {
    await reportInHost(t, session, 2);
    const tables = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
    const flights = tables.find((h) => h.name === 'flights')!;
    const columns = (await new ServiceCatalog(client).columns(flights.id))!.columns;

    const row = (label: string): Locator => page.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: page.locator('.monaco-icon-label .label-name', { hasText: exactText(label) }) }).first();
    /**
     * Runs the context-menu entry `item` of the tree row `label` until `done` says it took effect. A
     * right-click hands VS Code the row's element when the menu opens; a menu that a re-render of the tree
     * closed first is opened again. A command that got no element (a handle the tree dropped) logs
     * `orphan`: the step fails at once on it, naming it.
     */
    const fromMenu = async (label: string, item: string, done: () => Promise<boolean>, orphan: string): Promise<void> => {
      const entry = page.locator('.context-view .action-item', { has: page.locator('.action-label', { hasText: exactText(item) }) }).first();
      const outcome = await waitUntil(async () => {
        if (await done()) return 'done';
        if (tsqLogs(session).includes(orphan)) return 'orphaned';
        await page.keyboard.press('Escape');
        const opened = await row(label).click({ button: 'right', timeout: 5_000 }).then(() => entry.waitFor({ state: 'visible', timeout: 5_000 })).then(() => true, () => false);
        if (!opened) return undefined;
        for (let i = 0; i < 15 && (await entry.isVisible()); i++) await entry.click({ timeout: 1_000 }).catch(() => undefined);
        return waitUntil(async () => ((await done()) ? 'done' : tsqLogs(session).includes(orphan) ? 'orphaned' : undefined), `${item} to take effect`, 15_000).catch(() => undefined);
      }, `${item} on ${label}`, 90_000);
      assert.equal(outcome, 'done', `${item} was given no tree element: the row is shown but its handle is gone`);
    };

    await t.test('the roots name Liveboards (ThoughtSpot\'s name since 8.4), not Pinboards', () => session.step('roots', async () => {
      const roots = await session.treeItems('TSQ', (r) => r.includes('Data Sources') && r.includes('Liveboards'));
      assert.ok(!roots.includes('Pinboards'), JSON.stringify(roots));
    }));

    await t.test('Preview Data on a table shows its first 1,000 rows of every column', () => session.step('preview', async () => {
      const rows = await expand(session, 'Data Sources', (r) => r.includes('flights') || r.includes('Tables'));
      if (!rows.includes('flights')) await expand(session, 'Tables', (r) => r.includes('flights'));
      const { query } = previewQuery(columns);
      const direct = await client.searchData({ queryString: query, dataSourceGuid: flights.id, batchSize: PREVIEW_ROWS, pageNumber: 1 });
      assert.ok(direct.totalRowCount > PREVIEW_ROWS, `flights has more rows than a preview shows: ${direct.totalRowCount}`);
      const editorTab = page.locator('.tabs-container .tab', { hasText: 'Preview: flights' }).first();
      await fromMenu('flights', 'Preview Data', () => editorTab.isVisible(), 'Preview Data: not a table, view or worksheet: undefined');
      const shown = await waitUntil(async () => {
        for (const f of page.frames()) {
          const v = await panelView(f);
          if (v && v.tabs.some((x) => x.includes('flights')) && v.state === 'done') return v;
        }
        return undefined;
      }, 'the preview of flights to be shown', 90_000);
      assert.equal(shown.rows, PREVIEW_ROWS);
      assert.deepEqual(shown.headers, direct.columnNames);
      assert.equal(shown.headers.length, columns.length, 'every column of flights');
    }));

    await t.test('New Query on This Data Source writes the starter query, the cursor after it', () => session.step('new-query', async () => {
      const expected = starterQuery(flights, columns);
      const [header, body] = expected.split('\n');
      assert.match(body!, /^\[[^\]]+\] \[[^\]]+\]$/, 'flights has an attribute and a measure');
      const lines = page.locator('.editor-group-container .monaco-editor .view-lines');
      const text = async (): Promise<string> => (await lines.allInnerTexts().catch(() => [] as string[])).join('\n').replace(/\u00a0/g, ' ');
      await fromMenu('flights', 'New Query on This Data Source', async () => (await text()).includes(header!), 'New Query on This Data Source: not a data source: undefined');
      const written = await waitUntil(async () => {
        const s = await text();
        return s.includes(header!) && s.includes(body!) ? s : undefined;
      }, 'the starter query in the new editor', 30_000);
      assert.ok(written.includes(`${header}\n${body}`), JSON.stringify(written));
      // the cursor stands after the columns: what is typed continues the query
      await page.keyboard.type(' top 3');
      await waitUntil(async () => ((await text()).includes(`${body} top 3`) ? true : undefined), 'the typed text after the starter query', 15_000);
    }));
  } finally {
    await session.close();
  }
});
