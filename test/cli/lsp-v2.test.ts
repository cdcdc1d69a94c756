// `tsq lsp` against a service where REST API v1 is gone, signed in with a token from TSQ_TOKEN: the
// diagnostics that need the catalog (an unknown column) come, so columns were read over REST API v2.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLive, type Live } from '../emulator/client-support';
import { startTsqLsp } from './lsp-stdio';

let live: Live;
let home: string;
before(async () => {
  live = await startLive({ options: { publicApi: 'v2' } });
  home = mkdtempSync(join(tmpdir(), 'tsq-lsp-v2-'));
});
after(async () => {
  await live?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('tsq lsp with TSQ_TOKEN on a v2-only service reports an unknown column', { timeout: 60_000 }, async () => {
  const r = await fetch(`${live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'analyst', password: 'analyst' }) });
  const token = ((await r.json()) as { token: string }).token;
  const lsp = startTsqLsp(['--url', live.emu.url, '--user', 'analyst'], home, { TSQ_TOKEN: token });
  const { connection } = lsp;
  const unknownColumn = new Promise<string>((resolve) => {
    connection.onNotification('textDocument/publishDiagnostics', (p: { diagnostics: { message: string }[] }) => {
      const d = p.diagnostics.find((x) => /Unknown column \[delayz\]/.test(x.message));
      if (d) resolve(d.message);
    });
  });
  connection.onNotification('window/showMessage', () => undefined);
  connection.listen();
  try {
    await lsp.initialize();
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: `file://${join(home, 'q.tsq')}`, languageId: 'tsq', version: 1, text: "@datasource 'flights'\n[origin] [delayz]\n" } });
    const message = await unknownColumn;
    assert.match(message, /Did you mean \[delay\]/);
    assert.ok(!lsp.stderr().includes(token), 'the token appears in the server log');
  } finally {
    await lsp.close();
  }
});
