// @ts-check
// In-host part of the Load CSV end-to-end test (test/e2e/load.test.ts): connects to the emulator
// started with --demo as tsadmin, so that the steps driven through the UI have a connection.
// Everything about the load itself happens through the UI, from the test.
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, extensionApi, check } = require('./lib');

module.exports = defineSuite([
  {
    name: 'tsadmin connects to the emulator',
    async fn() {
      const url = process.env.TSQ_E2E_EMULATOR_URL;
      if (!url) throw new Error('TSQ_E2E_EMULATOR_URL is not set');
      const api = await extensionApi();
      const ok = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'emulator', url, username: 'tsadmin', password: 'admin' });
      check(ok === true, 'tsq.connectToEmulator resolves true', { ok, state: api.getConnectionState() });
      await waitFor(() => api.getConnectionState().state === 'connected', 'state connected');
    },
  },
]);
