/**
 * End-to-end test of Answers as code in the editor and of "one mistake, one problem" in a real VS Code
 * (code-server in Chromium) against the demo emulator. The in-host suite (suites/tmleditor.js) connects,
 * writes the TML files, and checks that a query with an error TSQ reports is not sent, and that the
 * service's refusal of it (run anyway) adds no second problem. Then, from the editor title: Validate TML
 * on an answer the service refuses puts the service's message in the Problems panel on the line of the
 * member it names; Import TML on a right answer says the imported GUID. The failed tab of the run anyway
 * has Chart and Export disabled. Skipped without the tools unless
 * TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, startSession, UI_TIMEOUT_MS } from './harness';
import { reportInHost } from './report';

test('TML in the editor: Validate TML and Import TML from the editor title; a query with a local error is not sent', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({ name: 'tmleditor', suite: 'tmleditor.js', emulator: true });
  try {
    await reportInHost(t, session, 4);
    const titleAction = (label: string) => session.page.locator(`.editor-actions .action-item a[aria-label^="${label}"]`).first();

    await t.test('the failed tab of the run anyway: Chart and Export are disabled, Grid is not', () => session.step('failed-tab', async () => {
      const frame = await session.webviewFrame('.tab-body[data-state="error"]', 60_000);
      const body = frame.locator('.tab-body[data-state="error"]').first();
      for (const b of ['.chart-btn', '.export-csv', '.export-json']) await body.locator(`${b}:disabled`).waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
      assert.equal(await body.locator('.grid-btn').isDisabled(), false);
    }));

    await t.test('Validate TML from the editor title: the service\'s message in Problems, on the line of answer.tables', () => session.step('validate', async () => {
      await session.openFile('two-sources.answer.tml');
      const action = titleAction('Validate TML');
      await action.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await action.click();
      const rows = await session.problems((r) => r.some((x) => x.includes('names 2 data sources')), 120_000);
      const row = rows.find((x) => x.includes('names 2 data sources'))!;
      assert.match(row, /the service: answer\.tables names 2 data sources/, row);
      assert.match(row, /\[Ln 3, Col 3\]/, row);
    }));

    await t.test('Import TML from the editor title: the notification says the imported GUID', () => session.step('import', async () => {
      await session.openFile('good.answer.tml');
      const action = titleAction('Import TML');
      await action.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await action.click();
      const rows = await session.notifications((r) => r.some((x) => /good\.answer\.tml imported as [0-9a-f-]{36}/.test(x)), 120_000);
      assert.ok(rows.some((x) => /good\.answer\.tml imported as [0-9a-f-]{36}/.test(x)), JSON.stringify(rows));
    }));
  } finally {
    await session.close();
  }
});
