/**
 * End-to-end test of the Objects view's Orgs level over REST API v1 (`--public-api v1`: the v1 Org calls
 * `session/orgs`, login with `orgid`) in a real VS Code (code-server in Chromium), demo seed: `analyst`, in
 * Primary and Finance, gets the Orgs root with both Orgs, and clicking Finance's row moves the tree there
 * (Finance's table, none of Primary's); `trader`, in Finance alone, gets no Orgs root and Finance's table.
 * Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e2eSkip, RESULTS_DIR, startEmulator, startSession, waitUntil, type E2eSession } from './harness';

/** Runs `body` in a VS Code session whose one connection `v1` is `url` over REST API v1 as `user` (password `user`, the demo's). */
async function withV1Session(name: string, url: string, user: string, body: (session: E2eSession) => Promise<void>): Promise<void> {
  const before = process.env.TSQ_DEMO_PASSWORD;
  process.env.TSQ_DEMO_PASSWORD = user;
  try {
    const session = await startSession({ name, settings: { 'tsq.connections': [{ name: 'v1', url, username: user, apiVersion: 'v1' }], 'tsq.activeConnection': 'v1' } });
    try {
      await session.openFile('flights.tsq');
      await body(session);
    } finally {
      await session.close();
    }
  } finally {
    if (before === undefined) delete process.env.TSQ_DEMO_PASSWORD;
    else process.env.TSQ_DEMO_PASSWORD = before;
  }
}

/** The tree's rows once Data Sources › Tables shows what `until` accepts (a refresh may fold them: opened again). */
async function tables(session: E2eSession, until: (rows: string[]) => boolean): Promise<string[]> {
  return waitUntil(async () => {
    const now = await session.treeItems('TSQ', (r) => r.includes('Data Sources'), 120_000);
    if (until(now)) return now;
    if (!now.includes('Tables')) await session.toggleTreeItem('Data Sources').catch(() => undefined);
    else await session.toggleTreeItem('Tables').catch(() => undefined);
    return undefined;
  }, 'the tree to show the tables', 120_000, 2_000);
}

test('Orgs over REST API v1: the Orgs level for a user in two Orgs, none for a user in one', { skip: e2eSkip(['dist/emulator.js']), timeout: 900_000 }, async (t) => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const emulator = await startEmulator(mkdtempSync(join(tmpdir(), 'tsq-e2e-orgs-v1-data-')), join(RESULTS_DIR, 'orgsV1-emulator.log'), ['--public-api', 'v1']);
  try {
    const v2 = await fetch(`${emulator.url}/api/rest/2.0/auth/session/user`);
    assert.equal(v2.status, 404, 'the emulator answers as a service without REST API v2');
    await withV1Session('orgsV1', emulator.url, 'analyst', async (session) => {
      await t.test('analyst: Primary\'s tables and an Orgs root with both Orgs', () => session.step('two-orgs', async () => {
        const rows = await tables(session, (r) => r.includes('flights'));
        assert.ok(!rows.includes('quotes'), JSON.stringify(rows));
        await session.toggleTreeItem('Data Sources');
        await session.toggleTreeItem('Orgs');
        await session.treeItems('TSQ', (r) => r.includes('Finance') && r.includes('Primary'), 60_000);
      }));
      await t.test('clicking Finance\'s row moves the tree to Finance', () => session.step('switch', async () => {
        await session.toggleTreeItem('Finance');
        const rows = await tables(session, (r) => r.includes('quotes') && !r.includes('flights'));
        assert.ok(!rows.includes('movies'), JSON.stringify(rows));
      }));
    });
    await withV1Session('orgsV1-single', emulator.url, 'trader', async (session) => {
      await t.test('trader, in Finance alone: Finance\'s table and no Orgs root', () => session.step('one-org', async () => {
        const rows = await tables(session, (r) => r.includes('quotes'));
        assert.ok(!rows.includes('flights'), JSON.stringify(rows));
        // the data sources folded, every root is in view; the Orgs root would come with the others (the probe
        // answered before the tables came), looked at again a few seconds later to be sure
        await session.toggleTreeItem('Data Sources');
        await session.treeItems('TSQ', (r) => r.includes('Answers') && r.includes('Tags'), 60_000);
        await new Promise((r) => setTimeout(r, 5_000));
        const roots = await session.treeItems('TSQ', (r) => r.includes('Tags'), 60_000);
        assert.ok(!roots.includes('Orgs'), JSON.stringify(roots));
      }));
    });
  } finally {
    await emulator.stop();
  }
});
