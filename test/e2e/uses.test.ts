/**
 * End-to-end test of the Uses view in a real VS Code (code-server in Chromium) against the demo emulator:
 * the in-host suite (suites/uses.js) connects, writes a .tsq file and an Answer TML that use [delay] of
 * flights, and leaves the view saying there is no column at the cursor, with the TML's editor active on
 * [Delay] inside its search_query string. TSQ: Show Uses from the command palette, on that TML column and
 * then on the .tsq file's, fills the Uses view with both files (workspace uses) and the demo's answer on
 * the Flights Model whose search names a formula over that column (a service dependent), the view's
 * description naming the column as the file at the cursor writes it. Skipped without the tools unless
 * TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, startSession, waitUntil, type E2eSession } from './harness';
import { reportInHost } from './report';

/** The demo's answer over the Flights Model's [Delayed Share], a formula of [Delay] (emulator/src/demo.ts). */
const SERVICE_ANSWER = 'Late flights by origin state';
/** The first words of the view's row when the cursor is on no column (client/src/uses.ts). */
const NO_COLUMN = 'No column at the cursor';

/**
 * Runs TSQ: Show Uses from the palette and returns the side bar's rows once the Uses view lists both
 * files and the service's answer and its description (the pane header's) is `described`.
 */
async function showUses(session: E2eSession, described: string): Promise<string[]> {
  await session.runCommand('TSQ: Show Uses');
  // the fixture's other .tsq files use [delay] too: the Objects and History views are collapsed so that
  // the Uses view has the side bar's height and renders every row (a tree renders the rows it shows only)
  for (const title of ['Objects', 'History']) {
    const header = session.page.locator('.sidebar .pane-header[aria-expanded="true"]', { hasText: title }).first();
    if (await header.count()) await header.click();
  }
  const rows = await session.treeItems('TSQ', (r) => r.includes('uses.answer.tml') && r.includes('uses.tsq') && r.includes(SERVICE_ANSWER), 90_000);
  const description = session.page.locator('.sidebar .pane-header', { hasText: 'Uses' }).locator('.description').first();
  await waitUntil(async () => ((await description.textContent())?.trim() === described ? true : undefined), `the Uses view described as ${described}`, 20_000);
  return rows;
}

test('the Uses view in VS Code: TSQ: Show Uses on a column of an Answer TML and of a .tsq file lists the files and the service answer', { skip: e2eSkip(['dist/emulator.js']), timeout: 420_000 }, async (t) => {
  const session = await startSession({ name: 'uses', suite: 'uses.js', emulator: true });
  try {
    await reportInHost(t, session, 4);
    await t.test('TSQ: Show Uses from the palette on [Delay] inside the Answer TML\'s search_query', () => session.step('uses-view-tml', async () => {
      // the in-host suite left the view on its message: the rows below come from this run
      const rows = await showUses(session, '[Delay] of flights');
      assert.ok(rows.includes('On the service'), JSON.stringify(rows));
      assert.ok(!rows.some((r) => r.startsWith(NO_COLUMN)), JSON.stringify(rows));
    }));
    await t.test('TSQ: Show Uses from the palette on [delay] of the .tsq file', () => session.step('uses-view-tsq', async () => {
      await session.openFile('uses.tsq'); // its editor keeps the cursor the suite put on [delay]
      const rows = await showUses(session, '[delay] of flights');
      assert.ok(rows.includes('On the service'), JSON.stringify(rows));
    }));
  } finally {
    await session.close();
  }
});
