/**
 * The results panel in a real VS Code (code-server in Chromium, the end-to-end harness) against the demo
 * emulator, for 1,000-, 100,000- and 1,000,000-row answers of results-bench.tsq (the million from a
 * bench-only table `flights_1m`, a seed folder made here; `tsq.results.maxRows` is set to 1,000,000 and
 * `tsq.results.pageSize` to 100,000: the emulator computes each page of the million anew, 2–3 s a page):
 * `firstRowsMs` (Run command to the first painted grid row), `allRowsLoadedMs` (key press until the
 * grid holds every row), `workbenchMaxFrameMs` (longest gap between the workbench's frames),
 * `webviewHeapMB` (after a garbage collection), `hostGrowthMB` (extension host RSS peak − before),
 * `lastRowMs` (scroll to the end until the last row shows), `sortMs`/`filterMs` (over all rows, in the
 * webview, with the longest frame meanwhile) beside `anchorSortMs` (Float64Array sort of as many
 * numbers in the same page). Skipped without the end-to-end tools. Run: `npm run bench -- results`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { e2eSkip, startSession, waitUntil, type E2eSession } from '../e2e/harness';
import { extensionHostPid } from './load.bench';

const QUERIES = {
  rows1k: '[date] [origin] [destination] [delay] [distance] top 1000',
  rows100k: '[date] [origin] [destination] [delay] [distance] top 100000',
  rows1m: '[date] [origin] [destination] [delay] [distance] top 1000000',
};
const REPEATS: Record<string, number> = { rows1k: 3, rows100k: 3, rows1m: Number(process.env.TSQ_BENCH_RESULTS_1M_REPEATS ?? 1) };
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
const MB = 1024 * 1024;
const r1 = (x: number): number => Math.round(x * 10) / 10;

/** A seed folder with `flights_1m`: 1,000,000 flights with distinct times (every row its own group), ~300 airports. */
export function millionSeed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-seed-'));
  const airports = Array.from({ length: 300 }, (_, i) => String.fromCharCode(65 + (i % 26), 65 + (Math.floor(i / 26) % 26), 65 + ((i * 7) % 26)));
  const lines = ['date,delay,distance,origin,destination'];
  const t0 = Date.UTC(2001, 0, 1) / 1000;
  for (let i = 0; i < 1_000_000; i++) {
    const d = new Date((t0 + i * 13) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    lines.push(`${d},${((i * 7919) % 400) - 60},${100 + ((i * 104729) % 2500)},${airports[i % 300]},${airports[(i * 31) % 300]}`);
  }
  writeFileSync(join(dir, 'flights_1m.csv'), lines.join('\n') + '\n');
  writeFileSync(join(dir, 'model.json'), JSON.stringify({
    tables: [{
      name: 'flights_1m', database: 'demo', csv: 'flights_1m.csv', description: 'Bench only: a million synthetic flights',
      columns: [
        { name: 'date', dataType: 'DATE_TIME' }, { name: 'delay', dataType: 'INT32' }, { name: 'distance', dataType: 'INT32' },
        { name: 'origin', dataType: 'VARCHAR' }, { name: 'destination', dataType: 'VARCHAR' },
      ],
    }],
  }));
  return dir;
}

/** The extension host's RSS (bytes) from /proc, or undefined. */
function hostRss(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** Starts counting the workbench's frame gaps (read with `stopGaps`). */
const startGaps = (page: Page): Promise<unknown> => page.evaluate(`(() => {
  const g = (window.tsqGaps = { max: 0, last: performance.now(), stop: false, long: [], t0: performance.now() });
  const loop = () => {
    const now = performance.now();
    g.max = Math.max(g.max, now - g.last);
    if (now - g.last > 50) g.long.push([Math.round(g.last - g.t0), Math.round(now - g.last)]);
    g.last = now;
    if (!g.stop) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
})()`);
const stopGaps = (page: Page): Promise<{ max: number; long: number[][] }> => page.evaluate(`(() => { window.tsqGaps.stop = true; return { max: Math.round(window.tsqGaps.max), long: window.tsqGaps.long }; })()`);

/** The webview's used JS heap (MB) after a garbage collection of the page. */
async function heapMB(page: Page, f: Frame): Promise<number | undefined> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  await cdp.detach().catch(() => undefined);
  const heap = await f.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize);
  return heap === undefined ? undefined : r1(heap / MB);
}

/** One run of `query`: key press to first rows and to all rows, frames, host growth. */
async function runOnce(session: E2eSession, query: string, lastTab: string, getFrame: () => Promise<Frame>): Promise<{ tabId: string; firstPaintMs: number; keyToFirst: number; loaded: number; rows: number; marks: Record<string, number>; frames: { max: number; long: number[][] }; hostGrowthMB?: number }> {
  const page = session.page;
  await session.openFile('results-bench.tsq');
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  for (let k = 0; k < lineOf(query); k++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  const pid = extensionHostPid(session.userDataDir);
  const before = hostRss(pid);
  let peak = before ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, hostRss(pid) ?? 0)), 50);
  await startGaps(page);
  const t0 = Date.now();
  await page.keyboard.press('Control+Enter');
  try {
    const f = await getFrame();
    const tabId = await waitUntil(() => f.evaluate((prev) => {
      const b = document.querySelector<HTMLElement>('.tab-body.active');
      return b && b.dataset.tabId !== prev && b.querySelector('.vgrid-row:not([hidden])') ? b.dataset.tabId : undefined;
    }, lastTab), 'the first rows', 60_000, 10);
    const keyToFirst = Date.now() - t0;
    const state = await waitUntil(() => f.evaluate(() => {
      const b = document.querySelector<HTMLElement>('.tab-body.active')!;
      const status = b.querySelector('.status')?.textContent ?? '';
      const rows = Number(b.dataset.rows);
      return b.dataset.state === 'done' && b.dataset.firstPaintMs && b.dataset.gridRows === b.dataset.rows && status.startsWith(`${rows.toLocaleString('en-US')} of`)
        ? { firstPaintMs: Number(b.dataset.firstPaintMs), rows, marks: JSON.parse(b.dataset.marks ?? '{}') as Record<string, number> }
        : undefined;
    }), 'the whole answer in the grid', 600_000, 20);
    const loaded = Date.now() - t0;
    const expected = Number(/top (\d+)/.exec(query)![1]);
    if (state.rows !== expected) throw new Error(`the panel shows ${state.rows} rows for ${query}, not ${expected}: the wrong query ran`);
    const frames = await stopGaps(page);
    return { tabId, keyToFirst, loaded, frames, ...state, hostGrowthMB: before === undefined ? undefined : r1((peak - before) / MB) };
  } finally {
    clearInterval(sampler);
  }
}

/** Scrolls the active grid to its end until the last row's number shows; sorts and filters over all rows. */
async function reachSortFilter(page: Page, f: Frame, rows: number): Promise<Record<string, unknown>> {
  const t0 = Date.now();
  await waitUntil(() => f.evaluate((n) => {
    const s = document.querySelector<HTMLElement>('.tab-body.active .vgrid-scroll')!;
    s.scrollTop = s.scrollHeight;
    const nums = [...document.querySelectorAll('.tab-body.active .vgrid-row:not([hidden]) .row-num')].map((c) => Number(c.textContent));
    return nums.includes(n) ? true : undefined;
  }, rows), `row ${rows} on screen`, 30_000, 50);
  const lastRowMs = Date.now() - t0;
  const timed = async (act: () => Promise<void>, what: string): Promise<{ ms: number; wallMs: number; maxFrameMs: number; shown: number }> => {
    await f.evaluate(() => delete document.querySelector<HTMLElement>('.tab-body.active')!.dataset.viewMs);
    await startGaps(page);
    const w0 = Date.now();
    await act();
    const ms = await waitUntil(() => f.evaluate(() => document.querySelector<HTMLElement>('.tab-body.active')!.dataset.viewMs), what, 120_000, 20);
    const wallMs = Date.now() - w0;
    const gaps = await stopGaps(page);
    const shown = await f.evaluate(() => Number(document.querySelector<HTMLElement>('.tab-body.active')!.dataset.viewRows));
    return { ms: Number(ms), wallMs, maxFrameMs: gaps.max, shown };
  };
  const sort = await timed(() => f.locator('.tab-body.active .vgrid-col[data-col="3"] .vgrid-sorter').click(), 'the sort by delay');
  const filter = await timed(() => f.locator('.tab-body.active .vgrid-col[data-col="1"] .vgrid-filter').fill('AA'), 'the filter on origin');
  // the anchor: the page sorting as many numbers as the answer has rows (a typed-array sort, no comparator)
  const anchorSortMs = await f.evaluate((n) => {
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % 400;
    const t = performance.now();
    a.sort();
    return Math.round(performance.now() - t);
  }, rows);
  // back to the whole answer, unsorted, for the next run
  await f.locator('.tab-body.active .vgrid-col[data-col="1"] .vgrid-filter').fill('');
  for (let i = 0; i < 2; i++) await f.locator('.tab-body.active .vgrid-col[data-col="3"] .vgrid-sorter').click();
  return { lastRowMs, sortMs: sort.ms, sortWallMs: sort.wallMs, sortMaxFrameMs: sort.maxFrameMs, filterMs: filter.ms, filterWallMs: filter.wallMs, filterMaxFrameMs: filter.maxFrameMs, filterRows: filter.shown, anchorSortMs };
}

export async function run(): Promise<Record<string, unknown>> {
  let skip: string | false;
  try {
    skip = e2eSkip(['dist/emulator.js', 'dist/webview.js']);
  } catch (e) {
    return { skipped: (e as Error).message };
  }
  if (skip) return { skipped: skip };
  const seed = millionSeed();
  const session = await startSession({ name: 'results-bench', suite: 'results.js', emulator: true, emulatorArgs: ['--seed', seed], settings: { 'tsq.results.maxRows': 1_000_000, 'tsq.results.pageSize': 100_000 } });
  const out: Record<string, unknown> = {};
  try {
    const suite = await session.waitForSuite();
    if (suite.failed || suite.error) throw new Error(`the in-host suite failed: ${JSON.stringify(suite)}`);
    const page = session.page;
    // the in-host suite leaves a results panel of its own open: close it, so that the only panel is ours
    await session.runCommand('View: Close All Editors');
    await session.openFile('results-bench.tsq');
    let frame: Frame | undefined;
    const getFrame = async (): Promise<Frame> => (frame ??= await session.webviewFrame('.tab-body', 60_000));
    let lastTab = '';
    for (const [name, query] of Object.entries(QUERIES)) {
      const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
      for (let i = 0; i < REPEATS[name]; i++) {
        const r = await runOnce(session, query, lastTab, getFrame);
        lastTab = r.tabId;
        runs.push(r);
      }
      const f = await getFrame();
      const heap = await heapMB(page, f);
      const extra = name === 'rows1k' ? {} : await reachSortFilter(page, f, runs[0].rows);
      const marks = runs.map((r) => r.marks);
      out[name] = {
        rows: runs[0].rows,
        firstRowsMs: median(runs.map((r) => r.firstPaintMs)),
        firstRowsMsAll: runs.map((r) => r.firstPaintMs),
        // the panel's own part: from the host having the first page to its rows painted
        panelFirstRowsMs: median(runs.map((r) => r.marks.painted - r.marks.hostFirstPage)),
        keyToFirstRowsMs: median(runs.map((r) => r.keyToFirst)),
        allRowsLoadedMs: median(runs.map((r) => r.loaded)),
        workbenchMaxFrameMs: Math.max(...runs.map((r) => r.frames.max)),
        // frames over 50 ms of each run: [ms after the key press when the frame began, its length]
        longFramesMs: runs.map((r) => r.frames.long),
        webviewHeapMB: heap,
        hostGrowthMB: Math.max(...runs.map((r) => r.hostGrowthMB ?? Number.NaN)),
        ...extra,
        milestonesMsAll: marks,
        milestonesMs: Object.fromEntries([...new Set(marks.flatMap((m) => Object.keys(m)))].map((k) => [k, median(marks.map((m) => m[k]).filter((x) => x !== undefined))])),
      };
    }
  } finally {
    await session.close();
    rmSync(seed, { recursive: true, force: true });
  }
  return out;
}
