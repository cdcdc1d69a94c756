/**
 * End-to-end test of the Objects view's Users & Groups and Tags, and an administration command, in a
 * real VS Code (code-server in Chromium) against an emulator where REST API v1 is gone
 * (`--public-api v2`, as on a current cloud build): the tree lists the tags and the groups through
 * `metadata/search` and `users/search`/`groups/search`, and TSQ: Add Group Privilege… gives a group a
 * privilege through `groups/{id}/update`, which the service then shows. Skipped without the tools unless
 * TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { e2eSkip, exactText, runCommandIn, waitUntil, type E2eSession } from './harness';
import { tsadminToken, withCloudSession, withV2Emulator } from './v2-support';

/** Expands `label` when its children are not shown yet, and waits for rows that `until` accepts. */
async function expand(session: E2eSession, label: string, until: (rows: string[]) => boolean): Promise<string[]> {
  const before = await session.treeItems('TSQ', (r) => r.includes(label), 90_000);
  if (!until(before)) await session.toggleTreeItem(label);
  return session.treeItems('TSQ', until, 90_000);
}

/** Clicks the row of the open quick pick whose label is `text`. */
async function pickRow(session: E2eSession, text: string): Promise<void> {
  // Filter by typing, then Enter on the first row once it holds the text: a click could land on
  // another row while one quick pick replaces the previous one (the group pick, then the privilege pick)
  // and the list is laid out again.
  const input = session.page.locator('.quick-input-widget input').first();
  const first = session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
  await waitUntil(async () => {
    await input.fill(text, { timeout: 2_000 });
    const label = await first.textContent({ timeout: 2_000 }).catch(() => null);
    return label?.includes(text) ? true : undefined;
  }, `the quick pick to offer ${text} first`, 60_000, 200);
  await session.page.keyboard.press('Enter');
}

/** The privileges of the group `name`, asked of the service directly over v2. */
async function privilegesOf(url: string, name: string): Promise<string[]> {
  const token = await tsadminToken(url);
  const r = await fetch(`${url}/api/rest/2.0/groups/search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ group_identifier: name }) });
  assert.equal(r.status, 200);
  return ((await r.json()) as { privileges: string[] }[])[0]?.privileges ?? [];
}

test('v2 administration: Users & Groups, Tags and Add Group Privilege against a service where v1 is gone', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  await withV2Emulator('v2admin', 'admin', async (url) => {
    assert.ok(!(await privilegesOf(url, 'Analysts')).includes('DATAMANAGEMENT'));
    await withCloudSession('v2admin', url, async (session) => {
      await t.test('the tree shows Users & Groups and Tags over REST API v2', () => session.step('roots', async () => {
        await session.openFile('flights.tsq');
        const roots = await session.treeItems('TSQ', (r) => r.includes('Users & Groups') && r.includes('Tags'), 120_000);
        assert.ok(roots.includes('Data Sources'), JSON.stringify(roots));
      }));

      await t.test('Tags expands to the demo tags', () => session.step('tags', async () => {
        const rows = await expand(session, 'Tags', (r) => ['demo', 'finance', 'weather'].every((n) => r.includes(n)));
        assert.ok(rows.includes('flights'), JSON.stringify(rows));
        await session.toggleTreeItem('Tags'); // collapse again to keep the rows in view
      }));

      await t.test('Users & Groups expands to the groups and users', () => session.step('principals', async () => {
        await expand(session, 'Users & Groups', (r) => r.includes('Users') && r.includes('Groups'));
        const groups = await expand(session, 'Groups', (r) => r.includes('Analysts'));
        assert.ok(groups.includes('Data Managers'), JSON.stringify(groups));
        await session.toggleTreeItem('Groups');
        // a user's row is "Display Name (name)"
        const users = await expand(session, 'Users', (r) => r.some((x) => x.includes('(analyst)')));
        assert.ok(users.some((x) => x.includes('(tsadmin)')), JSON.stringify(users));
        await session.toggleTreeItem('Users');
      }));

      await t.test('TSQ: Add Group Privilege… gives Analysts DATAMANAGEMENT through v2', () => session.step('add-privilege', async () => {
        await runCommandIn(session.page, 'TSQ: Add Group Privilege');
        await pickRow(session, 'Analysts');
        await pickRow(session, 'DATAMANAGEMENT');
        const dialog = session.page.locator('.monaco-dialog-box', { hasText: 'Analysts' });
        await dialog.waitFor({ state: 'visible', timeout: 60_000 });
        // a click while the dialog is still being laid out can be lost: press until it closes
        await waitUntil(async () => {
          await dialog.getByRole('button', { name: exactText('Add Privilege') }).click();
          return dialog.waitFor({ state: 'hidden', timeout: 10_000 }).then(() => true, () => undefined);
        }, 'the confirmation to close', 60_000, 100);
        await session.notifications((r) => r.some((x) => x.includes('Added DATAMANAGEMENT to Analysts')), 60_000);
        assert.ok((await privilegesOf(url, 'Analysts')).includes('DATAMANAGEMENT'), 'the service shows the privilege');
      }));
    });
  });
});
