/**
 * End-to-end test against the emulator started with --demo, in a real VS Code (code-server in
 * Chromium). The in-host suite (suites/connected.js) first tries a wrong password, then connects as
 * tsadmin; then, through the UI: the wrong password's error notification, the unknown column in the
 * Problems panel, the flights columns in the suggest widget after `[`, the object tree (data sources,
 * Liveboards, a data source's columns), and — after reloading the window, so a new extension host —
 * completion still knows the columns: the password came back from SecretStorage, and it is in no
 * settings file or log. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { e2eSkip, startSession, type E2eSession } from './harness';
import { reportInHost } from './report';

/** Must match suites/connected.js. */
const WRONG_PASSWORD = 'e2e-Wrong-Pa55word-7f3a9c';
const FLIGHT_COLUMNS = ['date', 'delay', 'distance', 'origin', 'destination'];

/** Whether a suggest-widget row (its aria-label) or tree label names `column`. */
const namesColumn = (row: string, column: string): boolean => new RegExp(`^\\[?${column}\\]?(\\W|$)`, 'i').test(row);
const hasAllColumns = (rows: string[]): boolean => FLIGHT_COLUMNS.every((c) => rows.some((r) => namesColumn(r, c)));

/** Files below `dir` (recursively). */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesBelow(p) : [p];
  });
}

/** Expands `label` when its children are not shown yet, and waits for rows that `until` accepts. */
async function expand(session: E2eSession, label: string, until: (rows: string[]) => boolean): Promise<string[]> {
  const before = await session.treeItems('TSQ', (r) => r.includes(label));
  if (!until(before)) await session.toggleTreeItem(label);
  return session.treeItems('TSQ', until);
}

test('connected: the demo emulator in a real VS Code', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({ name: 'connected', suite: 'connected.js', emulator: true });
  try {
    await reportInHost(t, session, 6);

    await t.test('the wrong password showed an error notification', () => session.step('wrong-password', async () => {
      const isLoginError = (x: string): boolean => x.includes('TSQ') && x.includes('tsadmin') && /401|password|credential|authenticat/i.test(x);
      const rows = await session.notifications((r) => r.some(isLoginError));
      t.diagnostic(`notifications: ${JSON.stringify(rows)}`);
      const errors = await session.page.locator('.notifications-center .notification-list-item', { has: session.page.locator('.codicon-error') }).allInnerTexts();
      assert.ok(errors.some(isLoginError), `the login failure is an error notification: ${JSON.stringify(errors)}`);
      assert.ok(rows.every((x) => !x.includes(WRONG_PASSWORD)), `no notification shows the password: ${JSON.stringify(rows)}`);
    }));

    await t.test('the unknown column is listed in the Problems panel', () => session.step('problems', async () => {
      const rows = await session.problems((r) => r.some((x) => x.includes('no such column')));
      assert.ok(rows.some((x) => x.includes('unknown-column.tsq')), `a row for unknown-column.tsq: ${JSON.stringify(rows)}`);
      assert.ok(!rows.some((x) => /\borigin\b/.test(x) && !x.includes('no such column')), `[origin] is not a problem: ${JSON.stringify(rows)}`);
    }));

    await t.test('the suggest widget lists the flights columns after [', () => session.step('suggest', async () => {
      await session.openFile('flights.tsq');
      const rows = await session.suggest('[', hasAllColumns);
      assert.ok(hasAllColumns(rows), JSON.stringify(rows));
    }));

    await t.test('the tree lists data sources and Liveboards; a data source expands to its columns', () => session.step('tree', async () => {
      const roots = await session.treeItems('TSQ', (r) => r.includes('Data Sources') && r.includes('Liveboards'));
      assert.ok(roots.includes('Data Sources') && roots.includes('Liveboards'), JSON.stringify(roots));
      await expand(session, 'Liveboards', (r) => r.includes('Flight Operations') && r.includes('Markets and Weather'));
      await session.toggleTreeItem('Liveboards'); // collapse again to keep the rows in view
      let rows = await expand(session, 'Data Sources', (r) => r.includes('flights') || r.includes('Tables'));
      if (!rows.includes('flights')) rows = await expand(session, 'Tables', (r) => r.includes('flights'));
      assert.ok(['cars', 'movies', 'stocks'].every((n) => rows.includes(n)), `the demo's tables: ${JSON.stringify(rows)}`);
      rows = await expand(session, 'flights', (r) => FLIGHT_COLUMNS.every((c) => r.includes(c)));
      assert.ok(FLIGHT_COLUMNS.every((c) => rows.includes(c)), JSON.stringify(rows));
    }));

    await t.test('after a window reload the password comes from SecretStorage', () => session.step('reload', async () => {
      await session.reload();
      await session.openFile('flights.tsq');
      const rows = await session.suggest('[', hasAllColumns, { invoke: 'retry' }, 60_000);
      assert.ok(hasAllColumns(rows), JSON.stringify(rows));
    }));

    await t.test('the password is in no settings file, log or code-server output', () => session.step('no-password', async () => {
      assert.ok(!session.codeServerOutput().includes(WRONG_PASSWORD), 'code-server output');
      const files = [
        join(session.userDataDir, 'User', 'settings.json'),
        join(session.workspace, '.vscode', 'settings.json'),
        ...filesBelow(join(session.userDataDir, 'logs')),
      ].filter((f) => existsSync(f));
      assert.ok(files.some((f) => f.endsWith('.log')), `VS Code wrote logs: ${JSON.stringify(files)}`);
      for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(WRONG_PASSWORD), `${f} contains the password`);
    }));
  } finally {
    await session.close();
  }
});
