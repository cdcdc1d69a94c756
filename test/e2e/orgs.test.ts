/**
 * End-to-end test of Orgs in a real VS Code (code-server in Chromium) against an emulator where REST
 * API v1 is gone (`--public-api v2`, a current cloud build) with the demo's two Orgs: the Objects view
 * shows Primary's tables and an Orgs root with both Orgs; TSQ: Switch Org… offers the user's Orgs, and after picking Finance the
 * tree shows Finance's table and none of Primary's, and the status bar names the Org. Skipped without the
 * tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, runCommandIn, waitUntil, type E2eSession } from './harness';
import { withCloudSession, withV2Emulator } from './v2-support';

/** Expands `label` when `child` is not shown yet (a tree refresh may have collapsed it). */
async function ensureExpanded(session: E2eSession, label: string, shown: (rows: string[]) => boolean): Promise<void> {
  const rows = await session.treeItems('TSQ', (r) => r.includes(label), 120_000);
  if (!shown(rows)) await session.toggleTreeItem(label);
}

/** The rows of the tree once Data Sources › Tables is open and `until` accepts them. */
async function tables(session: E2eSession, until: (rows: string[]) => boolean): Promise<string[]> {
  await ensureExpanded(session, 'Data Sources', (r) => r.includes('Tables'));
  await ensureExpanded(session, 'Tables', until);
  return session.treeItems('TSQ', until, 120_000);
}

test('Orgs: TSQ: Switch Org… moves the tree to the Finance Org and the status bar names it', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  await withV2Emulator('orgs', 'admin', async (url) => {
    await withCloudSession('orgs', url, async (session) => {
      await t.test('the tree shows the data sources of Primary', () => session.step('primary', async () => {
        await session.openFile('flights.tsq');
        const rows = await tables(session, (r) => r.includes('flights'));
        assert.ok(!rows.includes('quotes'), JSON.stringify(rows));
        // tsadmin acts in both Orgs: the Orgs root lists them (the data sources folded, to keep its rows in view)
        await session.toggleTreeItem('Tables');
        await session.toggleTreeItem('Data Sources');
        await ensureExpanded(session, 'Orgs', (r) => r.includes('Finance'));
        await session.treeItems('TSQ', (r) => r.includes('Finance') && r.includes('Primary'), 60_000);
        await session.toggleTreeItem('Orgs');
      }));

      await t.test('Switch Org offers both Orgs; picking Finance shows its table only', () => session.step('switch', async () => {
        await runCommandIn(session.page, 'TSQ: Switch Org');
        const input = session.page.locator('.quick-input-widget input').first();
        const first = session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
        await waitUntil(async () => {
          await input.fill('Finance', { timeout: 2_000 });
          const label = await first.textContent({ timeout: 2_000 }).catch(() => null);
          return label?.includes('Finance') ? true : undefined;
        }, 'the quick pick to offer Finance', 60_000, 200);
        await session.page.keyboard.press('Enter');
        // the tree is made anew in Finance: once Primary's tables are gone, open Tables (a refresh folds it)
        const rows = await waitUntil(async () => {
          const now = await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 10_000);
          if (now.includes('quotes') && !now.includes('flights')) return now;
          if (!now.includes('flights') && now.includes('Tables')) await session.toggleTreeItem('Tables').catch(() => undefined);
          else if (!now.includes('Tables')) await session.toggleTreeItem('Data Sources').catch(() => undefined);
          return undefined;
        }, 'the tree to show the Finance table', 120_000, 2_000);
        assert.ok(!rows.includes('movies'), JSON.stringify(rows));
        const status = session.page.locator('.statusbar-item', { hasText: 'Org Finance' });
        await status.first().waitFor({ state: 'visible', timeout: 60_000 });
      }));
    });
  });
});
