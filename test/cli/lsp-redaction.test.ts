// `tsq lsp` reaching the service itself (no editor answers tsq/* requests) against a service that echoes
// the login in its error text in every encoding: the catalog's warning reaches the editor's log
// (window/logMessage) and stderr with no form of the password (common/src/redaction.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNoForm, ECHOED, echoingLoginService } from './cli-support';
import { startTsqLsp } from './lsp-stdio';

let service: Awaited<ReturnType<typeof echoingLoginService>>;
let home: string;
before(async () => {
  service = await echoingLoginService();
  home = mkdtempSync(join(tmpdir(), 'tsq-lsp-redaction-'));
});
after(async () => {
  await service?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('tsq lsp logs the catalog failure of a service that echoes the login with no form of the password', async () => {
  const lsp = startTsqLsp(['--url', service.url, '--user', 'tsadmin'], home, { TSQ_PASSWORD: ECHOED });
  const { connection } = lsp;
  const logged: string[] = [];
  const echoLogged = new Promise<string>((resolve) => {
    connection.onNotification('window/logMessage', (p: { message: string }) => {
      logged.push(p.message);
      if (/login refused/.test(p.message)) resolve(p.message);
    });
  });
  connection.onNotification('window/showMessage', (p: { message: string }) => {
    logged.push(p.message);
  });
  connection.onNotification('textDocument/publishDiagnostics', (p: { diagnostics: { message: string }[] }) => {
    logged.push(...p.diagnostics.map((d) => d.message));
  });
  connection.listen();
  try {
    await lsp.initialize();
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: `file://${join(home, 'q.tsq')}`, languageId: 'tsq', version: 1, text: "@datasource 'flights'\n[origin] [delayz]\n" } });
    const message = await echoLogged;
    assert.match(message, /raw \(\[redacted\]\), percent \(\[redacted\]\)/, message);
  } finally {
    await lsp.close();
  }
  assertNoForm(logged.join('\n'), ECHOED, 'the log of tsq lsp');
  assertNoForm(lsp.stderr(), ECHOED, 'the stderr of tsq lsp');
});
