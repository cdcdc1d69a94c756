/**
 * End-to-end: Load CSV into Table in a real VS Code (code-server in Chromium) against the demo emulator.
 * The in-host suite (suites/load.js) only connects; every load goes through the UI (explorer menu, the
 * table's quick pick, the summary, the replace dialog, Cancel, Show Bad Records), and the `stocks` table
 * is read back through searchdata after each:
 * - 3 bad rows: with max_ignored_rows 0 the load fails, the table unchanged; with 5 the 7 good rows load
 *   and Show Bad Records shows the rest;
 * - replace empties the table first: it then holds exactly the file's rows;
 * - Load CSV Again, flat form: `"empty_target": true` asks first; a `target_table` unlike `target` is refused;
 * - Cancel during a large file's upload aborts the cycle, the table unchanged. Skipped without the tools
 *   unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { parse } from 'csv-parse/sync';
import { AnalyticsServiceClient } from '../../common/src/api';
import { e2eSkip, explorerMenu, startSession, waitUntil, type E2eSession } from './harness';
import { reportInHost } from './report';

const FIXTURES = join(__dirname, '..', 'fixtures', 'e2e-workspace');

/** The rows of the demo `stocks` table as `symbol|epoch seconds|price`, sorted. */
async function stocksRows(url: string): Promise<string[]> {
  const c = new AnalyticsServiceClient({ url, username: 'tsadmin', password: 'admin' });
  try {
    const h = (await c.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['ONE_TO_ONE_LOGICAL'], batchSize: -1 })).find((x) => x.name === 'stocks');
    assert.ok(h, 'the demo has a stocks table');
    const r = await c.searchData({ queryString: '[symbol] [date] [price]', dataSourceGuid: h.id, batchSize: -1 });
    return (r.data as unknown[][]).map((row) => `${row[0]}|${row[1]}|${Number(row[2])}`).sort();
  } finally {
    await c.close();
  }
}

/** The rows of a fixture CSV in the same form (dates as UTC epoch seconds). */
function fileRows(name: string): string[] {
  const rows = parse(readFileSync(join(FIXTURES, name)), { from_line: 2, relax_column_count: true }) as string[][];
  return rows.map((r) => (r.length === 3 ? `${r[0]}|${Date.parse(`${r[1]}T00:00:00Z`) / 1000}|${Number(r[2])}` : 'NaN')).sort();
}

/** Clicks the row of the open quick pick that contains `text`. */
async function pickRow(session: E2eSession, text: string | RegExp, timeoutMs = 30_000): Promise<void> {
  const row = session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: timeoutMs });
  await row.click();
}

/** Types into the open quick pick or input box. */
async function typeInput(session: E2eSession, text: string, enter = false): Promise<void> {
  const input = session.page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(text);
  if (enter) await input.press('Enter');
}

/** Starts a load of `file` into stocks from the explorer, up to the summary quick pick. */
async function startLoad(session: E2eSession, file: string): Promise<void> {
  await explorerMenu(session, file, 'Load CSV into Table');
  await typeInput(session, 'stocks');
  await pickRow(session, 'demo.engine_default_schema.stocks');
  await pickRow(session, /Load into demo\.engine_default_schema\.stocks/);
}

/** Picks a summary row (which reopens the summary) and waits for the summary to show `after`. */
async function changeField(session: E2eSession, row: string | RegExp, after: string | RegExp, input?: string): Promise<void> {
  await pickRow(session, row);
  if (input !== undefined) await typeInput(session, input, true);
  await session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: after }).first().waitFor({ state: 'visible', timeout: 10_000 });
}

/** The messages of the notification toasts and the notification center. */
async function notificationTexts(session: E2eSession): Promise<string[]> {
  return (await session.page.locator('.notification-list-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

async function waitNotification(session: E2eSession, re: RegExp, timeoutMs = 120_000): Promise<string> {
  return waitUntil(async () => (await notificationTexts(session)).find((t) => re.test(t)), `a notification matching ${re}`, timeoutMs, 200);
}

async function clearNotifications(session: E2eSession): Promise<void> {
  await session.runCommand('Notifications: Clear All Notifications');
}

test('load CSV into a table through the VS Code UI', { skip: e2eSkip(['dist/emulator.js']), timeout: 900_000 }, async (t) => {
  const session = await startSession({ name: 'load', suite: 'load.js', emulator: true, settings: { 'tsq.load.chunkSize': 65536 } });
  try {
    await reportInHost(t, session, 1);
    const url = session.emulatorUrl!;
    const original = await stocksRows(url);
    assert.ok(original.length > 100, `the demo stocks rows: ${original.length}`);

    await t.test('3 bad rows with max_ignored_rows 0: the load fails and the table is unchanged', () => session.step('bad-0', async () => {
      await startLoad(session, 'stocks-bad.csv');
      const text = await waitNotification(session, /failed|refused/i);
      assert.match(text, /not changed/, text);
      assert.deepEqual(await stocksRows(url), original);
      await clearNotifications(session);
    }));

    await t.test('3 bad rows with max_ignored_rows 5: the rest loads and Show Bad Records opens them', () => session.step('bad-5', async () => {
      await explorerMenu(session, 'stocks-bad.csv', 'Load CSV into Table');
      await typeInput(session, 'stocks');
      await pickRow(session, /last used for this file/);
      await changeField(session, 'Max ignored rows: 0', 'Max ignored rows: 5', '5');
      await pickRow(session, /Load into demo\.engine_default_schema\.stocks/);
      const text = await waitNotification(session, /Loaded 7 rows/);
      assert.match(text, /3 rows were ignored/, text);
      const now = await stocksRows(url);
      assert.equal(now.length, original.length + 7);
      const good = fileRows('stocks-bad.csv').filter((r) => !r.includes('NaN'));
      assert.equal(good.length, 7);
      for (const r of good) assert.ok(now.includes(r), `${r} was loaded`);
      await session.page.locator('.notification-list-item', { hasText: 'Loaded 7 rows' }).locator('.monaco-button', { hasText: 'Show Bad Records' }).first().click();
      await waitUntil(async () => {
        const lines = (await session.page.locator('.editor-group-container .view-lines').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
        return lines.includes('n/a') && lines.includes('not-a-date') && lines.includes('extra') ? lines : undefined;
      }, 'an editor with the 3 bad records', 30_000);
      await clearNotifications(session);
    }));

    await t.test('replace empties the table first: it holds exactly the file rows', () => session.step('replace', async () => {
      await explorerMenu(session, 'stocks-e2e.csv', 'Load CSV into Table');
      await typeInput(session, 'stocks');
      await pickRow(session, 'demo.engine_default_schema.stocks');
      await changeField(session, 'Mode: Append', 'Mode: Replace');
      await pickRow(session, /Load into demo\.engine_default_schema\.stocks/);
      const replace = session.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Replace' }).first();
      await replace.waitFor({ state: 'visible', timeout: 10_000 });
      await replace.click();
      await waitNotification(session, /Loaded 24 rows/);
      assert.deepEqual(await stocksRows(url), fileRows('stocks-e2e.csv'));
      await clearNotifications(session);
    }));

    await t.test('Load CSV Again: a flat empty_target asks before emptying the table; a flat target_table naming another table is refused', () => session.step('load-again-flat', async () => {
      const before = await stocksRows(url);
      const saved = join(session.workspace, 'stocks-e2e.csv.load.json');
      const target = { database: 'demo', schema: 'engine_default_schema', table: 'stocks' };
      const format = { type: 'csv', field_separator: ',', has_header_row: true, date_time: { converted_to_epoch: false, date_format: '%Y-%m-%d' } };
      // the flat form of the seed's StartLoad example: no load_options, a top-level empty_target
      writeFileSync(saved, JSON.stringify({ target, format, empty_target: true }));
      await explorerMenu(session, 'stocks-e2e.csv', 'Load CSV Again');
      const dialog = session.page.locator('.monaco-dialog-box', { hasText: 'Replace every row of demo.engine_default_schema.stocks' });
      await dialog.waitFor({ state: 'visible', timeout: 30_000 });
      await dialog.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
      await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      // a flat target_table beside the nested target: two tables, refused before anything is sent
      writeFileSync(saved, JSON.stringify({ target, format, target_table: 'cars', empty_target: true }));
      await explorerMenu(session, 'stocks-e2e.csv', 'Load CSV Again');
      const text = await waitNotification(session, /names two tables/);
      assert.match(text, /demo\.engine_default_schema\.stocks \(target\) and demo\.engine_default_schema\.cars/, text);
      assert.deepEqual(await stocksRows(url), before);
      await clearNotifications(session);
    }));

    await t.test('Cancel during the upload of a large file aborts the cycle; the table is unchanged', () => session.step('cancel', async () => {
      const before = await stocksRows(url);
      const big = createWriteStream(join(session.workspace, 'big-stocks.csv'));
      big.write('symbol,date,price\n');
      const line = 'BIG,2021-03-04,12.5\n'.repeat(10_000);
      for (let i = 0; i < 800; i++) if (!big.write(line)) await once(big, 'drain');
      big.end();
      await once(big, 'finish');
      await explorerMenu(session, 'big-stocks.csv', 'Load CSV into Table');
      await typeInput(session, 'stocks');
      await pickRow(session, 'demo.engine_default_schema.stocks');
      await pickRow(session, /Load into demo\.engine_default_schema\.stocks/);
      const progress = session.page.locator('.notification-list-item', { hasText: /MB of .* rows/ }).first();
      await progress.waitFor({ state: 'visible', timeout: 60_000 });
      await progress.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
      const text = await waitNotification(session, /cancelled/i);
      assert.match(text, /aborted/, text);
      assert.match(text, /not changed/, text);
      assert.deepEqual(await stocksRows(url), before);
    }));
  } finally {
    await session.close();
  }
});
