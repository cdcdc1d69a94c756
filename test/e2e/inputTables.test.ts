/**
 * End-to-end: Load CSV into Table in a real VS Code (code-server in Chromium) into an input table, against
 * an emulator modelled on ThoughtSpot Cloud (`--public-api v2 --no-data-load-api`): a real file
 * (vega-datasets seattle-weather.csv, copied into the workspace) loaded from the explorer menu into an input
 * table linked to a model, the replace dialog saying what differs from the data-load API, and the rows read
 * back through searchdata on the model, computed from the file; the same file again gives the same rows, and
 * a copy with one value outside allowed_values is refused with its batch named. Skipped without the tools
 * unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e2eSkip, explorerMenu, RESULTS_DIR, startEmulator, waitUntil, type E2eSession } from './harness';
import { tsadminToken, withCloudSession } from './v2-support';
import { assertRows } from '../emulator/weather-support';
import { byDate, expectedModelRows, MODEL_QUERY, MODEL_TML, WEATHER_LOG_CREATE, WEATHER_TEXT, withCell } from '../emulator/weather-log-support';

async function v2(url: string, token: string, path: string, body: unknown): Promise<any> {
  const r = await fetch(`${url}/api/rest/2.0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  assert.ok(r.ok, `${path}: ${r.status} ${await r.clone().text()}`);
  return r.json();
}

async function pickRow(session: E2eSession, text: string | RegExp): Promise<void> {
  const row = session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.click();
}

/** Loads `file` from the explorer into the typed target `demo.weather_log`, confirming the replace. */
async function loadIntoWeatherLog(session: E2eSession, file: string): Promise<string> {
  await explorerMenu(session, file, 'Load CSV into Table');
  const input = session.page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill('demo.weather_log');
  await pickRow(session, 'typed target');
  await pickRow(session, /Load into demo\.weather_log/);
  const dialog = session.page.locator('.monaco-dialog-box', { hasText: 'is an input table' });
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await dialog.innerText(), /replaces all its rows/);
  await dialog.locator('.monaco-button', { hasText: 'Replace' }).first().click();
  const text = await waitUntil(async () => (await session.page.locator('.notification-list-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')).find((t) => /Loaded [\d,]+ rows|refused|failed/.test(t)), 'the load notification', 120_000, 200);
  await session.runCommand('Notifications: Clear All Notifications');
  return text;
}

test('Load CSV into an input table through the VS Code UI, on a service without the data-load API', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const before = process.env.TSQ_DEMO_PASSWORD;
  process.env.TSQ_DEMO_PASSWORD = 'admin';
  const emulator = await startEmulator(mkdtempSync(join(tmpdir(), 'tsq-e2e-input-tables-data-')), join(RESULTS_DIR, 'inputTables-emulator.log'), ['--public-api', 'v2', '--no-data-load-api']);
  try {
    const url = emulator.url;
    const token = await tsadminToken(url);
    const [imported] = await v2(url, token, '/metadata/tml/import', { metadata_tmls: [MODEL_TML] });
    const model: string = imported.response.header.id_guid;
    await v2(url, token, '/input-tables/create', WEATHER_LOG_CREATE);
    const rows = async (): Promise<unknown[][]> => byDate((await v2(url, token, '/searchdata', { query_string: MODEL_QUERY, logical_table_identifier: model, record_size: -1 })).contents[0].data_rows);
    await withCloudSession('inputTables', url, async (session) => {
      writeFileSync(join(session.workspace, 'seattle-weather.csv'), WEATHER_TEXT);
      writeFileSync(join(session.workspace, 'seattle-hail.csv'), withCell(100, 'weather', 'hail'));
      // the extension starts with a .tsq file, and is connected once the tree lists the data sources
      await session.openFile('flights.tsq');
      await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 120_000);
      await t.test('the file loads into the input table: a search of the model gives its rows', () => session.step('load', async () => {
        const text = await loadIntoWeatherLog(session, 'seattle-weather.csv');
        assert.match(text, /Loaded 1,461 rows into demo\.weather_log \(input table [0-9a-f-]{36}\)/, text);
        assertRows(await rows(), expectedModelRows());
      }));
      await t.test('the same file again gives the same rows', () => session.step('again', async () => {
        const text = await loadIntoWeatherLog(session, 'seattle-weather.csv');
        assert.match(text, /Loaded 1,461 rows/, text);
        assertRows(await rows(), expectedModelRows());
      }));
      await t.test('a copy with one value outside allowed_values: the batch is named, nothing written', () => session.step('refused', async () => {
        const text = await loadIntoWeatherLog(session, 'seattle-hail.csv');
        assert.match(text, /Batch 1 of 1 \(records 2–1462\) into the input table weather_log was refused: .*"hail" is not one of its allowed_values/, text);
        assertRows(await rows(), expectedModelRows());
      }));
    });
  } finally {
    await emulator.stop();
    if (before === undefined) delete process.env.TSQ_DEMO_PASSWORD;
    else process.env.TSQ_DEMO_PASSWORD = before;
  }
});
