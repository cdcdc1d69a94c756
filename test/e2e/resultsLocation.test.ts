/**
 * End-to-end test of results where people look, in a real VS Code (code-server in Chromium) against
 * the demo emulator, with `tsq.results.location` at its default (`panel`). The in-host suite
 * (suites/resultsLocation.js) connects, checks that a run opens no results editor tab, and that Run
 * Again runs a file's query in that file's editor (opening it when closed) and never in an Untitled
 * document. Then, through the UI: Ctrl+Enter shows the answer in the TSQ Results view of the bottom
 * panel, in one tab per document; a re-run of the document replaces its tab, a pinned tab is kept;
 * another document gets a tab of its own; the Messages tab lists each run's rows and time and the
 * service's message of a failed one; the status bar shows the last run's rows and time, and the query
 * running, whose click cancels it (the request is aborted: the TSQ log shows it). Skipped without the
 * tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { AnalyticsServiceClient, ServiceError } from '../../common/src/api';
import { e2eSkip, startSession, waitUntil, type E2eSession, tsqLogs } from './harness';
import { reportInHost } from './report';

/** The slow query's text holds this; the emulator delays its searchdata by SLOW_MS. */
const SLOW_MARK = '[Miles_per_Gallon]';
const SLOW_MS = 120_000;

/** What the TSQ Results view shows: its tabs (label, pinned), the active one's state and rows, the Messages. */
interface ViewState {
  tabs: { label: string; group: string; pinned: boolean; active: boolean }[];
  active?: { tabId: string; state: string; rows: number; error: string };
  messages: string[];
  messagesActive: boolean;
}

function viewState(frame: Frame): Promise<ViewState> {
  return frame.evaluate(() => {
    const body = document.querySelector<HTMLElement>('.tab-body.active:not(.messages-body)');
    const error = body?.querySelector<HTMLElement>('.error');
    return {
      tabs: [...document.querySelectorAll<HTMLElement>('.tab:not(.messages-tab)')].map((t) => ({ label: t.textContent ?? '', group: t.dataset.group ?? '', pinned: t.dataset.pinned === 'true', active: t.classList.contains('active') })),
      active: body ? { tabId: body.dataset.tabId ?? '', state: body.dataset.state ?? '', rows: Number(body.dataset.rows ?? 0), error: error && !error.hidden ? error.textContent ?? '' : '' } : undefined,
      messages: [...document.querySelectorAll('.message-row')].map((r) => r.textContent ?? ''),
      messagesActive: !!document.querySelector('.messages-body.active'),
    };
  });
}

test('results in the bottom panel: a tab per document, pin, Messages, the status bar and Run Again', { skip: e2eSkip(['dist/emulator.js', 'dist/webview.js']), timeout: 900_000 }, async (t) => {
  process.env.TSQ_EMULATOR_DELAY_SEARCHDATA = `${SLOW_MS}:${SLOW_MARK}`;
  let session: E2eSession;
  try {
    session = await startSession({ name: 'resultsLocation', suite: 'resultsLocation.js', emulator: true });
  } finally {
    delete process.env.TSQ_EMULATOR_DELAY_SEARCHDATA;
  }
  const client = new AnalyticsServiceClient({ url: session.emulatorUrl!, username: 'tsadmin', password: 'admin' });
  const page = session.page;
  try {
    await reportInHost(t, session, 3);

    /** Puts the cursor on the line of `file` holding `text` and presses Ctrl+Enter. */
    const runLine = async (file: string, text: string): Promise<void> => {
      await session.openFile(file);
      const line = page.locator('.editor-group-container .monaco-editor .view-line', { hasText: text }).first();
      await line.waitFor({ state: 'visible', timeout: 10_000 });
      await line.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Control+Enter');
    };
    // only the view has a Messages tab: a results editor tab has none
    const frame = await session.webviewFrame('.messages-tab', 60_000);
    /** Waits until the view's state satisfies `until`. */
    const view = (until: (v: ViewState) => boolean, what: string, timeoutMs = 60_000): Promise<ViewState> => waitUntil(async () => {
      const v = await viewState(frame);
      return until(v) ? v : undefined;
    }, what, timeoutMs, 100);
    const ofFile = (v: ViewState, file: string) => v.tabs.filter((x) => x.label.replace(/^📌 /, '').startsWith(`${file} · `));
    const statusItem = (text: string) => page.locator('.statusbar-item', { hasText: text }).first();
    let lastTab = '';

    await t.test('Ctrl+Enter shows the answer in the panel, in the tab of its document, and the status bar gives its rows and time', () => session.step('panel', async () => {
      // the in-host suite's runs of the same query left their tab: the one to wait for is another
      const before = (await viewState(frame)).active?.tabId;
      await runLine('results.tsq', '[origin] [delay] top 10');
      const v = await view((x) => x.active?.state === 'done' && x.active.tabId !== before && x.active.rows === 10 && ofFile(x, 'results.tsq').some((tab) => tab.active && tab.label === 'results.tsq · [origin] [delay] top 10'), 'the top 10 in the view');
      lastTab = v.active!.tabId;
      assert.equal(ofFile(v, 'results.tsq').length, 1, JSON.stringify(v.tabs));
      const editorTabs = await page.locator('.editor-group-container .tabs-container .tab').allTextContents();
      assert.ok(!editorTabs.some((x) => /Results/.test(x)), `no results editor tab: ${JSON.stringify(editorTabs)}`);
      await statusItem('TSQ: 10 rows · ').waitFor({ state: 'visible', timeout: 30_000 });
      assert.match(await statusItem('TSQ: 10 rows · ').innerText(), /TSQ: 10 rows · \d+\.\d s/);
    }));

    await t.test('a run of the same document replaces its tab', () => session.step('replace', async () => {
      await runLine('results.tsq', '[date].monthly [distance]');
      const v = await view((x) => x.active?.state === 'done' && x.active.tabId !== lastTab && x.tabs.some((tab) => tab.active && tab.label === 'results.tsq · [date].monthly [distance]'), 'the monthly answer in the view');
      lastTab = v.active!.tabId;
      assert.deepEqual(ofFile(v, 'results.tsq').map((x) => x.label), ['results.tsq · [date].monthly [distance]']);
    }));

    await t.test('a pinned tab is kept: the next run of its document opens a tab beside it', () => session.step('pin', async () => {
      await frame.locator('.tab.active + .tab-pin').click();
      await view((x) => ofFile(x, 'results.tsq').some((tab) => tab.pinned && tab.label === '📌 results.tsq · [date].monthly [distance]'), 'the tab pinned');
      await runLine('results.tsq', '[origin] [delay] top 10');
      const v = await view((x) => x.active?.state === 'done' && x.active.tabId !== lastTab && x.active.rows === 10 && x.tabs.some((tab) => tab.active && tab.label === 'results.tsq · [origin] [delay] top 10'), 'the next run in a new tab');
      lastTab = v.active!.tabId;
      const tabs = ofFile(v, 'results.tsq');
      assert.deepEqual(tabs.map((x) => [x.label, x.pinned]), [['📌 results.tsq · [date].monthly [distance]', true], ['results.tsq · [origin] [delay] top 10', false]]);
      assert.notEqual(tabs[0]!.group, tabs[1]!.group);
    }));

    await t.test('another document gets a tab of its own; the tabs of the first stay', () => session.step('documents', async () => {
      await runLine('flights.tsq', 'sort by [delay] descending');
      const v = await view((x) => x.active?.state === 'done' && x.active.tabId !== lastTab && ofFile(x, 'flights.tsq').some((tab) => tab.active), 'the flights.tsq tab');
      assert.equal(ofFile(v, 'flights.tsq').length, 1, JSON.stringify(v.tabs));
      lastTab = v.active!.tabId;
      assert.equal(ofFile(v, 'results.tsq').length, 2, JSON.stringify(v.tabs));
    }));

    await t.test("the Messages tab lists each run's rows and time, and the service's message of a failed one", () => session.step('messages', async () => {
      const flights = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 })).find((h) => h.name === 'flights')!;
      const refused = await client.searchData({ queryString: '[origin] [no such column]', dataSourceGuid: flights.id }).then(() => '', (e: unknown) => (e instanceof ServiceError ? e.serviceMessage ?? '' : String(e)));
      assert.ok(refused, 'the service refuses the query');
      // the query has a local error (the unknown column), so it is held back until Run Anyway sends it
      await runLine('results.tsq', '[origin] [no such column]');
      await session.notificationAction('the query was not sent', 'Run Anyway');
      await view((x) => x.active?.state === 'error', 'the refused query in the view');
      await frame.locator('.messages-tab').click();
      const v = await view((x) => x.messagesActive && x.messages.some((m) => m.includes('[no such column]')), 'the Messages tab');
      const ok = v.messages.filter((m) => /results\.tsq — 10 rows in \d+\.\d s: \[origin\] \[delay\] top 10$/.test(m));
      assert.ok(ok.length >= 2, JSON.stringify(v.messages));
      assert.ok(v.messages.some((m) => /flights\.tsq — 10 rows in \d+\.\d s: \[origin\] \[delay\] top 10 sort by \[delay\] descending/.test(m)), JSON.stringify(v.messages));
      const failed = v.messages.find((m) => m.includes('[no such column]'))!;
      assert.match(failed, /results\.tsq — failed after \d+\.\d s: /);
      assert.ok(failed.includes(refused), `${failed} includes ${refused}`);
      const violations = await frame.evaluate(() => document.getElementById('app')!.dataset.cspViolations ?? '');
      assert.equal(violations, '', 'no Content-Security-Policy violation in the view');
    }));

    await t.test('the status bar shows the query running; its click cancels the run and aborts the request', () => session.step('status', async () => {
      await runLine('results.tsq', `[Name] ${SLOW_MARK} [Origin] = 'USA'`);
      const running = statusItem('TSQ: running [Name] [Miles_per_Gallon]');
      await running.waitFor({ state: 'visible', timeout: 30_000 });
      const clicked = Date.now();
      await running.click();
      await statusItem('TSQ: cancelled after').waitFor({ state: 'visible', timeout: 30_000 });
      assert.ok(Date.now() - clicked < SLOW_MS / 2, 'stopped long before the service would answer');
      const logs = await waitUntil(() => {
        const text = tsqLogs(session);
        return /POST \S*searchdata ERR/.test(text) && /Query cancelled/.test(text) ? text : undefined;
      }, 'the TSQ log to show the aborted searchdata request', 30_000);
      assert.match(logs, /Query cancelled after \d+ ms/);
      await frame.locator('.tab', { hasText: SLOW_MARK }).first().click();
      await view((x) => x.active?.state === 'cancelled', 'the tab of the slow query shows it cancelled');
    }));
  } finally {
    await client.close();
    await session.close();
  }
});
