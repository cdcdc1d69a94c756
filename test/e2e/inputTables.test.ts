/**
 * End-to-end: Load CSV into Table in a real VS Code (code-server in Chromium) into an input table, against
 * an emulator modelled on ThoughtSpot Cloud (`--public-api v2 --no-data-load-api`): a CSV file of the
 * workspace loaded from the explorer menu into an input table created on the demo worksheet, the replace
 * dialog saying what differs from the data-load API, and the rows read back through searchdata; the same
 * file loaded again gives the same rows. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e2eSkip, explorerMenu, RESULTS_DIR, startEmulator, waitUntil, type E2eSession } from './harness';
import { tsadminToken, withCloudSession } from './v2-support';

const CSV = 'Origin,target,note\nSEA,1.5,first\nLAX,2,second\nSFO,3.25,third\n';
const EXPECTED = [['LAX', 'second', '2'], ['SEA', 'first', '1.5'], ['SFO', 'third', '3.25']];

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

/** Loads `file` from the explorer into the typed target `demo.targets`, confirming the replace. */
async function loadIntoTargets(session: E2eSession, file: string): Promise<string> {
  await explorerMenu(session, file, 'Load CSV into Table');
  const input = session.page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill('demo.targets');
  await pickRow(session, 'typed target');
  await pickRow(session, /Load into demo\.targets/);
  const dialog = session.page.locator('.monaco-dialog-box', { hasText: 'is an input table' });
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await dialog.innerText(), /replaces all its rows/);
  await dialog.locator('.monaco-button', { hasText: 'Replace' }).first().click();
  const text = await waitUntil(async () => (await session.page.locator('.notification-list-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')).find((t) => /Loaded \d+ rows|refused|failed/.test(t)), 'the load notification', 120_000, 200);
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
    const { input_table_identifier: id } = await v2(url, token, '/input-tables/create', {
      table_name: 'targets',
      model_identifier: 'Flights Worksheet',
      table_definition: { referenced_columns: ['Origin'], new_columns: [{ name: 'target', data_type: 'DOUBLE', type: 'MEASURE' }, { name: 'note', data_type: 'VARCHAR', type: 'ATTRIBUTE' }] },
    });
    const rows = async (): Promise<string[][]> => {
      const r = await v2(url, token, '/searchdata', { query_string: '[Origin] [note] [target]', logical_table_identifier: id, record_size: -1 });
      return (r.contents[0].data_rows as unknown[][]).map((row) => row.map(String)).sort((a, b) => a.join().localeCompare(b.join()));
    };
    await withCloudSession('inputTables', url, async (session) => {
      writeFileSync(join(session.workspace, 'targets.csv'), CSV);
      // the extension starts with a .tsq file, and is connected once the tree lists the data sources
      await session.openFile('flights.tsq');
      await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 120_000);
      await t.test('the file loads into the input table: its rows are the file\'s', () => session.step('load', async () => {
        const text = await loadIntoTargets(session, 'targets.csv');
        assert.match(text, /Loaded 3 rows into demo\.targets \(input table [0-9a-f-]{36}\)/, text);
        assert.deepEqual(await rows(), EXPECTED);
      }));
      await t.test('the same file again gives the same rows', () => session.step('again', async () => {
        const text = await loadIntoTargets(session, 'targets.csv');
        assert.match(text, /Loaded 3 rows/, text);
        assert.deepEqual(await rows(), EXPECTED);
      }));
    });
  } finally {
    await emulator.stop();
    if (before === undefined) delete process.env.TSQ_DEMO_PASSWORD;
    else process.env.TSQ_DEMO_PASSWORD = before;
  }
});
