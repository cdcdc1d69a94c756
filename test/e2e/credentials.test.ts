/**
 * End-to-end test of the workspace-redirect attack in a real VS Code (code-server in Chromium). The
 * user's settings define "prod" (a recording HTTP server) with a password, moved to the secret storage.
 * The workspace's settings then redefine "prod" to the attacker's recording server, while open and at
 * activation: the user's "prod" wins (common/src/trust.ts), a warning names the file, and the attacker
 * never sees the password in any form (URL, header, body, base64, hex). A connection the workspace adds
 * needs confirmation, and after Trust and Connect TSQ asks for a password naming that origin instead of
 * sending a stored one; removing the settings reconnects to the user's service. A second session opens
 * the repository in Restricted Mode: its connections are neither offered nor used, and get no request.
 * Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eSkip, runCommandIn, startSession, UI_TIMEOUT_MS, waitUntil } from './harness';

const SECRET = 'e2e-Prod-Pa55word-c41d8e';

/** One request as a recording server received it. */
interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A stand-in for a service: records every request, answers a login with 200 and anything else with `[]`. */
async function recordingServer(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('latin1') });
      if (/\/session\/login$/.test((req.url ?? '').split('?')[0]!)) {
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'JSESSIONID=recorded; Path=/; HttpOnly' });
        res.end(JSON.stringify({ userName: 'ann', userGUID: '00000000-0000-0000-0000-000000000001', userDisplayName: 'Ann', privileges: [] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((done) => server.close(() => done())) };
}

/** Every way the password could travel: plain, URL-encoded, base64 (of it or of `user:password`), hex. */
function secretForms(): string[] {
  const forms = [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('hex')];
  for (const s of [SECRET, `ann:${SECRET}`]) {
    const b64 = Buffer.from(s).toString('base64');
    forms.push(b64, b64.replace(/=+$/, ''), Buffer.from(s).toString('base64url'));
  }
  return forms;
}

/** True when the recorded request carries the password in any form (also inside base64 tokens it holds). */
function carriesSecret(r: Recorded): boolean {
  const raw = `${r.method} ${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`;
  const texts = [raw];
  try {
    texts.push(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    /* not URL-encoded */
  }
  for (const token of raw.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) texts.push(Buffer.from(token, 'base64').toString('latin1'));
  return texts.some((t) => secretForms().some((f) => t.includes(f)));
}

test('credentials: a workspace redirecting a stored connection gets no password', { skip: e2eSkip(), timeout: 600_000 }, async (t) => {
  delete process.env.TSQ_DEMO_PASSWORD; // npm start's loopback exemption must not apply here
  const legit = await recordingServer();
  const attacker = await recordingServer();
  const session = await startSession({
    name: 'credentials',
    settings: { 'tsq.connections': [{ name: 'prod', url: legit.url, username: 'ann', password: SECRET }], 'tsq.activeConnection': 'prod' },
  });
  const page = session.page;
  const statusNeedsConfirmation = page.locator('.statusbar-item', { hasText: 'needs confirmation' }).first();
  try {
    await t.test('the password from the user settings is stored and sent to its own service', () => session.step('legit', async () => {
      await waitUntil(() => legit.requests.some((r) => /session\/login/.test(r.url) && carriesSecret(r)), 'the login at the user\'s own service', 120_000);
    }));

    await t.test('workspace settings redefine prod while the window is open: the user\'s prod stays, a warning names the file', () => session.step('redirect-live', async () => {
      mkdirSync(join(session.workspace, '.vscode'), { recursive: true });
      writeFileSync(join(session.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'tsq.connections': [{ name: 'prod', url: attacker.url, username: 'ann' }], 'tsq.activeConnection': 'prod' }, null, 2));
      const warning = page.locator('.notification-toast', { hasText: 'is ignored: your own connection of that name' }).first();
      await warning.waitFor({ state: 'visible', timeout: 60_000 });
      const text = (await warning.innerText()).replace(/\s+/g, ' ');
      assert.ok(text.includes(join('.vscode', 'settings.json')), `the warning names the settings file: ${text}`);
      await page.locator('.statusbar-item', { hasText: 'TSQ: prod' }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      assert.equal(await statusNeedsConfirmation.count(), 0);
      assert.deepEqual(attacker.requests.map((r) => `${r.method} ${r.url}`), []);
    }));

    await t.test('after a reload (activation with the workspace settings in place) still no request there', () => session.step('redirect-activation', async () => {
      const before = legit.requests.filter((r) => /session\/login/.test(r.url)).length;
      await session.reload();
      await session.openFile('flights.tsq');
      await waitUntil(() => legit.requests.filter((r) => /session\/login/.test(r.url) && carriesSecret(r)).length > before, 'the login at the user\'s own service after the reload', 120_000);
      assert.deepEqual(attacker.requests.map((r) => `${r.method} ${r.url}`), [], 'no request at the workspace-defined origin');
    }));

    await t.test('a connection the workspace adds and makes active needs confirmation; nothing is sent', () => session.step('added', async () => {
      writeFileSync(join(session.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'tsq.connections': [{ name: 'lab', url: attacker.url, username: 'ann', rejectUnauthorized: false }], 'tsq.activeConnection': 'lab' }, null, 2));
      await statusNeedsConfirmation.waitFor({ state: 'visible', timeout: 60_000 });
      assert.deepEqual(attacker.requests.map((r) => `${r.method} ${r.url}`), []);
    }));

    await t.test('going on anyway: the modal names the origin and the settings file; then the password is asked for, not sent', () => session.step('confirm', async () => {
      await runCommandIn(page, 'TSQ: Switch Connection');
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'lab' }).first();
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await row.click();
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const text = (await dialog.innerText()).replace(/\s+/g, ' ');
      t.diagnostic(`modal: ${text}`);
      assert.ok(text.includes(attacker.url), `the modal names the origin ${attacker.url}: ${text}`);
      assert.ok(text.includes(join('.vscode', 'settings.json')), `the modal names the settings file: ${text}`);
      await dialog.locator('.monaco-button', { hasText: 'Trust and Connect' }).first().click();
      const password = page.locator('.quick-input-widget input[type="password"]').first();
      await password.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const title = (await page.locator('.quick-input-widget').first().innerText()).replace(/\s+/g, ' ');
      t.diagnostic(`password prompt: ${title}`);
      assert.ok(title.includes(attacker.url), `the prompt names the origin: ${title}`);
      await page.keyboard.press('Escape');
    }));

    await t.test('removing the workspace settings reconnects to the user\'s own service with the stored password', () => session.step('back', async () => {
      const before = legit.requests.filter((r) => /session\/login/.test(r.url)).length;
      rmSync(join(session.workspace, '.vscode', 'settings.json'));
      await waitUntil(() => legit.requests.filter((r) => /session\/login/.test(r.url) && carriesSecret(r)).length > before, 'a new login at the user\'s own service', 60_000);
      await page.locator('.statusbar-item', { hasText: 'TSQ: prod' }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      assert.equal(await statusNeedsConfirmation.count(), 0);
    }));

    await t.test('the attacker\'s server never saw the password in any form', () => session.step('nothing-leaked', async () => {
      t.diagnostic(`requests at the workspace-defined origin: ${attacker.requests.length}`);
      assert.deepEqual(attacker.requests.filter(carriesSecret).map((r) => `${r.method} ${r.url}`), []);
      assert.ok(!session.codeServerOutput().includes(SECRET), 'not in code-server output');
    }));
  } finally {
    await session.close();
    await legit.close();
    await attacker.close();
  }
});

test('credentials: a cloned repository opened in Restricted Mode: its connections are not acted on at all', { skip: e2eSkip(), timeout: 600_000 }, async (t) => {
  delete process.env.TSQ_DEMO_PASSWORD;
  const legit = await recordingServer();
  const attacker = await recordingServer();
  // what the repository brings: "prod" redirected to the attacker, and a connection of its own made active
  const session = await startSession({
    name: 'credentials-untrusted',
    workspaceTrust: true,
    settings: { 'tsq.connections': [{ name: 'prod', url: legit.url, username: 'ann', password: SECRET }], 'tsq.activeConnection': 'prod' },
    workspaceSettings: { 'tsq.connections': [{ name: 'prod', url: attacker.url, username: 'ann' }, { name: 'repo-service', url: attacker.url, username: 'ann' }], 'tsq.activeConnection': 'repo-service' },
  });
  const page = session.page;
  try {
    await t.test('the window is in Restricted Mode and TSQ uses the user\'s own prod with its stored password', () => session.step('restricted', async () => {
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 60_000 });
      await session.openFile('flights.tsq');
      await waitUntil(() => legit.requests.some((r) => /session\/login/.test(r.url) && carriesSecret(r)), 'the login at the user\'s own service', 120_000);
      await page.locator('.statusbar-item', { hasText: 'TSQ: prod' }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    }));

    await t.test('Switch Connection lists only the user\'s connections', () => session.step('switch-list', async () => {
      await runCommandIn(page, 'TSQ: Switch Connection');
      const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
      // the command palette's rows stay on screen until the connections' quick pick replaces them (read
      // once in CI: "TSQ: Switch Connection… | TSQ: Add Connection…"): wait for the palette to be gone
      const labels = await waitUntil(async () => {
        const texts = (await rows.allInnerTexts()).map((l) => l.replace(/\s+/g, ' '));
        return texts.length && !texts.some((l) => l.includes('TSQ: Switch Connection')) ? texts : undefined;
      }, 'the connections of Switch Connection', UI_TIMEOUT_MS);
      t.diagnostic(`connections offered: ${labels.join(' | ')}`);
      assert.ok(labels.some((l) => l.includes('prod')), labels.join(' | '));
      assert.ok(!labels.some((l) => l.includes('repo-service')), `the repository's connection is not offered: ${labels.join(' | ')}`);
      await page.keyboard.press('Escape');
    }));

    await t.test('the workspace-defined origin received no request at all', () => session.step('no-request', async () => {
      assert.deepEqual(attacker.requests.map((r) => `${r.method} ${r.url}`), []);
      assert.ok(!session.codeServerOutput().includes(SECRET), 'not in code-server output');
    }));
  } finally {
    await session.close();
    await legit.close();
    await attacker.close();
  }
});
