/**
 * End-to-end smoke test in a real VS Code (code-server in Chromium), with no connection: the
 * extension activates when a .tsq file opens, keyword completion works (through the completion
 * provider API in the extension host and in the visible suggest widget), and a syntax error shows in
 * the Problems panel. Needs scripts/install-e2e-tools.sh; skipped without it unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

test('smoke: a .tsq file in a real VS Code without a connection', { skip: e2eSkip(), timeout: 420_000 }, async (t) => {
  const session = await startSession({ name: 'smoke', suite: 'smoke.js', deferTsqFiles: true });
  try {
    await reportInHost(t, session, 3);

    await t.test('the syntax error is listed in the Problems panel', () => session.step('problems', async () => {
      const rows = await session.problems((r) => r.some((x) => x.includes('syntax-error.tsq')) && r.length >= 2);
      const fileIndex = rows.findIndex((x) => x.includes('syntax-error.tsq'));
      assert.ok(fileIndex >= 0, `a row for syntax-error.tsq: ${JSON.stringify(rows)}`);
      assert.ok(rows.length > fileIndex + 1, `a problem under syntax-error.tsq: ${JSON.stringify(rows)}`);
    }));

    await t.test('the suggest widget offers keywords after a column', () => session.step('suggest', async () => {
      await session.openFile('smoke.tsq');
      // The widget renders only the rows in view: a typed prefix filters the list down to 'top'.
      const rows = await session.suggest('[delay] to', (r) => r.some((x) => /^top\b/i.test(x)), { invoke: true });
      const top = rows.find((x) => /^top\b/i.test(x));
      assert.match(top ?? '', /keyword/i, `'top' is offered as a keyword: ${JSON.stringify(rows)}`);
    }));

    // The Run-query and Load-CSV tests read their webviews through webviewFrame(); a built-in webview
    // (the Markdown preview) shows that it reaches into the nested iframes.
    await t.test('the harness reaches the DOM of a webview', () => session.step('webview', async () => {
      await session.openFile('notes.md');
      await session.runCommand('Markdown: Open Preview to the Side');
      const frame = await session.webviewFrame('h1');
      assert.equal((await frame.locator('h1').first().innerText()).trim(), 'Notes for the end-to-end tests');
    }));
  } finally {
    await session.close();
  }
});
