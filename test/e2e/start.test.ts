/**
 * End-to-end test of `npm start` (scripts/start.mjs) as a newcomer meets it: it starts the demo
 * emulator and code-server on the demo workspace and prints a URL; that URL in Chromium shows TSQ
 * already connected (the Objects tree lists the demo data sources with no password prompt, and no
 * password in the workspace settings); the completion of a demo file knows the demo columns; SIGTERM
 * (what Ctrl-C does to the process group) stops everything it started. Skipped without the tools
 * unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, e2eSkip, exactText, openFileIn, runCommandIn, waitUntil } from './harness';
import { startNpmStart } from './npmStart';

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); done(true); });
    s.once('error', () => done(false));
  });
}

test('npm start opens a connected TSQ on the demo workspace and Ctrl-C stops it all', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const started = await startNpmStart('tsq-e2e-start-');
  const { url, stateDir, proc, exited } = started;
  const output = started.output;
  let browser: Browser | undefined;
  try {
    const emulatorPort = Number(output().match(/emulator listening on http:\/\/127\.0\.0\.1:(\d+)/)?.[1]);
    const codeServerPort = Number(new URL(url).port);
    assert.ok(emulatorPort > 0 && codeServerPort > 0, output());

    await t.test('the workspace settings name the emulator and hold no password', () => {
      const settings = JSON.parse(readFileSync(join(stateDir, 'workspace', '.vscode', 'settings.json'), 'utf8'));
      assert.equal(settings['tsq.activeConnection'], 'Local emulator (demo)');
      assert.deepEqual(settings['tsq.connections'], [{ name: 'Local emulator (demo)', url: `http://127.0.0.1:${emulatorPort}`, username: 'tsadmin' }]);
    });

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const page: Page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });

    await t.test('the Objects tree lists the demo data sources without asking for a password', async () => {
      await page.locator('.activitybar .action-item a[aria-label^="TSQ"], .activitybar .action-item[aria-label^="TSQ"]').first().click();
      const labels = () => page.locator('.sidebar .monaco-list-row[role="treeitem"] .monaco-icon-label .label-name').allInnerTexts();
      await waitUntil(async () => (await labels()).some((l) => l.trim() === 'Data Sources'), 'the Data Sources node', 90_000);
      const row = (label: string) => page.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: page.locator('.label-name', { hasText: exactText(label) }) }).first();
      // expands a node until one of `want` shows below it; a click that a re-render of the tree
      // swallowed (the tree refreshes when the connection comes up) is repeated
      const expand = (label: string, want: string[], what: string) => waitUntil(async () => {
        const r = (await labels()).map((l) => l.trim());
        if (want.some((w) => r.includes(w))) return r;
        const node = row(label);
        if ((await node.count()) && (await node.getAttribute('aria-expanded')) !== 'true') await node.click().catch(() => undefined);
        await page.waitForTimeout(500);
        throw new Error(`the tree shows ${JSON.stringify(r)}`);
      }, what, 90_000, 200);
      // data sources are grouped by kind (Tables, Worksheets, ...) when there are several kinds
      let rows = await expand('Data Sources', ['flights', 'Tables'], 'the children of Data Sources');
      if (!rows.includes('flights')) rows = await expand('Tables', ['flights'], 'the demo tables in the tree');
      for (const table of ['flights', 'cars', 'movies', 'seattle-weather', 'stocks']) assert.ok(rows.includes(table), `${table} in ${JSON.stringify(rows)}`);
      assert.equal(await page.locator('.quick-input-widget input[type="password"]:visible').count(), 0, 'no password prompt');
    });

    await t.test('completion in a demo file offers the demo columns', async () => {
      await openFileIn(page, 'flights.tsq');
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await page.keyboard.type('[dest');
      const widget = page.locator('.editor-group-container.active .suggest-widget.visible').first();
      const rows = await waitUntil(async () => {
        if (!(await widget.isVisible())) {
          await page.keyboard.press('Control+Space');
          await widget.waitFor({ state: 'visible', timeout: 3_000 }).catch(() => undefined);
        }
        const r = await widget.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        return r.some((x) => /destination/i.test(x)) ? r : undefined;
      }, 'the destination column in the suggest widget', 60_000, 500);
      assert.ok(rows.length > 0);
    });

    await t.test('Add Connection in the demo workspace saves to the user settings, and the workspace keeps its own', async () => {
      // a connection the person adds is theirs (user level under the trust rules): it goes to the user
      // settings, where a workspace cannot redefine it, and the workspace's connections stay as they are
      await runCommandIn(page, 'TSQ: Add Connection');
      const input = page.locator('.quick-input-widget input').first();
      for (const [title, value] of [['(1/4)', `http://127.0.0.1:${emulatorPort}`], ['(2/4)', 'tsadmin'], ['(3/4)', 'admin'], ['(4/4)', 'Second demo']]) {
        await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor({ state: 'visible', timeout: 20_000 });
        await input.fill(value);
        await input.press('Enter');
      }
      const userFile = join(stateDir, 'code-server', 'user-data', 'User', 'settings.json');
      const user = await waitUntil(() => {
        const u = JSON.parse(readFileSync(userFile, 'utf8'));
        return Array.isArray(u['tsq.connections']) && u['tsq.connections'].some((c: { name: string }) => c.name === 'Second demo') ? u : undefined;
      }, 'the user settings to hold the new connection', 30_000, 200);
      const workspace = await waitUntil(() => {
        const w = JSON.parse(readFileSync(join(stateDir, 'workspace', '.vscode', 'settings.json'), 'utf8'));
        return w['tsq.activeConnection'] === 'Second demo' ? w : undefined;
      }, 'the workspace settings to make the new connection active', 30_000, 200);
      assert.deepEqual(workspace['tsq.connections'].map((c: { name: string }) => c.name), ['Local emulator (demo)'], 'the workspace keeps only its own connection');
      assert.ok(!JSON.stringify(user).includes('"admin"') && !JSON.stringify(workspace).includes('"admin"'), 'no password in the settings');
    });

    await t.test('SIGTERM stops code-server and the emulator, and npm start exits 0', async () => {
      await browser?.close();
      browser = undefined;
      proc.kill('SIGTERM');
      assert.equal(await exited, 0, output().slice(-2000));
      assert.equal(await listening(emulatorPort), false, 'the emulator still listens');
      assert.equal(await listening(codeServerPort), false, 'code-server still listens');
    });
  } finally {
    await browser?.close().catch(() => undefined);
    await started.stop();
  }
});
