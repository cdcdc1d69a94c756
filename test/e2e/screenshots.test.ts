/**
 * The README's screenshots, taken in the real thing: `npm start` (scripts/start.mjs) on the demo
 * workspace in code-server, driven through Chromium. Runs only with TSQ_SCREENSHOTS=1 (and the
 * end-to-end tools); writes docs/completion.png (column completion in a .tsq file),
 * docs/results.png (an answer in the results panel, as a chart) and docs/load.png (a finished
 * Load CSV Again of the demo CSV). Each step checks what it shows before it takes the picture.
 *   TSQ_SCREENSHOTS=1 node --import tsx --test test/e2e/screenshots.test.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, e2eSkip, waitUntil } from './harness';

const DOCS = join(ROOT, 'docs');
const skip = process.env.TSQ_SCREENSHOTS === '1' ? e2eSkip(['dist/emulator.js']) : 'set TSQ_SCREENSHOTS=1 to take the README screenshots';

/** Runs a command through the command palette by its title. */
async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
}

/** Opens a workspace file through Quick Open (F1, then the name without '>': Chromium keeps Ctrl+P). */
async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
  await page.locator(`.tabs-container .tab[aria-label^="${name}"]`).first().waitFor({ state: 'visible', timeout: 20_000 });
}

/** Saves a screenshot of the page as docs/<name>.png and returns its size in bytes. */
async function shoot(page: Page, name: string): Promise<number> {
  mkdirSync(DOCS, { recursive: true });
  const file = join(DOCS, `${name}.png`);
  await page.screenshot({ path: file });
  return statSync(file).size;
}

test('README screenshots: completion, results as a chart, a finished load', { skip, timeout: 600_000 }, async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'tsq-e2e-shots-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  const proc = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--code-server', '--no-build', '--state-dir', stateDir, '--port', '0', '--code-server-port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (b: Buffer) => { output += b.toString(); });
  proc.stderr!.on('data', (b: Buffer) => { output += b.toString(); });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let browser: Browser | undefined;
  try {
    const url = await waitUntil(() => {
      if (proc.exitCode !== null) throw new Error(`npm start exited (${proc.exitCode}):\n${output.slice(-3000)}`);
      return output.match(/TSQ is ready: (http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/)?.[1];
    }, 'npm start to print its URL', 420_000, 200);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 760 } })).newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });
    // the TSQ view on the left, connected
    await page.locator('.activitybar .action-item a[aria-label^="TSQ"], .activitybar .action-item[aria-label^="TSQ"]').first().click();
    await waitUntil(async () => (await page.locator('.sidebar .label-name').allInnerTexts()).some((l) => l.trim() === 'Data Sources'), 'the TSQ tree', 90_000);
    await page.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: page.locator('.label-name', { hasText: /^\s*Data Sources\s*$/ }) }).first().click();

    await t.test('completion of the demo columns', async () => {
      await openFile(page, 'worksheet.tsq');
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await page.keyboard.type('[Origin] [D');
      const widget = page.locator('.editor-group-container.active .suggest-widget.visible').first();
      await waitUntil(async () => {
        if (!(await widget.isVisible())) await page.keyboard.press('Control+Space');
        const rows = await widget.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        return rows.some((r) => /Destination/.test(r)) && rows.some((r) => /Distance/.test(r));
      }, 'Destination and Distance in the suggest widget', 60_000, 500);
      t.diagnostic(`docs/completion.png: ${await shoot(page, 'completion')} bytes`);
      await page.keyboard.press('Escape');
    });

    await t.test('an answer in the results panel, as a chart', async () => {
      await openFile(page, 'flights.tsq');
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+Home');
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown'); // the first query: top 10 origins by delay
      await page.keyboard.press('Control+Enter');
      const frame: Frame = await waitUntil(async () => {
        for (const f of page.frames()) if (await f.locator('.chart-btn').count().catch(() => 0)) return f;
        return undefined;
      }, 'the results panel', 90_000, 200);
      await frame.locator('.tab-body[data-state="done"][data-rows="10"]').first().waitFor({ state: 'visible', timeout: 90_000 });
      await frame.locator('.chart-btn').first().click();
      await frame.locator('.canvas-box canvas').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.waitForTimeout(1_500); // let chart.js finish its entry animation before the picture
      t.diagnostic(`docs/results.png: ${await shoot(page, 'results')} bytes`);
    });

    await t.test('a finished load of the demo CSV with its saved definition', async () => {
      await openFile(page, 'new-stock-prices.csv');
      await runCommand(page, 'TSQ: Load CSV Again');
      const toast = page.locator('.notification-toast', { hasText: /Loaded 45 rows into/ }).first();
      await toast.waitFor({ state: 'visible', timeout: 120_000 });
      t.diagnostic(`docs/load.png: ${await shoot(page, 'load')} bytes`);
    });
    for (const name of ['completion', 'results', 'load']) assert.ok(statSync(join(DOCS, `${name}.png`)).size < 400_000, `${name}.png is too large for the README`);
  } finally {
    await browser?.close().catch(() => undefined);
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
  }
});
