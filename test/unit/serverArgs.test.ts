/**
 * The language server's arguments (server/src/nodeServer.ts) are read with `node:util` parseArgs: both
 * `--name=value` and `--name value`, with the transport and an editor's own flags left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionFlagsOf, numberFlag } from '../../server/src/nodeServer';

test('numeric flags: --name=value and --name value; anything but a non-negative number is absent', () => {
  assert.equal(numberFlag(['--stdio', '--request-timeout=2500'], '--request-timeout'), 2500);
  assert.equal(numberFlag(['--validation-delay', '0', '--stdio'], '--validation-delay'), 0);
  assert.equal(numberFlag(['--stdio', '--clientProcessId=12'], '--request-timeout'), undefined);
  assert.equal(numberFlag(['--request-timeout=-1'], '--request-timeout'), undefined);
  assert.equal(numberFlag(['--request-timeout=soon'], '--request-timeout'), undefined);
  assert.equal(numberFlag(['--request-timeout='], '--request-timeout'), undefined);
});

test('connection flags are read beside the transport and the editor flags', () => {
  assert.deepEqual(connectionFlagsOf(['--stdio', '--clientProcessId=9', '--url', 'http://127.0.0.1:8088', '--user=tsadmin', '--insecure']), { url: 'http://127.0.0.1:8088', user: 'tsadmin', insecure: true });
  assert.deepEqual(connectionFlagsOf(['--node-ipc', '--connection=prod', '--validation-delay=10']), { connection: 'prod' });
  // tsq lsp --org (or tsq --org X lsp, which main.ts hands on): the Org the server's catalog is read in
  assert.deepEqual(connectionFlagsOf(['--stdio', '--connection', 'prod', '--org', 'Finance']), { connection: 'prod', org: 'Finance' });
});
