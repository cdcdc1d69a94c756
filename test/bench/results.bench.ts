/**
 * The results panel in a real VS Code (code-server in Chromium, the end-to-end harness) against the demo
 * emulator, for a 1,000-row and a 100,000-row answer of results-bench.tsq:
 * - `firstRowsMs` (in VS Code: Run command to the first painted grid row) and `keyToFirstRowsMs` (driver:
 *   key press to the first row in the DOM);
 * - `allRowsLoadedMs`: key press until the grid holds every row and the status line says so;
 * - `milestonesMs`: the webview's milestones of a run (medians), its longest grid slice and refresh;
 * - `workbenchMaxFrameMs` and `longFramesMs`: the workbench's longest gaps between animation frames;
 * - `webviewHeapMB`: the webview's used JS heap once all rows came.
 * Skipped (with a reason) without the end-to-end tools. Run: `npm run bench -- results`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { e2eSkip, startSession, waitUntil } from '../e2e/harness';

const QUERIES = {
  rows1k: '[date] [origin] [destination] [delay] [distance] top 1000',
  rows100k: '[date] [origin] [destination] [delay] [distance] top 100000',
};
const REPEATS = 3;
const FILE = join(__dirname, '..', 'fixtures', 'e2e-workspace', 'results-bench.tsq');
/** The 0-based line of a query in results-bench.tsq. */
const lineOf = (query: string): number => {
  const i = readFileSync(FILE, 'utf8').split(/\r?\n/).findIndex((l) => l.trim() === query);
  if (i < 0) throw new Error(`results-bench.tsq has no line ${query}`);
  return i;
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};

export async function run(): Promise<Record<string, unknown>> {
  let skip: string | false;
  try {
    skip = e2eSkip(['dist/emulator.js', 'dist/webview.js']);
  } catch (e) {
    return { skipped: (e as Error).message };
  }
  if (skip) return { skipped: skip };
  const session = await startSession({ name: 'results-bench', suite: 'results.js', emulator: true });
  const out: Record<string, unknown> = {};
  try {
    const suite = await session.waitForSuite();
    if (suite.failed || suite.error) throw new Error(`the in-host suite failed: ${JSON.stringify(suite)}`);
    const page = session.page;
    // the in-host suite leaves a results panel of its own open: close it, so that the only panel
    // (and webview frame) is the one of results-bench.tsq
    await session.runCommand('View: Close All Editors');
    await session.openFile('results-bench.tsq');
    let frame: Frame | undefined;
    let lastTab = '';
    for (const [name, query] of Object.entries(QUERIES)) {
      const firstRows: number[] = [];
      const keyToFirst: number[] = [];
      const loaded: number[] = [];
      const frames: number[] = [];
      const marks: Record<string, number>[] = [];
      const longFrames: number[][][] = [];
      let rows = 0;
      let heap: number | undefined;
      for (let i = 0; i < REPEATS; i++) {
        // the cursor onto the query's line (0-based `lineOf`), by keys: a line of a narrowed editor
        // may not be rendered whole
        await session.openFile('results-bench.tsq');
        await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        for (let k = 0; k < lineOf(query); k++) await page.keyboard.press('ArrowDown');
        await page.keyboard.press('End');
        // a string, not a function: tsx would wrap a named inner function in a helper the page lacks
        await page.evaluate(`(() => {
          const g = (window.tsqGaps = { max: 0, last: performance.now(), stop: false, long: [], t0: undefined });
          const loop = () => {
            const now = performance.now();
            // frames from the key press on (t0) count
            if (g.t0 !== undefined) g.max = Math.max(g.max, now - g.last);
            if (g.t0 !== undefined && now - g.last > 50) g.long.push([Math.round(g.last - g.t0), Math.round(now - g.last)]);
            g.last = now;
            if (!g.stop) requestAnimationFrame(loop);
          };
          requestAnimationFrame(loop);
        })()`);
        // TSQ_BENCH_PROFILE=file.cpuprofile: a CPU profile of the page's thread (workbench and webview)
        // during the last 100,000-row run, for Chromium's DevTools
        const profile = process.env.TSQ_BENCH_PROFILE && name === 'rows100k' && i === REPEATS - 1 ? await page.context().newCDPSession(page) : undefined;
        if (profile) {
          await profile.send('Profiler.enable');
          await profile.send('Profiler.setSamplingInterval', { interval: 500 });
          await profile.send('Profiler.start');
        }
        await page.evaluate('window.tsqGaps.t0 = performance.now()');
        const t0 = Date.now();
        await page.keyboard.press('Control+Enter');
        frame ??= await session.webviewFrame('.tab-body', 60_000);
        const f = frame;
        const tabId = await waitUntil(() => f.evaluate((prev) => {
          const b = document.querySelector<HTMLElement>('.tab-body.active');
          return b && b.dataset.tabId !== prev && b.querySelector('.tabulator-row') ? b.dataset.tabId : undefined;
        }, lastTab), 'the first rows', 60_000, 10);
        keyToFirst.push(Date.now() - t0);
        lastTab = tabId;
        // the whole answer: the grid holds every row (it can show any of them) and the status says so
        const state = await waitUntil(() => f.evaluate(() => {
          const b = document.querySelector<HTMLElement>('.tab-body.active')!;
          const status = b.querySelector('.status')?.textContent ?? '';
          const rows = Number(b.dataset.rows);
          return b.dataset.state === 'done' && b.dataset.firstPaintMs && b.dataset.gridRows === b.dataset.rows && status.startsWith(`${rows.toLocaleString('en-US')} of`)
            ? { firstPaintMs: Number(b.dataset.firstPaintMs), rows, marks: JSON.parse(b.dataset.marks ?? '{}') as Record<string, number> }
            : undefined;
        }), 'the whole answer in the grid', 300_000, 20);
        marks.push(state.marks);
        loaded.push(Date.now() - t0);
        if (profile) writeFileSync(process.env.TSQ_BENCH_PROFILE!, JSON.stringify((await profile.send('Profiler.stop')).profile));
        firstRows.push(state.firstPaintMs);
        rows = state.rows;
        const expected = Number(/top (\d+)/.exec(query)![1]);
        if (rows !== expected) throw new Error(`the panel shows ${rows} rows for ${query}, not ${expected}: the wrong query ran`);
        const gaps = await page.evaluate(() => {
          const w = window as unknown as { tsqGaps: { max: number; stop: boolean; long: number[][] } };
          w.tsqGaps.stop = true;
          return { max: Math.round(w.tsqGaps.max), long: w.tsqGaps.long };
        });
        frames.push(gaps.max);
        longFrames.push(gaps.long);
        heap = await f.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize);
      }
      out[name] = {
        rows,
        firstRowsMs: median(firstRows),
        firstRowsMsAll: firstRows,
        keyToFirstRowsMs: median(keyToFirst),
        allRowsLoadedMs: median(loaded),
        workbenchMaxFrameMs: Math.max(...frames),
        // frames over 50 ms of each run: [ms after the key press when the frame began, its length]
        longFramesMs: longFrames,
        milestonesMsAll: marks,
        webviewHeapMB: heap === undefined ? undefined : Math.round((heap / 1024 / 1024) * 10) / 10,
        // where the time goes: the webview's milestones (ms since the run command), medians of the runs
        milestonesMs: Object.fromEntries([...new Set(marks.flatMap((m) => Object.keys(m)))].map((k) => [k, median(marks.map((m) => m[k]).filter((x) => x !== undefined))])),
      };
    }
    out.targetFirstRowsMs = 1000;
  } finally {
    await session.close();
  }
  return out;
}
