/**
 * End-to-end test of the Uses view in a real VS Code (code-server in Chromium) against the demo emulator:
 * the in-host suite (suites/uses.js) connects, writes a .tsq file and an Answer TML that use [delay] of
 * flights and puts the cursor on it; TSQ: Show Uses from the command palette then fills the Uses view
 * with the Answer TML (a workspace use) and the demo's answer on the Flights Model whose search names a
 * formula over that column (a service dependent). Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

/** The demo's answer over the Flights Model's [Delayed Share], a formula of [Delay] (emulator/src/demo.ts). */
const SERVICE_ANSWER = 'Late flights by origin state';

test('the Uses view in VS Code: TSQ: Show Uses lists the workspace file and the service answer that use a column', { skip: e2eSkip(['dist/emulator.js']), timeout: 420_000 }, async (t) => {
  const session = await startSession({ name: 'uses', suite: 'uses.js', emulator: true });
  try {
    await reportInHost(t, session, 3);
    await t.test('TSQ: Show Uses from the palette shows the Answer TML and the service\'s answer', () => session.step('uses-view', async () => {
      await session.runCommand('TSQ: Show Uses');
      // the fixture's other .tsq files use [delay] too: the Objects and History views are collapsed so that
      // the Uses view has the side bar's height and renders every row (a tree renders the rows it shows only)
      for (const title of ['Objects', 'History']) {
        const header = session.page.locator('.sidebar .pane-header[aria-expanded="true"]', { hasText: title }).first();
        if (await header.count()) await header.click();
      }
      const rows = await session.treeItems('TSQ', (r) => r.includes('uses.answer.tml') && r.includes(SERVICE_ANSWER), 90_000);
      assert.ok(rows.includes('uses.tsq'), `the .tsq file's own use is listed too: ${JSON.stringify(rows)}`);
      assert.ok(rows.includes('On the service'), JSON.stringify(rows));
    }));
  } finally {
    await session.close();
  }
});
