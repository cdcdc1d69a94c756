/**
 * End-to-end test of answers as code in a real VS Code (code-server in Chromium) against the demo
 * emulator: the in-host suite (suites/answers.js) saves a query as an Answer, opens it back as a query,
 * updates it after an edit and reads the re-exported search_query, and sees a bad column of an
 * .answer.tml file, and of a .liveboard.tml's second visualization, as a diagnostic inside the YAML string; a query's run is in the History view after a
 * window reload, and Run Again from its context menu runs it again. Skipped without the tools unless
 * TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextMenuItem, e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

test('answers: save, open, update an Answer and check an .answer.tml in a real VS Code', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({ name: 'answers', suite: 'answers.js', emulator: true });
  try {
    await reportInHost(t, session, 8);
    const query = '[destination] [distance] top 2';
    const runs = (rows: string[]): number => rows.filter((r) => r === query).length;
    await t.test('the History survives a window reload, and Run Again runs the query again', () => session.step('history', async () => {
      const before = await session.treeItems('TSQ', (r) => runs(r) >= 1, 60_000);
      assert.equal(runs(before), 1, JSON.stringify(before));
      await session.reload();
      const rows = await session.treeItems('TSQ', (r) => runs(r) >= 1, 90_000);
      assert.equal(runs(rows), 1, JSON.stringify(rows));
      const row = session.page.locator('.sidebar .monaco-list-row[role="treeitem"]', { hasText: query }).first();
      await row.click({ button: 'right' });
      await contextMenuItem(session.page, 'Run Again');
      const after = await session.treeItems('TSQ', (r) => runs(r) >= 2, 90_000);
      assert.equal(runs(after), 2, JSON.stringify(after));
    }));
  } finally {
    await session.close();
  }
});
