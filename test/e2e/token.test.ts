/**
 * End-to-end tests of REST API v2 in a real VS Code (code-server in Chromium), against an emulator where
 * REST API v1 is gone (`--public-api v2`, as on a current cloud build):
 * - TSQ: Sign In with Token…: the connection has no password; the person pastes a bearer token from
 *   auth/token/full, and the tree, completion, diagnostics and Run Query with its results work over v2;
 *   the token is in no settings file and no log;
 * - a connection with a password signs in for a token by itself, and the same features work.
 * Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { e2eSkip, runCommandIn, waitUntil, type E2eSession } from './harness';
import { tsadminToken, withCloudSession, withV2Emulator } from './v2-support';

const FLIGHT_COLUMNS = ['date', 'delay', 'distance', 'origin', 'destination'];
const hasAllColumns = (rows: string[]): boolean => FLIGHT_COLUMNS.every((c) => rows.some((r) => new RegExp(`^\\[?${c}\\]?(\\W|$)`, 'i').test(r)));

/** Files below `dir` (recursively). */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesBelow(join(dir, n)) : [join(dir, n)]));
}

/**
 * Runs flights.tsq's `top 10` query with Ctrl+Enter and checks that the results panel ends done with
 * the rows v2 searchdata gives for it (asked directly with `token`).
 */
async function runOverV2(session: E2eSession, url: string, token: string): Promise<void> {
  const query = '[origin] [delay] top 10 sort by [delay] descending';
  const direct = await fetch(`${url}/api/rest/2.0/searchdata`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query_string: query, logical_table_identifier: 'flights', data_format: 'COMPACT', record_offset: 0, record_size: 100 }),
  });
  assert.equal(direct.status, 200);
  const want = ((await direct.json()) as { contents: { data_rows: unknown[][] }[] }).contents[0]!.data_rows;
  assert.equal(want.length, 10);
  await session.openFile('flights.tsq');
  const line = session.page.locator('.editor-group-container .monaco-editor .view-line', { hasText: 'top 10' }).first();
  await line.waitFor({ state: 'visible', timeout: 10_000 });
  await line.click();
  await session.page.keyboard.press('End');
  await session.page.keyboard.press('Control+Enter');
  const frame = await session.webviewFrame('.tab-body', 90_000);
  const shown = await waitUntil(async () => {
    const v = await frame.evaluate(() => {
      const body = document.querySelector<HTMLElement>('.tab-body.active');
      return body ? { state: body.dataset.state ?? '', rows: Number(body.dataset.rows ?? 0), status: body.querySelector('.status')?.textContent ?? '', text: body.innerText } : undefined;
    });
    return v && v.state !== 'loading' ? v : undefined;
  }, 'the results panel to finish the run', 90_000, 100);
  assert.equal(shown.state, 'done', shown.status);
  assert.equal(shown.rows, want.length, shown.status);
  assert.ok(shown.text.includes(String(want[0]![0])), `the first origin ${String(want[0]![0])} is on screen`);
}

test('token: Sign In with Token against a service where v1 is gone', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  // no demo password: the token is the only credential
  await withV2Emulator('token', undefined, async (url) => {
    const token = await tsadminToken(url);
    assert.ok(token.length > 10);
    await withCloudSession('token', url, async (session) => {
      await t.test('the token is asked for naming the address, and signs in', () => session.step('sign-in', async () => {
        await session.openFile('flights.tsq');
        await runCommandIn(session.page, 'TSQ: Sign In with Token…');
        const title = session.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Sign In with Token' }).first();
        await title.waitFor({ state: 'visible', timeout: 30_000 });
        assert.ok((await title.innerText()).includes(new URL(url).host), 'the prompt names the address the token goes to');
        const input = session.page.locator('.quick-input-widget input').first();
        await input.fill(token);
        await input.press('Enter');
      }));

      await t.test('the tree lists the data sources over REST API v2', () => session.step('tree', async () => {
        const roots = await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 90_000);
        assert.ok(roots.includes('Data Sources'), JSON.stringify(roots));
      }));

      await t.test('completion lists the columns of flights over REST API v2', () => session.step('suggest', async () => {
        await session.openFile('flights.tsq');
        const rows = await session.suggest('[', hasAllColumns, { invoke: 'retry' }, 90_000);
        assert.ok(hasAllColumns(rows), JSON.stringify(rows));
      }));

      await t.test('an unknown column is diagnosed', () => session.step('problems', async () => {
        await session.openFile('unknown-column.tsq');
        const rows = await session.problems((r) => r.some((x) => x.includes('no such column')), 90_000);
        assert.ok(rows.some((x) => x.includes('unknown-column.tsq')), JSON.stringify(rows));
      }));

      await t.test('Run Query over REST API v2 shows the rows searchdata gives, in the results panel', () => session.step('run', () => runOverV2(session, url, token)));

      await t.test('the token is in no settings file, log or code-server output', () => session.step('no-token', async () => {
        await waitUntil(() => filesBelow(join(session.userDataDir, 'logs')).some((f) => f.endsWith('.log')) || undefined, 'VS Code to write its logs', 30_000);
        assert.ok(!session.codeServerOutput().includes(token), 'code-server output');
        const files = [join(session.userDataDir, 'User', 'settings.json'), join(session.workspace, '.vscode', 'settings.json'), ...filesBelow(join(session.userDataDir, 'logs'))].filter((f) => existsSync(f));
        for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(token), `${f} contains the token`);
      }));
    });
  });
});

test('password: a connection with a password against a service where v1 is gone signs in for a token and works over v2', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  await withV2Emulator('v2-password', 'admin', (url) => withCloudSession('v2-password', url, async (session) => {
    await t.test('the tree lists the data sources', () => session.step('tree', async () => {
      await session.openFile('flights.tsq');
      const roots = await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 90_000);
      assert.ok(roots.includes('Data Sources'), JSON.stringify(roots));
    }));
    await t.test('completion lists the columns of flights', () => session.step('suggest', async () => {
      await session.openFile('flights.tsq');
      const rows = await session.suggest('[', hasAllColumns, { invoke: 'retry' }, 90_000);
      assert.ok(hasAllColumns(rows), JSON.stringify(rows));
    }));
    await t.test('Run Query shows the rows searchdata gives', () => session.step('run', async () => runOverV2(session, url, await tsadminToken(url))));
  }));
});
