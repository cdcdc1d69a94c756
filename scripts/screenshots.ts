/**
 * The README's screenshots, taken in the real thing: `npm start` (scripts/start.mjs) on the demo
 * workspace in code-server, driven through Chromium. Not a test: `npm run screenshots` builds and runs
 * it (it needs the end-to-end tools of scripts/install-e2e-tools.sh). Writes docs/completion.png
 * (column completion in a .tsq file), docs/results.png (an answer in the results panel, as a chart) and
 * docs/load.png (a finished Load CSV Again of the demo CSV). Each step checks what it shows before it
 * takes the picture; a step that cannot see what it expects stops the run with exit status 1.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, e2eSkip, openFileIn, runCommandIn, waitUntil } from '../test/e2e/harness';
import { startNpmStart } from '../test/e2e/npmStart';

const DOCS = join(ROOT, 'docs');
/** A picture larger than this is too heavy for the README. */
const MAX_BYTES = 400_000;

/** Saves a screenshot of the page as docs/<name>.png and returns its size in bytes. */
async function shoot(page: Page, name: string): Promise<number> {
  mkdirSync(DOCS, { recursive: true });
  const file = join(DOCS, `${name}.png`);
  await page.screenshot({ path: file });
  return statSync(file).size;
}

/** Runs one step and prints what it wrote. */
async function step(name: string, run: () => Promise<string>): Promise<void> {
  console.log(`- ${name}`);
  console.log(`  ${await run()}`);
}

async function main(): Promise<void> {
  const missing = e2eSkip(['dist/emulator.js']);
  if (missing) throw new Error(missing);
  const started = await startNpmStart('tsq-e2e-shots-');
  const url = started.url;
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 760 } })).newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });
    // the TSQ view on the left, connected
    await page.locator('.activitybar .action-item a[aria-label^="TSQ"], .activitybar .action-item[aria-label^="TSQ"]').first().click();
    await waitUntil(async () => (await page.locator('.sidebar .label-name').allInnerTexts()).some((l) => l.trim() === 'Data Sources'), 'the TSQ tree', 90_000);
    await page.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: page.locator('.label-name', { hasText: /^\s*Data Sources\s*$/ }) }).first().click();

    await step('completion of the demo columns', async () => {
      await openFileIn(page, 'worksheet.tsq');
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
      const bytes = await shoot(page, 'completion');
      await page.keyboard.press('Escape');
      return `docs/completion.png: ${bytes} bytes`;
    });

    await step('an answer in the results panel, as a chart', async () => {
      await openFileIn(page, 'flights.tsq');
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
      return `docs/results.png: ${await shoot(page, 'results')} bytes`;
    });

    await step('a finished load of the demo CSV with its saved definition', async () => {
      await openFileIn(page, 'new-stock-prices.csv');
      await runCommandIn(page, 'TSQ: Load CSV Again');
      const toast = page.locator('.notification-toast', { hasText: /Loaded 45 rows into/ }).first();
      await toast.waitFor({ state: 'visible', timeout: 120_000 });
      return `docs/load.png: ${await shoot(page, 'load')} bytes`;
    });
    for (const name of ['completion', 'results', 'load']) {
      if (statSync(join(DOCS, `${name}.png`)).size >= MAX_BYTES) throw new Error(`docs/${name}.png is over ${MAX_BYTES} bytes, too large for the README`);
    }
  } finally {
    await browser?.close().catch(() => undefined);
    await started.stop();
  }
}

main().catch((e: unknown) => {
  console.error(`The README screenshots were not all taken: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
