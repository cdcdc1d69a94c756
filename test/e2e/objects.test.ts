/**
 * End-to-end test of the Objects view's Share… and Delete… in a real VS Code (code-server in Chromium)
 * against an emulator on REST API v2 only: an answer tsadmin imported is shared with the analyst (the
 * user picked, "Can view") from its context menu, which the service then shows in its permissions; then
 * deleted from its context menu after the modal naming it, gone from the service and from the tree.
 * Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { e2eSkip, exactText, waitUntil, type E2eSession } from './harness';
import { tsadminToken, withCloudSession, withV2Emulator } from './v2-support';

const NAME = 'Shared from the tree';

/** A v2 call as tsadmin; the JSON answer (undefined for 204). */
async function v2(url: string, path: string, body: unknown): Promise<unknown> {
  const r = await fetch(`${url}/api/rest/2.0/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await tsadminToken(url)}` }, body: JSON.stringify(body) });
  assert.ok(r.status === 200 || r.status === 204, `${path}: ${r.status} ${await r.clone().text()}`);
  return r.status === 204 ? undefined : r.json();
}

/** Filters the open quick pick by `text` and presses Enter once its first row holds it. */
async function pickRow(session: E2eSession, text: string): Promise<void> {
  const input = session.page.locator('.quick-input-widget input').first();
  const first = session.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
  await waitUntil(async () => {
    await input.fill(text, { timeout: 2_000 });
    const label = await first.textContent({ timeout: 2_000 }).catch(() => null);
    return label?.includes(text) ? true : undefined;
  }, `the quick pick to offer ${text} first`, 60_000, 200);
}

test('Objects view: Share… and Delete… on an answer, on a service where v1 is gone', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  await withV2Emulator('objects', 'admin', async (url) => {
    const [imported] = (await v2(url, 'metadata/tml/import', { metadata_tmls: [`answer:\n  name: ${NAME}\n  tables:\n  - name: flights\n  search_query: "[Origin] [Delay]"\n`], import_policy: 'PARTIAL' })) as { response: { status: { status_code: string }; header: { id_guid: string } } }[];
    assert.equal(imported?.response.status.status_code, 'OK', JSON.stringify(imported));
    const id = imported!.response.header.id_guid;
    const sharedWithAnalyst = async (): Promise<boolean> => JSON.stringify(await v2(url, 'security/metadata/fetch-permissions', { metadata: [{ identifier: id, type: 'ANSWER' }] })).includes('analyst');
    assert.equal(await sharedWithAnalyst(), false);
    await withCloudSession('objects', url, async (session) => {
      const page = session.page;
      const row = (label: string): Locator => page.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: page.locator('.monaco-icon-label .label-name', { hasText: exactText(label) }) }).first();
      const menu = async (item: string): Promise<void> => {
        const entry = page.locator('.context-view .action-item', { has: page.locator('.action-label', { hasText: exactText(item) }) }).first();
        await waitUntil(async () => {
          await page.keyboard.press('Escape');
          const opened = await row(NAME).click({ button: 'right', timeout: 5_000 }).then(() => entry.waitFor({ state: 'visible', timeout: 5_000 })).then(() => true, () => false);
          if (!opened) return undefined;
          for (let i = 0; i < 15 && (await entry.isVisible()); i++) await entry.click({ timeout: 1_000 }).catch(() => undefined);
          return (await entry.isVisible()) ? undefined : true;
        }, `${item} on ${NAME}`, 90_000);
      };

      await t.test('the answer shows under Answers', () => session.step('answers', async () => {
        await session.openFile('flights.tsq');
        const rows = await session.treeItems('TSQ', (r) => r.includes('Answers'), 120_000);
        if (!rows.includes(NAME)) await session.toggleTreeItem('Answers');
        await session.treeItems('TSQ', (r) => r.includes(NAME), 90_000);
      }));

      await t.test('Share… with the analyst, can view: the service lists the share', () => session.step('share', async () => {
        await menu('Share…');
        await pickRow(session, 'user analyst');
        // a pick of many: tick the first row (the analyst), then OK
        await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().click();
        await page.locator('.quick-input-widget', { hasText: '1 Selected' }).waitFor({ state: 'visible', timeout: 10_000 });
        await page.locator('.quick-input-widget').getByRole('button', { name: exactText('OK') }).click();
        await pickRow(session, 'Can view');
        await page.keyboard.press('Enter');
        await waitUntil(async () => ((await sharedWithAnalyst()) ? true : undefined), 'the share to reach the service', 60_000, 500);
      }));

      await t.test('Delete… asks, naming the answer; Delete removes it from the service and the tree', () => session.step('delete', async () => {
        await menu('Delete…');
        const dialog = page.locator('.monaco-dialog-box', { hasText: NAME });
        await dialog.waitFor({ state: 'visible', timeout: 60_000 });
        await waitUntil(async () => {
          await dialog.getByRole('button', { name: exactText('Delete') }).click();
          return dialog.waitFor({ state: 'hidden', timeout: 10_000 }).then(() => true, () => undefined);
        }, 'the Delete dialog to close', 60_000);
        await waitUntil(async () => (!((await v2(url, 'metadata/search', { metadata: [{ type: 'ANSWER' }] })) as { metadata_id: string }[]).some((m) => m.metadata_id === id) ? true : undefined), 'the answer to be gone', 60_000, 500);
        await session.treeItems('TSQ', (r) => r.includes('Answers') && !r.includes(NAME), 90_000);
      }));
    });
  });
});
